from gengpu.checking.rules._devices import hits
from gengpu.checking.rules.base import LIVE_NODE, Rule

ID = "node-gpus-over-advertised"


def check(node, cluster):
    return hits(ID, node, cluster, "sharing")


RULE = Rule(
    id=ID,
    severity="warning",
    summary="A node advertises more GPU devices than its pool promises: more time-slicing replicas, sharing the "
    "pool does not promise, or a finer MIG layout.",
    fix="Find the config the node runs (its nvidia.com/device-plugin.config or nvidia.com/mig.config label, else the "
    "ClusterPolicy's devicePlugin.config.default) and make it the pool's, or change the profile to what the node "
    "should run.",
    explanation="Every extra device is a slice with less memory or compute than the workloads were sized for: pods "
    "that fit the promise run out of GPU memory or time on the node. It is the mark of a config applied to the "
    "wrong nodes (a cluster-wide default meant for another pool) or of a layout changed by hand.",
    source="NVIDIA/k8s-device-plugin (replicas per resource); NVIDIA/mig-parted (layouts)",
    check=check,
    applies_to=LIVE_NODE,
)
