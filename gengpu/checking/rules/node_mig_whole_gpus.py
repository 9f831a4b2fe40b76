from gengpu.checking.rules._devices import hits
from gengpu.checking.rules.base import LIVE_NODE, Rule

ID = "node-mig-whole-gpus"


def check(node, cluster):
    return hits(ID, node, cluster, "sharing", "mig")


RULE = Rule(
    id=ID,
    severity="error",
    summary="A MIG pool's node advertises whole GPUs beside its MIG devices: some GPUs were left out of the layout.",
    fix="Read the nvidia-mig-manager log on the node: a GPU it could not partition (a process holding it, MIG mode "
    "needing a reset) stays whole. Make the layout cover every GPU (a device-filter or per-GPU config that misses "
    "some leaves them whole), then relabel the node.",
    explanation="Under the mixed strategy the device plugin advertises each MIG device under its profile's resource "
    "and every GPU without MIG as nvidia.com/gpu. A pool whose layout partitions every GPU should show no "
    "nvidia.com/gpu; whole GPUs beside MIG devices mean the layout did not reach them, and pods asking for a whole "
    "GPU land on a node meant for slices.",
    source="NVIDIA/k8s-device-plugin internal/rm (mixed strategy resources); NVIDIA/gpu-operator #637",
    check=check,
    applies_to=LIVE_NODE,
)
