import re

from gengpu.checking.rules._live import at_pool
from gengpu.checking.rules.base import LIVE_NODE, Rule

# Node conditions that problem detectors set for GPUs (AKS node-problem-detector, GKE's XidCriticalError ...)
GPU_CONDITION = re.compile(r"gpu|xid|nvidia|nvlink|ecc|fabric", re.I)


def check(node, cluster):
    if node.pool is None:
        return
    for c in node.item.sequence("status", "conditions"):
        if isinstance(c, dict) and GPU_CONDITION.search(str(c.get("type", ""))) and str(c.get("status")) == "True":
            why = f" ({c.get('reason')}" + (f": {c.get('message')}" if c.get("message") else "") + ")" \
                if c.get("reason") else ""
            yield at_pool(node, f"condition {c.get('type')} is True{why}")


RULE = Rule(
    id="node-gpu-condition",
    severity="error",
    summary="A node problem detector reports a GPU fault on a node (a condition such as XidCriticalError or a GPU "
    "health condition set to True).",
    fix="Drain the node and repair or replace it; the condition's reason and message name the fault (an Xid code: "
    "NVIDIA's Xid table says whether a reset or a new GPU is needed).",
    explanation="AKS's node-problem-detector and GKE's GPU health monitoring set node conditions for GPU faults "
    "(Xid errors, ECC, NVLink, a GPU missing). The device plugin may still advertise the GPU, so pods keep landing "
    "on a GPU that fails them.",
    source="kubernetes/node-problem-detector (custom conditions); AKS GPU health monitoring; GKE XidCriticalError",
    check=check,
    applies_to=LIVE_NODE,
)
