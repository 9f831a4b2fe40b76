from gengpu.checking.rules._live import at_item
from gengpu.checking.rules.base import LIVE_CLUSTER, Rule


def check(cluster, ctx=None):
    snap = cluster.snapshot
    if snap.gpuclusters and snap.clusterpolicies:
        policy, gpucluster = snap.clusterpolicies[0], snap.gpuclusters[0]
        yield at_item(gpucluster, f"GPUCluster {gpucluster.name} and ClusterPolicy {policy.name} both manage this "
                      "cluster's GPUs: the GPU Operator supports one model per cluster")


RULE = Rule(
    id="gpucluster-beside-clusterpolicy",
    severity="error",
    summary="A GPUCluster and a ClusterPolicy in one cluster: two GPU management models the GPU Operator does not "
    "run side by side.",
    fix="Keep one: a ClusterPolicy (driver, device plugin, MIG, sharing through extended resources) or a GPUCluster "
    "(DRA driver, DCGM and its exporter; the driver preinstalled or from an NVIDIADriver). Moving an existing "
    "ClusterPolicy cluster to GPUCluster in place is not supported: build the DRA cluster new.",
    explanation="GPU Operator v26.7 adds GPUCluster (nvidia.com/v1alpha1, technology preview), which runs NVIDIA's "
    "DRA driver, DCGM and dcgm-exporter, and neither the driver nor the device plugin. NVIDIA's reference says not "
    "to use ClusterPolicy and GPUCluster as GPU resource management models in the same cluster, and that GPUCluster "
    "is for new deployments only: both present means operands of one fight the other's (two exporters, the device "
    "plugin and the DRA driver handing out the same GPUs).",
    source="NVIDIA GPU Operator docs, GPUCluster Custom Resource Reference (gpucluster-reference)",
    check=check,
    applies_to=LIVE_CLUSTER,
)
