from gengpu.checking.rules._devices import reconfiguring
from gengpu.checking.rules._live import at_pool
from gengpu.checking.rules.base import LIVE_NODE, Rule


def check(node, cluster):
    busy = reconfiguring(node) if node.pool is not None else None
    if busy:
        yield at_pool(node, f"{busy}: the MIG manager is re-partitioning its GPUs and has stopped the GPU clients; "
                      "the node offers its devices again when nvidia.com/mig.config.state is success", "sharing")


RULE = Rule(
    id="node-gpu-reconfiguring",
    severity="warning",
    summary="A node is in the middle of a MIG re-partition: its device plugin is paused and its GPUs are not "
    "offered until the MIG manager reports success.",
    fix="Wait a few minutes (a cloud GPU may reboot the node). If the state stays pending, the MIG manager is "
    "wedged: read the nvidia-mig-manager pod's log on the node (a GPU client that does not stop, a layout the GPU "
    "cannot hold), fix the cause, then set nvidia.com/mig.config again.",
    explanation="To change a GPU's MIG layout the MIG manager sets nvidia.com/mig.config.state=pending, labels the "
    "GPU clients' deploy labels paused-for-mig-change (the device plugin, GPU Feature Discovery, dcgm-exporter stop) "
    "and reboots the node when the cloud GPU needs it (rebooting). Meanwhile the kubelet shows allocatable 0 for "
    "the GPU resources: that is no failure yet. A state that never leaves pending is the MIG manager waiting on "
    "something that will not happen.",
    source="NVIDIA/mig-parted deployments/gpu-operator/reconfigure-mig.sh (pending, rebooting, success, failed; "
    "paused-for-mig-change)",
    check=check,
    applies_to=LIVE_NODE,
)
