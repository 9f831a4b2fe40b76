from gengpu.checking.rules._live import at_pool
from gengpu.checking.rules.base import LIVE_NODE, Rule

LABEL = "nvidia.com/gpu-driver-upgrade-state"


def check(node, cluster):
    if node.pool is not None and node.labels.get(LABEL) == "upgrade-failed":
        yield at_pool(node, f"{LABEL} is upgrade-failed: the GPU Operator's driver upgrade gave up on the node, which "
                      "stays cordoned or on the old driver")


RULE = Rule(
    id="node-driver-upgrade-failed",
    severity="error",
    summary="The GPU Operator's driver upgrade failed on a node (nvidia.com/gpu-driver-upgrade-state=upgrade-failed).",
    fix="Read the driver pod's log on the node (kubectl -n <operator namespace> logs <nvidia-driver-daemonset pod>): "
    "a driver that does not build for the kernel, a drain that timed out. Fix it, then set the label to "
    "upgrade-required to try again.",
    explanation="The operator's upgrade controller walks each node through upgrade-required, cordon-required, "
    "wait-for-jobs-required, pod-deletion-required, drain-required, pod-restart-required, validation-required and "
    "uncordon-required to upgrade-done, keeping the state in this node label. upgrade-failed is terminal: nothing "
    "retries until someone resets the label, and the node is lost to GPU work meanwhile.",
    source="NVIDIA/k8s-operator-libs pkg/upgrade (upgrade states); GPU Operator docs gpu-driver-upgrades",
    check=check,
    applies_to=LIVE_NODE,
)
