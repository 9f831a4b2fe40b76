from gengpu.checking.rules._live import at_item, at_pool
from gengpu.checking.rules.base import LIVE_NODE, Rule

MODE, STATE, READY = "nvidia.com/cc.mode", "nvidia.com/cc.mode.state", "nvidia.com/cc.ready.state"


def check(node, cluster):
    labels = node.labels
    wanted = node.pool.confidential_computing if node.pool is not None else None
    asked = labels.get(MODE)
    state = labels.get(STATE)
    problems = []
    if wanted and asked is not None and asked != wanted:
        problems.append(f"its {MODE} label is {asked}, the pool's confidentialComputing is {wanted}")
    desired = wanted or asked
    if desired and state is not None and state != desired:
        ready = f", {READY}={labels[READY]}" if READY in labels else ""
        problems.append(f"{MODE}={asked or wanted} is not applied: {STATE}={state}{ready} (the CC manager could not "
                        "switch the GPUs: a pod or VM holding a GPU blocks the change, its log says why)")
    if not problems:
        return
    message = "; ".join(problems)
    if node.pool is not None:
        yield at_pool(node, message, "confidentialComputing")
    else:
        yield at_item(node.item, f"node {node.name}: {message}", "metadata", "labels", STATE, node=node.name)


RULE = Rule(
    id="node-cc-mode-not-applied",
    severity="error",
    summary="A node's GPUs are not in the Confidential Computing mode asked for: nvidia.com/cc.mode.state differs "
    "from nvidia.com/cc.mode (or the label from the pool's confidentialComputing).",
    fix="Stop the pods or VMs that hold the node's GPUs, then let the CC manager retry (kubectl logs of the "
    "nvidia-cc-manager pod on the node says what blocked it); check that the GPUs and the host's firmware support "
    "the mode.",
    explanation="The operator's CC manager switches each GPU's Confidential Computing mode to the node's "
    "nvidia.com/cc.mode and reports the result in nvidia.com/cc.mode.state (and cc.ready.state). Until they agree, "
    "confidential workloads cannot get the GPUs, or run on GPUs that are not in confidential mode.",
    source="NVIDIA Confidential Containers docs (GPU Operator CC manager: cc.mode, cc.mode.state, cc.ready.state; "
    "troubleshooting)",
    check=check,
    applies_to=LIVE_NODE,
)
