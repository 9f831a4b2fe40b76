from gengpu.checking.rules._live import at_pool
from gengpu.checking.rules.base import LIVE_NODE, Rule

LABEL = "nvidia.com/gpu-driver-upgrade-state"
DONE = {"upgrade-done", "upgrade-failed", ""}  # (failed: node-driver-upgrade-failed)


PAUSED = "paused-for-driver-upgrade"


def check(node, cluster):
    if node.pool is None:
        return
    state = node.labels.get(LABEL)
    paused = sorted(k for k, v in node.labels.items() if k.startswith("nvidia.com/gpu.deploy.") and v == PAUSED)
    if state is not None and state not in DONE:
        yield at_pool(node, f"{LABEL} is {state}: the GPU Operator is upgrading its driver; if the state does not "
                      "move on, the upgrade is stuck there")
    elif paused and state != "upgrade-failed":
        yield at_pool(node, f"{len(paused)} GPU operand(s) paused for a driver upgrade ({paused[0]}={PAUSED}"
                      + (", ..." if len(paused) > 1 else "") + "): the node runs no device plugin until the new "
                      "driver is up; if it stays so, the upgrade is stuck")


RULE = Rule(
    id="node-driver-upgrading",
    severity="warning",
    summary="A node is in the middle of a GPU Operator driver upgrade (a state before upgrade-done): stuck if it "
    "stays there.",
    fix="Wait for upgrade-done. A node that stays in one state is stuck: wait-for-jobs-required and "
    "pod-deletion-required wait for GPU pods (driver.upgradePolicy's waitForCompletion and gpuPodDeletion), "
    "drain-required for a drain that PodDisruptionBudgets block, upgrade-required for maxParallelUpgrades or "
    "maxUnavailable; the operator's log names what it waits for.",
    explanation="The upgrade controller moves each node through the states of nvidia.com/gpu-driver-upgrade-state "
    "one at a time, within maxParallelUpgrades and maxUnavailable. A node between upgrade-required and "
    "uncordon-required is cordoned or about to be: it takes no new GPU pods until the upgrade is done. While the "
    "driver pod restarts, the operator sets the GPU operands' deploy labels (nvidia.com/gpu.deploy.*) to "
    "paused-for-driver-upgrade, so a paste of the labels alone shows the upgrade too.",
    source="NVIDIA/k8s-operator-libs pkg/upgrade (upgrade states); GPU Operator docs gpu-driver-upgrades",
    check=check,
    applies_to=LIVE_NODE,
)
