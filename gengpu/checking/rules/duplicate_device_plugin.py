from gengpu.checking.rules.base import Hit, Rule, pool_path

OPT_OUT = "gke-no-default-nvidia-gpu-device-plugin"


def check(profile, ctx=None):
    if profile.platform != "gke" or not profile.operator.enabled:
        return
    for pool in profile.node_pools:
        if pool.provisioner == "managed" and pool.labels.get(OPT_OUT) != "true":
            yield Hit(pool_path(pool, "labels"), f"nodePools[{pool.index}] runs GKE's own device plugin next to the "
                      f"operator's: add the node label {OPT_OUT}: \"true\"", key=True)


RULE = Rule(
    id="duplicate-device-plugin",
    severity="error",
    summary="Two device plugins would advertise nvidia.com/gpu on the same nodes.",
    fix='On GKE Standard with the GPU Operator, label the pool gke-no-default-nvidia-gpu-device-plugin: "true".',
    explanation="GKE runs its own device plugin on GPU nodes unless the pool opts out. With the operator's plugin "
    "beside it, kubelet keys devices by resource name and ownership becomes a race: sharing configs apply at random "
    "or not at all.",
    source="NVIDIA/cloud-native-docs gpu-operator/google-gke.rst; pain point OP-02",
    check=check,
)
