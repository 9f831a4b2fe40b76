from gengpu.checking.rules._devices import hits
from gengpu.checking.rules._live import at_item
from gengpu.checking.rules.base import LIVE_NODE, Rule
from gengpu.live.pools import GPU_PREFIXES

ID = "node-gpus-unhealthy"


def check(node, cluster):
    if node.pool is not None:
        yield from hits(ID, node, cluster)
        return
    for resource, (total, usable) in node.gpu_resources().items():  # a GPU node of no pool: its own counts
        if resource.startswith(GPU_PREFIXES) and total and usable is not None and 0 < usable < total:
            yield at_item(node.item, f"node {node.name}: {total - usable} of {total} {resource} are unhealthy "
                          f"(allocatable {usable} < capacity {total})", "status", "allocatable")


RULE = Rule(
    id=ID,
    severity="error",
    summary="Some of a node's GPUs (or shared GPUs, MIG devices) are unhealthy: allocatable is below capacity, "
    "but not zero.",
    fix="Find the failed GPU (nvidia-smi; Xid errors in the kernel log or dcgm-exporter's DCGM_FI_DEV_XID_ERRORS; "
    "ECC errors), then drain the node and repair or replace it.",
    explanation="The kubelet counts a device plugin's registered devices in capacity and its healthy ones in "
    "allocatable. When some devices of a resource drop out of allocatable while others stay, the plugin's health "
    "check failed those devices (an Xid error it does not ignore, an ECC error, a GPU fallen off the bus): pods "
    "asking for them wait for GPUs that exist on paper only. When every device of a resource drops at once, the "
    "plugin itself is down or restarting instead: node-device-plugin-down.",
    source="kubernetes pkg/kubelet/cm/devicemanager (capacity = healthy + unhealthy, allocatable = healthy); "
    "NVIDIA/k8s-device-plugin internal/rm/health.go",
    check=check,
    applies_to=LIVE_NODE,
)
