from gengpu.checking.rules._devices import hits
from gengpu.checking.rules.base import LIVE_NODE, Rule

ID = "node-device-plugin-down"


def check(node, cluster):
    return hits(ID, node, cluster)


RULE = Rule(
    id=ID,
    severity="error",
    summary="Every device of a GPU resource on a node is unavailable at once: allocatable 0, capacity N. The device "
    "plugin is down or restarting.",
    fix="Look at the node's device-plugin pod (kubectl -n <operator namespace> get pods -o wide --field-selector "
    "spec.nodeName=<node>, then its log): a crash, a config it cannot load, or a restart loop. If it runs and "
    "reports every GPU unhealthy, check the driver with nvidia-smi on the node. On an AKS managed GPU node the "
    "plugin is the node's nvidia-device-plugin systemd service (its UnhealthyNvidiaDevicePlugin condition says "
    "whether it runs): kubectl debug node/<node>, then systemctl status nvidia-device-plugin.",
    explanation="When a device plugin's registration ends (the plugin restarts, crashes or is deleted), the kubelet "
    "marks every device of its resource unhealthy: capacity stays, allocatable drops to 0 until the plugin "
    "registers again. Losing all devices of a resource at the same moment is this, far more often than every GPU "
    "failing together; it is transient while the plugin restarts (a config change, an upgrade) and lasting when "
    "the plugin cannot start. While the MIG manager re-partitions a node it stops the plugin on purpose: "
    "node-gpu-reconfiguring says so instead.",
    source="kubernetes pkg/kubelet/cm/devicemanager/manager.go (markResourceUnhealthy on endpoint stop); "
    "NVIDIA/k8s-device-plugin #58 and #452 (maintainers on allocatable)",
    check=check,
    applies_to=LIVE_NODE,
)
