from gengpu.checking.rules._live import at_item
from gengpu.checking.rules._stack import events_said, pods
from gengpu.checking.rules.base import LIVE_CLUSTER, Rule


def check(cluster, ctx=None):
    every = pods(cluster)
    for pod in every:
        if pod.verdict != "waiting":
            continue
        # what it waits behind: a failing pod of the stack on its node (any, where the snapshot names no node)
        behind = [p for p in every if p.verdict == "failing" and (not p.node or not pod.node or p.node == pod.node)]
        why = f"; {behind[0].shown} ({behind[0].component.name}) is failing" + (
            f", and {len(behind) - 1} more" if len(behind) > 1 else "") if behind else ""
        ready = f", {pod.state.ready} ready" if pod.state.ready else " (as its events say)" if pod.by_events else ""
        yield at_item(pod.item, f"{pod.where()} is {pod.state.shown}{ready}: {pod.component.waiting}{why}"
                      f"{events_said(pod)}", node=pod.node, pool=pod.pool)


RULE = Rule(
    id="gpu-stack-pod-waiting",
    severity="warning",
    summary="A pod of NVIDIA's GPU stack has not started: Pending, ContainerCreating, stuck in its init containers "
    "(Init:0/1) or running but not ready.",
    fix="Find what it waits for: kubectl describe pod names the init container that has not finished (the "
    "operator's pods wait for the driver and toolkit validations) and the events that hold it; a failing driver or "
    "toolkit pod on the same node is the usual cause, and fixing that one starts the rest.",
    explanation="The GPU Operator's operands start in order behind init containers that wait for the driver and the "
    "container toolkit to be validated, so a node whose driver never loads shows every other operand at Init:0/1, and "
    "GKE's device plugin waits behind its driver installer. Shortly after a node joins this is normal; if it stays, "
    "the node offers no GPU. The finding names the failing pod it waits behind where the snapshot shows one.",
    source="NVIDIA GPU Operator troubleshooting (docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/"
    "troubleshooting.html, 'pods stuck in Init'); GoogleCloudPlatform/container-engine-accelerators",
    check=check,
    applies_to=LIVE_CLUSTER,
)
