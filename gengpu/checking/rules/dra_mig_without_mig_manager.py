from gengpu.checking.rules.base import Hit, Rule, pool_path


def check(profile, ctx=None):
    if profile.cluster_policy:
        return
    why = "a GPUCluster runs no MIG manager to create them" if profile.gpucluster else \
        "without the GPU Operator nothing creates them"
    for pool in profile.dra_pools:
        if pool.sharing.mode == "mig":
            yield Hit(pool_path(pool, "sharing", "mode"),
                      f"nodePools[{pool.index}] hands out MIG devices through NVIDIA's DRA driver, but {why}: the DRA "
                      "driver only publishes the MIG devices it finds")


RULE = Rule(
    id="dra-mig-without-mig-manager",
    severity="error",
    summary="A DRA pool wants MIG devices that nothing creates.",
    fix="Enable the GPU Operator with its ClusterPolicy (spec.operator.enabled: true, operator.model: "
    "clusterpolicy): gengpu then lets its MIG manager make the pool's layout before the DRA kubelet plugin starts. Or "
    "hand out whole GPUs (sharing.mode: none or time-slicing).",
    explanation="NVIDIA's DRA driver (without its DynamicMIG alpha gate) partitions nothing: its kubelet plugin lists "
    "the MIG devices that exist when it starts and publishes them. gengpu has the GPU Operator's MIG manager create "
    "the pool's layout (nvidia.com/mig.config) and starts the plugin once nvidia.com/mig.config.state is success. "
    "Without the operator, or under its GPUCluster (v26.7.0), no MIG manager runs, and GKE's own MIG "
    "(gpu-partition-size) is not available to DRA pools "
    "(\"Prepare GKE infrastructure for DRA workloads\", limitations), so every MIG claim stays pending.",
    source="NVIDIA/k8s-dra-driver-gpu v25.12.0 cmd/gpu-kubelet-plugin/nvlib.go (GetPerGpuAllocatableDevices, called "
    "once at start); GKE docs 'Prepare GKE infrastructure for DRA workloads'",
    check=check,
)
