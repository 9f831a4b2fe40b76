from gengpu.checking.rules.base import GPUCLUSTER, OBJECT, OVERLAY, Hit, Rule


def check(overlay, ctx=None):
    policies = [s for s in overlay.subjects if s.kind == OBJECT and s.data.get("kind") == "ClusterPolicy"
                and str(s.data.get("apiVersion", "")).startswith("nvidia.com/")]
    if not policies:
        return
    for s in overlay.subjects:
        if s.kind == GPUCLUSTER:
            yield Hit(("kind",), f"{s.label} is beside {policies[0].label}: the GPU Operator runs one or the other "
                      "(the GPUCluster controller waits with PrerequisiteNotMet while a ClusterPolicy exists, and the "
                      "ClusterPolicy turns notReady while a GPUCluster does)", doc=s.doc)


RULE = Rule(
    id="gpucluster-and-clusterpolicy",
    severity="error",
    summary="A GPUCluster and a ClusterPolicy in the same files: the GPU Operator runs one model per cluster.",
    fix="Keep one: the GPUCluster (DRA driver, DCGM, dcgm-exporter; operator v26.7.0+) or the ClusterPolicy (device "
    "plugin, MIG manager, the classic stack). Installing the chart with clusterPolicy.deployCR false and "
    "gpuCluster.deployCR true writes only the GPUCluster.",
    explanation="NVIDIA's GPU Operator reconciles either a ClusterPolicy or a GPUCluster. With both, the GPUCluster "
    "controller's prerequisites fail while a ClusterPolicy exists and the ClusterPolicy controller marks itself "
    "notReady while a GPUCluster exists: neither stack comes up. gengpu check says the same of a running cluster "
    "(gpucluster-beside-clusterpolicy).",
    source="NVIDIA/gpu-operator v26.7.0 controllers/gpucluster_controller.go (validatePrerequisites), "
    "controllers/clusterpolicy_controller.go; values.yaml (one of clusterPolicy.deployCR, gpuCluster.deployCR)",
    check=check,
    applies_to=OVERLAY,
)
