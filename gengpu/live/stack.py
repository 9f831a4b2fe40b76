"""The pods of NVIDIA's GPU stack as a cluster shows them: which part of the stack a pod is, and its state as
`kubectl get pods` prints it.

A pod is a part of the stack by the name its DaemonSet or Deployment gives it (kinds.yaml `gpuStackPods`: a pasted
`kubectl get pods` shows names only), else by its first container's image (kinds.yaml `images`). Its STATUS is
computed the way kubectl's printer computes it (kubernetes/kubectl pkg/cmd/get, printPod in
kubernetes/pkg/printers/internalversion/printers.go), so a pod captured from the API server and the same pod pasted as
a table read alike.
"""

from __future__ import annotations

import functools
import re
import shlex
from dataclasses import dataclass

from gengpu.live.snapshot import Item


@dataclass(frozen=True)
class Component:
    name: str  # as the stack's docs name it: "NVIDIA driver container", "NVIDIA device plugin" ...
    logs: str  # the container whose log says why it fails ("" when it varies)
    failing: str  # what its failure usually means
    waiting: str  # what it usually waits for


@functools.cache
def _table() -> tuple:
    from gengpu import catalog

    data = catalog.data_file("kinds.yaml")
    named = tuple((re.compile(e["pattern"]), Component(e["component"], e.get("logs") or "", e["failing"],
                                                       e["waiting"])) for e in data["gpuStackPods"])
    by_component = {c.name: c for _, c in named}
    imaged = tuple((re.compile(e["pattern"]), by_component.get(e["component"]) or Component(
        e["component"], "", "it cannot start (its log says why)", "it has not started"))
        for e in data["images"])
    # one search that tells whether any name pattern matches: most pods of a large cluster are no part of the stack
    anyone = re.compile("|".join(f"(?:{pattern.pattern})" for pattern, _ in named))
    return named, imaged, anyone


def component(pod: Item) -> Component | None:
    """The part of NVIDIA's GPU stack the pod is, or None."""
    named, _, anyone = _table()
    # the pod's own name, else its controller's (a describe cut above the name still shows Controlled By)
    owners = [_name(o) for o in pod.sequence("metadata", "ownerReferences") if isinstance(o, dict)]
    for name in (pod.name, *owners):
        if not name or not anyone.search(name):
            continue
        found = next((c for pattern, c in named if pattern.search(name)), None)
        if found is not None:
            return found
    containers = pod.sequence("spec", "containers")
    image = str(containers[0].get("image", "")) if containers and isinstance(containers[0], dict) else ""
    return _by_image(image) if image else None


@functools.lru_cache(maxsize=1024)
def _by_image(image: str) -> Component | None:
    """(a large cluster's pods run a handful of images: each is matched once)"""
    return next((c for pattern, c in _table()[1] if pattern.search(image)), None)


def _state(status: dict) -> tuple[str, dict]:
    state = status.get("state") if isinstance(status.get("state"), dict) else {}
    for key in ("waiting", "terminated", "running"):
        if isinstance(state.get(key), dict):
            return key, state[key]
    return "", {}


def _statuses(pod: Item, key: str) -> list[dict]:
    return [s for s in pod.sequence("status", key) if isinstance(s, dict)]


def _int(value) -> int:
    return int(value) if isinstance(value, int) or (isinstance(value, str) and value.isdecimal()) else 0


@dataclass(frozen=True)
class PodState:
    shown: str  # kubectl's STATUS column
    ready: str  # kubectl's READY column, "" when unknown
    restarts: int
    container: str  # the container the status is about ("" when the snapshot does not say)
    init: bool  # that container is an init container
    message: str  # what the state's message or its last termination says, when the snapshot has it


def state(pod: Item) -> PodState:
    """The pod's STATUS as kubectl prints it (printPod, k8s.io/kubernetes pkg/printers/internalversion), and the
    container it is about."""
    reason = pod.text("status", "reason") or pod.text("status", "phase") or "Unknown"
    conditions = [c for c in pod.sequence("status", "conditions") if isinstance(c, dict)]
    if any(c.get("type") == "PodScheduled" and c.get("reason") == "SchedulingGated" for c in conditions):
        reason = "SchedulingGated"  # (a pod held by its scheduling gates: Kueue's, for one)
    container, init_reason, message = "", False, ""
    restarts = sidecar_restarts = ready = 0
    inits = _statuses(pod, "initContainerStatuses")
    specs = [c for c in pod.sequence("spec", "initContainers") if isinstance(c, dict)]
    total_inits = len(specs) or len(inits)
    # sidecars: init containers that run beside the others (restartPolicy Always), counted in READY; a running init
    # container of another kind is "started" too (the kubelet's prober), so only the spec tells them apart
    sidecars = {_name(c) for c in specs if c.get("restartPolicy") == "Always"}
    initializing = False
    for i, status in enumerate(inits):
        restarts += _int(status.get("restartCount"))
        kind, detail = _state(status)
        sidecar = _name(status) in sidecars
        sidecar_restarts += _int(status.get("restartCount")) if sidecar else 0
        if kind == "terminated" and _int(detail.get("exitCode")) == 0 and "exitCode" in detail:
            continue
        if sidecar and status.get("started") is True:
            ready += 1 if status.get("ready") is True else 0
            continue
        container, init_reason = _name(status), True
        if kind == "terminated":
            reason = "Init:" + (str(detail.get("reason")) if detail.get("reason") else
                                f"Signal:{detail['signal']}" if _int(detail.get("signal")) else
                                f"ExitCode:{_int(detail.get('exitCode'))}")
            message = str(detail.get("message") or "")
        elif kind == "waiting" and detail.get("reason") and detail.get("reason") != "PodInitializing":
            reason = "Init:" + str(detail["reason"])
            message = str(detail.get("message") or "")
        else:
            reason = f"Init:{i}/{total_inits}"
        initializing = True
        break
    if not initializing or any(c.get("type") == "Initialized" and c.get("status") == "True" for c in conditions):
        restarts, running = sidecar_restarts, False
        for status in reversed(_statuses(pod, "containerStatuses")):
            restarts += _int(status.get("restartCount"))
            kind, detail = _state(status)
            if kind == "waiting" and detail.get("reason") or kind == "terminated":
                reason = str(detail["reason"]) if detail.get("reason") else \
                    f"Signal:{detail['signal']}" if _int(detail.get("signal")) else \
                    f"ExitCode:{_int(detail.get('exitCode'))}"
                container, init_reason = _name(status), False
                message = str(detail.get("message") or "")
            elif status.get("ready") is True and kind == "running":
                running = True
                ready += 1
        if reason == "Completed" and running:
            reason = "Running" if any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions) \
                else "NotReady"
    if pod.get("metadata", "deletionTimestamp") is not None:
        reason = "Unknown" if pod.text("status", "reason") == "NodeLost" else \
            reason if pod.text("status", "phase") in ("Succeeded", "Failed") else "Terminating"
    statuses = _statuses(pod, "containerStatuses")
    total = (len(pod.sequence("spec", "containers")) or len(statuses)) + len(sidecars)
    shown_ready = f"{ready}/{total}" if total else ""
    if not message or reason.removeprefix("Init:") == "CrashLoopBackOff":
        # why the container last ended: CrashLoopBackOff's own message says only "back-off ... restarting"
        for status in _statuses(pod, "initContainerStatuses" if init_reason else "containerStatuses"):
            if _name(status) == container:
                last = (status.get("lastState") or {}).get("terminated") if isinstance(
                    status.get("lastState"), dict) else None
                if isinstance(last, dict) and last.get("message"):
                    message = str(last["message"])
    return PodState(reason, shown_ready, restarts, container, init_reason, message.strip())


def _name(of: dict) -> str:
    """A container's (or owner's) name: the API requires one, so the default only keeps a hand-written one whole."""
    return str(of.get("name", ""))


# kubectl's STATUS values that mean a container fails to run (waiting reasons of the kubelet, terminated reasons of
# the runtime), with or without "Init:"
_PULL = {"ImagePullBackOff", "ErrImagePull", "InvalidImageName", "ErrImageNeverPull", "RegistryUnavailable",
         "SignatureValidationFailed"}
_CONFIG = {"CreateContainerConfigError"}
# (ImageInspectError: the runtime could not read back an image it holds; PreCreateHookError: the kubelet's own
# resource managers refused the container before the runtime made it)
_RUNTIME = {"CreateContainerError", "RunContainerError", "ContainerCannotRun", "StartError", "PreStartHookError",
            "PostStartHookError", "PreCreateHookError", "ImageInspectError"}
_CRASH = {"CrashLoopBackOff", "Error", "OOMKilled", "DeadlineExceeded"}
_WAITING = {"Pending", "ContainerCreating", "PodInitializing", "NotReady"}


def verdict(pod: Item) -> str:
    """failing, waiting, or "" (running, completed, or a state that says nothing about the stack)."""
    shown = state(pod)
    reason = shown.shown.removeprefix("Init:")
    if reason in _PULL | _CONFIG | _RUNTIME | _CRASH or re.match(r"^(ExitCode:[1-9]|Signal:)", reason):
        return "failing"
    if shown.shown in _WAITING:
        return "waiting"
    if re.match(r"^Init:\d+/\d+$", shown.shown) or \
            shown.shown == "Running" and shown.ready and shown.ready.split("/")[0] != shown.ready.split("/")[1]:
        # an init container running, or a pod running but not ready: after restarts, a container that keeps failing
        # (between back-offs kubectl shows Init:N/M or Running; RESTARTS counts the init containers' while the pod
        # initializes); without, the driver still building its module, a validation not done
        return "failing" if shown.restarts else "waiting"
    return ""


def cause(pod: Item, comp: Component, shown: PodState) -> str:
    """What the pod's state means, most specific first: a pull, a missing ConfigMap or Secret, the runtime, else
    what the component's failure usually is."""
    reason = shown.shown.removeprefix("Init:")
    if reason in _PULL:
        return ("its image cannot be pulled (kubectl describe pod names the image and the registry's answer): a "
                "version with no image for this node's OS (the driver's images are tagged per version and OS), a "
                "private registry without its pull secret, or no route to the registry")
    if reason in _CONFIG:
        return "a ConfigMap or Secret it reads is missing (kubectl describe pod names it)"
    if reason in _RUNTIME:
        return ("the container runtime could not start it (kubectl describe pod says why; for NVIDIA's containers "
                "most often the nvidia runtime or its hook missing on the node)")
    if reason == "OOMKilled":
        return "it was killed for exceeding its memory limit: raise the component's resources.limits.memory"
    return comp.failing


def logs_command(pod: Item, comp: Component, shown: PodState) -> str:
    """The kubectl command whose output says why, every value quoted for the shell."""
    ns = pod.text("metadata", "namespace")
    parts = ["kubectl", "logs", *(["-n", ns] if ns else []), pod.name]
    container = shown.container or comp.logs
    if shown.init and not shown.container:
        # an init container a table does not name (Init:2/5): every container's log, each line with its name
        parts += ["--all-containers", "--prefix"]
    else:
        parts += ["-c", container] if container else []
        if shown.restarts or shown.shown.removeprefix("Init:") == "CrashLoopBackOff":
            parts.append("--previous")  # the log of the run that failed, not of the one waiting to start
    return " ".join(shlex.quote(p) for p in parts)


# what a Warning event about something other than the stack must mention to be about the GPU stack
GPU_WORDS = re.compile(r"nvidia|\bgpu|nvml|\bcuda|\bcdi\b|\bmig\b|libnvidia|device plugin", re.IGNORECASE)


@functools.cache
def _causes() -> tuple:
    from gengpu import catalog

    return tuple((re.compile(e["pattern"]), e["cause"]) for e in catalog.data_file("kinds.yaml")["stackEvents"])


def event_cause(text: str) -> str:
    """What an event's message means for the GPU stack (kinds.yaml stackEvents), or ""."""
    return next((cause for pattern, cause in _causes() if pattern.search(text)), "")
