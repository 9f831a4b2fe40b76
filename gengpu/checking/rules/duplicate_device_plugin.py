from gengpu.checking.rules.base import Hit, Rule, pool_path
from gengpu.compiling.nodes import GKE_OPT_OUT_LABEL as OPT_OUT


def check(profile, ctx=None):
    # gengpu labels every GKE pool it hands to the GPU Operator or to the DRA driver with the opt-out label; only a
    # pool label of the profile's own can take it back.
    if profile.platform != "gke":
        return
    for pool in profile.node_pools:
        value = pool.labels.get(OPT_OUT)
        if (profile.operator.enabled or pool.dra) and value is not None and str(value) != "true":
            other = "NVIDIA's DRA driver" if pool.dra else "the operator's"
            yield Hit(pool_path(pool, "labels", OPT_OUT), f"nodePools[{pool.index}].labels sets {OPT_OUT}={value}: "
                      f"GKE's own device plugin would run next to {other}")


RULE = Rule(
    id="duplicate-device-plugin",
    severity="error",
    summary="Two device plugins would hand out the same GPUs on the same nodes.",
    fix=f'Remove the {OPT_OUT} label from the pool (gengpu sets it to "true" on GKE pools run by the GPU Operator or '
    "the DRA driver), or set it to \"true\".",
    explanation="GKE runs its own device plugin on GPU nodes unless the pool opts out with the node label "
    f"{OPT_OUT}=true, which gengpu writes on every GKE pool the GPU Operator or NVIDIA's DRA driver serves. With "
    "the operator's plugin beside GKE's, kubelet keys devices by resource name and ownership becomes a race: "
    "sharing configs apply at random or not at all. With the DRA driver beside it, the same GPUs are handed out "
    "twice, once as nvidia.com/gpu and once through ResourceClaims.",
    source="NVIDIA/cloud-native-docs gpu-operator/google-gke.rst; GKE 'Prepare GKE infrastructure for DRA "
    "workloads'; pain point OP-02",
    check=check,
)
