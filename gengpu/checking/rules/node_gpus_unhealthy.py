from gengpu.live.pools import GPU_PREFIXES
from gengpu.checking.rules._live import at_item, at_pool
from gengpu.checking.rules.base import LIVE_NODE, Rule


def check(node, cluster):
    capacity = node.item.mapping("status", "capacity")
    for resource in sorted(k for k in capacity if str(k).startswith(GPU_PREFIXES)):
        total, usable = node.capacity(resource), node.allocatable(resource)
        if total is not None and usable is not None and usable < total:
            message = f"{total - usable} of {total} {resource} are unhealthy (allocatable {usable} < capacity {total})"
            yield at_pool(node, message) if node.pool else at_item(node.item, f"node {node.name}: {message}",
                                                                   "status", "allocatable")


RULE = Rule(
    id="node-gpus-unhealthy",
    severity="error",
    summary="A node's GPU allocatable is below its capacity: the device plugin marked GPUs unhealthy.",
    fix="Check the node's GPUs (nvidia-smi, XID errors in the kernel log, dcgm-exporter's DCGM_FI_DEV_XID_ERRORS) "
    "and drain and repair or replace the node.",
    explanation="The device plugin lowers a resource's allocatable below its capacity for every device whose health "
    "check failed (an XID error it does not ignore, a GPU fallen off the bus). Pods asking for those devices wait "
    "for GPUs that exist on paper only.",
    source="NVIDIA/k8s-device-plugin internal/rm/health.go",
    check=check,
    applies_to=LIVE_NODE,
)
