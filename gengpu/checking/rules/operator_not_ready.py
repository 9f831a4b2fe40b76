import re

from gengpu.checking.rules._live import at_item
from gengpu.checking.rules.base import LIVE_CLUSTER, Rule


UPGRADE = "nvidia.com/gpu-driver-upgrade-state"
# the operator's states that a driver upgrade holds back (the driver, and the NVIDIADriver's own state)
DRIVER_STATES = re.compile(r"^\[?\s*(state-driver|nvidia-driver|driver)[\w-]*\s*\]?$")


def _upgrading(cluster) -> list[str]:
    """Nodes the driver upgrade controller is working on (any state but upgrade-done)."""
    return sorted(n.name for n in cluster.snapshot.nodes if n.labels.get(UPGRADE, "upgrade-done") != "upgrade-done")


def _driver_only(why: str) -> bool:
    """Whether the operator names only driver states as not ready ('states not ready: [state-driver]')."""
    named = re.search(r"not ready: \[([^\]]*)\]", why)
    return bool(named) and all(DRIVER_STATES.match(s.strip()) for s in named.group(1).split(",") if s.strip())


def check(cluster, ctx=None):
    upgrading = _upgrading(cluster)
    for item in [*cluster.snapshot.clusterpolicies, *cluster.snapshot.nvidiadrivers]:
        kind = item.text("kind")
        if kind == "NVIDIADriver" and item.text("status", "state") == "disabled":
            continue  # reconciled by the ClusterPolicy instead: nvidiadriver-not-enabled judges the files
        state = item.text("status", "state")
        if state is not None and state != "ready":  # (no state in the snapshot: snapshot-object-partial)
            conditions = item.sequence("status", "conditions")
            # the operator writes Ready=False (OperandNotReady) or Error=True (ReconcileFailed) with the cause
            why = "; ".join(f"{c.get('reason')}: {c.get('message')}" for c in conditions
                            if isinstance(c, dict) and c.get("message") and (
                                c.get("status") == "False" or (c.get("type") == "Error" and c.get("status") == "True")))
            if upgrading and (kind == "NVIDIADriver" or _driver_only(why) or not why):
                # the upgrade controller keeps them notReady while nodes upgrade (NVIDIA/gpu-operator #2510, #2665):
                # node-driver-upgrading and node-driver-upgrade-failed speak for the nodes
                continue
            yield at_item(item, f"{kind} {item.name} is {state}, not ready"
                          + (f" ({why})" if why else ""), "status")


RULE = Rule(
    id="operator-not-ready",
    severity="error",
    summary="The GPU Operator's ClusterPolicy or an NVIDIADriver is not ready.",
    fix="kubectl get pods -n <operator namespace>: the operand that is not Running (driver, toolkit, device plugin, "
    "validator) says why in its log; kubectl describe clusterpolicy shows the conditions.",
    explanation="The operator reports ready only when every operand it manages runs on every GPU node. notReady "
    "usually means a driver that does not build or load on the node image, a toolkit that cannot configure the "
    "runtime, or a validator that cannot run a CUDA workload: GPU pods wait until it is fixed.",
    source="NVIDIA/gpu-operator api/nvidia/v1 ClusterPolicy status.state, api/nvidia/v1alpha1 NVIDIADriver status",
    check=check,
    applies_to=LIVE_CLUSTER,
)
