from gengpu import catalog
from gengpu.checking.rules.base import Hit, Rule, pool_path


def check(profile, ctx=None):
    for pool in profile.node_pools:
        if not pool.sharing.allocation_policy:
            continue
        at = pool_path(pool, "sharing", "allocationPolicy")
        if pool.dra:
            yield Hit(at, f"nodePools[{pool.index}] sets allocationPolicy but uses DRA: NVIDIA's DRA driver, not the "
                      "device plugin, allocates its GPUs")
        elif not profile.operator.enabled:
            yield Hit(at, f"nodePools[{pool.index}] sets allocationPolicy without the GPU Operator: the cloud's own "
                      f"device plugin ({profile.platform}) has no allocation policy")
        elif lacks := catalog.device_plugin_lacks(profile.operator.version, "allocationPolicy"):
            plugin, since = lacks
            yield Hit(at, f"nodePools[{pool.index}] sets allocationPolicy, but GPU Operator "
                      f"{profile.operator.version} runs device plugin {plugin}, which ignores it (the plugin reads "
                      f"sharedDevicesAllocationPolicy from {since})")


RULE = Rule(
    id="allocation-policy-unsupported",
    severity="error",
    summary="A pool asks for a device-plugin allocation policy that its device plugin does not have.",
    fix="Use GPU Operator v26.7.0 or later (device plugin v0.20.0), or remove sharing.allocationPolicy.",
    explanation="NVIDIA's device plugin chooses which time-sliced or MPS replicas and MIG devices a pod gets with "
    "flags.plugin.sharedDevicesAllocationPolicy from v0.20.0: packed fills GPUs already in use, so whole GPUs stay "
    "free for multi-GPU pods and empty nodes can be removed; distributed spreads pods. Older plugins read the config "
    "without complaint and ignore the key (its parser is not strict), so the pool keeps spreading; DRA pools and "
    "the clouds' own device plugins have no such setting.",
    source="NVIDIA/k8s-device-plugin v0.20.0 (1b826acc) CHANGELOG.md (#1621), api/config/v1/flags.go and consts.go, "
    "internal/rm/allocate.go; gengpu/data/operator.yaml (device plugin per operator release)",
    check=check,
)
