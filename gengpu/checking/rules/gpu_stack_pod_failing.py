from gengpu.checking.rules._live import at_item
from gengpu.checking.rules._stack import events_said, pods
from gengpu.checking.rules.base import LIVE_CLUSTER, Rule
from gengpu.live import stack


def check(cluster, ctx=None):
    for pod in pods(cluster):
        if pod.verdict != "failing":
            continue
        state = pod.state
        restarts = f", {state.restarts} restart(s)" if state.restarts else ""
        shown = state.shown if state.shown != "Running" else f"Running, {state.ready} ready"
        if pod.by_events:
            shown += " (as its events say)"
        which = f" (container {state.container}{', an init container' if state.init else ''})" \
            if state.container else ""
        said = f"; its last message: {state.message[:300]}" if state.message else ""
        logs = "" if state.shown.removeprefix("Init:") in ("ImagePullBackOff", "ErrImagePull", "InvalidImageName",
                                                           "CreateContainerConfigError") \
            else f"; `{stack.logs_command(pod.item, pod.component, state)}` shows its log"
        yield at_item(pod.item, f"{pod.where()} is {shown}{restarts}{which}: "
                      f"{stack.cause(pod.item, pod.component, state)}{said}{events_said(pod)}{logs}",
                      node=pod.node, pool=pod.pool)


RULE = Rule(
    id="gpu-stack-pod-failing",
    severity="error",
    summary="A pod of NVIDIA's GPU stack (driver, toolkit, device plugin, feature discovery, validator, DCGM, MIG "
    "manager, the operator, the DRA driver, GKE's device plugin or driver installer) fails to run.",
    fix="Read the log the finding names (kubectl logs ... --previous for a container that restarts) and kubectl "
    "describe pod for its events; fix what they say (the node's OS or kernel for a driver, the runtime's config for the "
    "toolkit, a pull secret or image tag), then delete the pod so its DaemonSet starts it again.",
    explanation="Each part of the stack waits for the one before it: the toolkit and every validator wait for the "
    "driver, the device plugin waits for the toolkit, and the node offers no GPU until the device plugin registers. "
    "One pod in CrashLoopBackOff, Error, ImagePullBackOff or an Init failure holds up the whole node, while the "
    "Node object still looks healthy. The state is what `kubectl get pods` prints as STATUS, computed the same way "
    "from a captured pod; a pod that restarts and is not ready is failing too.",
    source="NVIDIA GPU Operator troubleshooting (docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/"
    "troubleshooting.html); kubectl's STATUS column (kubernetes/kubernetes pkg/printers/internalversion printPod)",
    check=check,
    applies_to=LIVE_CLUSTER,
)
