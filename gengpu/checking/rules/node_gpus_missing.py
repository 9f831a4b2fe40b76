from gengpu.checking.rules._devices import hits
from gengpu.checking.rules.base import LIVE_NODE, Rule

ID = "node-gpus-missing"


def check(node, cluster):
    return hits(ID, node, cluster, "gpusPerNode" if node.pool and node.pool.gpus_per_node else "gpu")


RULE = Rule(
    id=ID,
    severity="error",
    summary="A node registers fewer GPUs than its pool's nodes have: GPUs the driver does not see.",
    fix="On the node, compare nvidia-smi -L and lspci | grep -i nvidia with the machine's GPU count: a GPU fallen "
    "off the bus (Xid 79), one held by another driver (vfio, passthrough) or disabled in firmware. Replace the node "
    "if a GPU is gone; check gpusPerNode if the profile is wrong.",
    explanation="The device plugin registers one device per GPU the driver reports (times the time-slicing or MPS "
    "replicas). Fewer than the pool's GPUs per node, with every registered one healthy, means the driver never saw "
    "the others: the node costs as much as a whole one and offers less. GPU Feature Discovery's nvidia.com/gpu.count "
    "shows the same from NVML.",
    source="NVIDIA/k8s-device-plugin internal/rm (one device per NVML device, times replicas); GPU Feature "
    "Discovery internal/lm/resource.go (gpu.count)",
    check=check,
    applies_to=LIVE_NODE,
)
