from gengpu.checking.rules.base import Hit, Rule, pool_path


def check(profile, ctx=None):
    mixed = [p for p in profile.node_pools
             if p.sharing.mode == "mig" and p.sharing.mig and p.sharing.mig.strategy == "mixed" and not p.dra]
    if not mixed or not profile.operator.enabled:
        return
    for pool in profile.node_pools:
        if pool.sharing.mode == "mps" and not pool.dra:
            yield Hit(pool_path(pool, "sharing", "mode"),
                      f"nodePools[{pool.index}].sharing.mode is mps, but pool {mixed[0].name} sets the cluster's "
                      "MIG strategy to mixed, which the device plugin refuses with MPS")


RULE = Rule(
    id="mps-with-mixed-strategy",
    severity="error",
    summary="MPS does not work while the cluster's MIG strategy is mixed.",
    fix="Use strategy single for the MIG pools, or time-slicing instead of mps for this pool.",
    explanation="The operator gives every device plugin the same MIG_STRATEGY. With MPS sharing the plugin stops at "
    "start-up with 'using --mig-strategy=mixed is not supported with MPS', so the pool advertises no GPUs.",
    source="NVIDIA/k8s-device-plugin cmd/nvidia-device-plugin/main.go (validateFlags)",
    check=check,
)
