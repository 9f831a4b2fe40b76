from gengpu.live.pools import promised
from gengpu.checking.rules._live import at_pool
from gengpu.checking.rules.base import LIVE_NODE, Rule

DRIVER = "gpu.nvidia.com"


def _dra_devices(node, cluster) -> int:
    return sum(len(s.sequence("spec", "devices")) for s in cluster.snapshot.resourceslices
               if s.text("spec", "nodeName") == node.name and s.text("spec", "driver") == DRIVER)


def check(node, cluster):
    if node.pool is None:
        return
    if node.pool.dra:
        if "resourceslices" in cluster.snapshot.captured and node.gpus and _dra_devices(node, cluster) == 0:
            yield at_pool(node, "publishes no GPU device in a ResourceSlice (driver gpu.nvidia.com), where the pool "
                          f"hands out {node.gpus} GPU(s) through DRA: the DRA kubelet plugin is not running there, "
                          "so every claim stays pending", "allocation")
        return
    if not isinstance(node.item.get("status", "allocatable"), dict):
        return  # not in the snapshot: snapshot-object-partial says so
    wanted = promised(cluster.profile, node)
    # nothing of what the pool promises: no device plugin (or no config) on the node; some of it: another config
    nothing = not any(node.allocatable(r) for r in wanted)
    for resource, (count, why) in wanted.items():
        capacity, allocatable = node.capacity(resource), node.allocatable(resource)
        if capacity is not None and allocatable is not None and allocatable < capacity:
            continue  # GPUs that went unhealthy: node-gpus-unhealthy says so
        have = allocatable if allocatable is not None else 0
        if have < count:
            seen = f"{resource} allocatable is {have}" if allocatable is not None else f"no {resource} in allocatable"
            cause = "the device plugin never registered it (not running there, or without its config)" if nothing \
                else "the pool's sharing or MIG config did not apply"
            yield at_pool(node, f"{seen}, the profile promises {count} ({why}): {cause}", "sharing")


RULE = Rule(
    id="node-gpus-not-advertised",
    severity="error",
    summary="A node offers fewer GPUs, shared GPUs or MIG devices than its pool promises.",
    fix="Look at the node's device-plugin (or DRA kubelet plugin) pod and its config-manager's log: the node's "
    "nvidia.com/device-plugin.config label must name a key of the sharing ConfigMap, and the MIG layout must be "
    "applied first.",
    explanation="The profile says what every node of a pool offers: GPUs times the time-slicing or MPS replicas, "
    "or the MIG devices of the layout (one resource per profile with the mixed strategy, nvidia.com/gpu with "
    "single). A node whose allocatable is lower (0 or 1 where 4 were promised) is the most common report after a "
    "sync: the device plugin never landed (taints, labels), or its config was never picked up. On a DRA pool the "
    "kubelet plugin publishes the node's GPUs in ResourceSlices; none there means claims never bind.",
    source="NVIDIA/k8s-device-plugin (config per node, replicas); kubernetes ResourceSlice (resource.k8s.io/v1); "
    "NVIDIA gpu-operator issues about allocatable 0 after sharing",
    check=check,
    applies_to=LIVE_NODE,
)
