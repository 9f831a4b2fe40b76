"""What the GPU stack's own workloads show, judged once per cluster for the gpu-stack-* rules: its pods with their
component and state (gengpu/live/stack.py), the Warning events about each, and the node and pool each runs on."""

from __future__ import annotations

import re
from dataclasses import dataclass

from gengpu.live import stack
from gengpu.live.stack import GPU_WORDS, event_cause  # noqa: F401  (the rules' one import)
from gengpu.live.snapshot import Item

@dataclass
class StackPod:
    item: object
    component: stack.Component
    state: stack.PodState
    verdict: str  # failing, waiting or ""
    node: str
    pool: str
    events: list  # Warning events about it
    by_events: bool = False  # the snapshot has no Pod: its state is what its events say

    @property
    def namespace(self) -> str:
        return self.item.text("metadata", "namespace") or ""

    @property
    def shown(self) -> str:
        return f"pod {self.namespace + '/' if self.namespace else ''}{self.item.name}"

    def where(self) -> str:
        on = f", node {self.node}" + (f" (pool {self.pool})" if self.pool else "") if self.node else ""
        return f"{self.shown} ({self.component.name}{on})"


def _involved(event) -> tuple[str, str, str]:
    """(kind, namespace, name) of what a core/v1 or events.k8s.io/v1 Event is about."""
    about = event.mapping("involvedObject") or event.mapping("regarding")
    return (str(about.get("kind") or ""), str(about.get("namespace") or event.text("metadata", "namespace") or ""),
            str(about.get("name") or ""))


def event_count(event) -> int:
    for path in (("count",), ("series", "count"), ("deprecatedCount",)):
        value = event.get(*path)
        if isinstance(value, int) and value > 0:
            return value
    return 1


def event_text(event) -> str:
    return str(event.get("message") or event.get("note") or "").strip()


_BACKOFF = re.compile(r"Back-off restarting failed container (\S+)")
_PULL = re.compile(r"Failed to pull image|ErrImagePull|ImagePullBackOff|pull access denied")
_CREATE = re.compile(r"container create failed|Error: failed to create|CreateContainerError|RunContainerError")


def _from_events(events: list) -> stack.PodState | None:
    """The state of a pod the snapshot shows only through its Warning events: what the kubelet's events say of its
    containers (None where they say nothing of them)."""
    texts = [(e.text("reason") or "", event_text(e)) for e in events]
    for reason, text in texts:
        backoff = _BACKOFF.search(text)
        if reason == "BackOff" and backoff:
            return stack.PodState("CrashLoopBackOff", "", 0, backoff.group(1), False, "")
    if any(reason in ("Failed", "BackOff") and _PULL.search(text) for reason, text in texts):
        return stack.PodState("ImagePullBackOff", "", 0, "", False, "")
    if any(reason == "Failed" and _CREATE.search(text) for reason, text in texts):
        return stack.PodState("CreateContainerError", "", 0, "", False, "")
    if any(reason in ("FailedMount", "FailedCreatePodSandBox", "FailedAttachVolume") for reason, _ in texts):
        return stack.PodState("ContainerCreating", "", 0, "", False, "")
    return None


def pods(cluster) -> list[StackPod]:
    """The snapshot's pods of NVIDIA's GPU stack, in order, each with its state and its Warning events."""
    if "stack" in cluster.memo:
        return cluster.memo["stack"]
    by_name = {n.name: n for n in cluster.nodes}
    warnings: dict[tuple[str, str], list] = {}
    for event in cluster.snapshot.events:
        kind, ns, name = _involved(event)
        if event.text("type") == "Warning" and kind == "Pod" and name:
            warnings.setdefault((ns, name), []).append(event)
    out = []
    for item in cluster.snapshot.pods:
        component = stack.component(item)
        if component is None:
            continue
        node_name = item.text("spec", "nodeName") or ""
        node = by_name.get(node_name)
        ns = item.text("metadata", "namespace") or ""
        events = warnings.get((ns, item.name), []) or [e for (n, name), es in warnings.items() if name == item.name
                                                       and not n for e in es]
        out.append(StackPod(item, component, stack.state(item), stack.verdict(item), node_name,
                            node.pool.name if node is not None and node.pool is not None else "", events))
    have = {(p.namespace, p.item.name) for p in out}
    for (ns, name), events in warnings.items():
        item = Item({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, **({"namespace": ns} if ns else {})}},
                    events[0].doc, events[0].path)
        component = stack.component(item) if (ns, name) not in have else None
        state = _from_events(events) if component is not None else None
        if state is not None:
            verdict = "failing" if state.shown != "ContainerCreating" else "waiting"
            out.append(StackPod(item, component, state, verdict, "", "", events, by_events=True))
    cluster.memo["stack"] = out
    return out


def events_said(pod: StackPod, limit: int = 2) -> str:
    """The pod's Warning events, as '; its events: Reason (xN): message'."""
    if not pod.events:
        return ""
    parts = []
    for event in pod.events[:limit]:
        count = event_count(event)
        text = event_text(event)
        parts.append(f"{event.text('reason') or 'Warning'}{f' (x{count})' if count > 1 else ''}"
                     + (f": {text[:240]}" if text else ""))
    causes = [c for c in dict.fromkeys(event_cause(event_text(e)) for e in pod.events) if c]
    more = f"; and {len(pod.events) - limit} more" if len(pod.events) > limit else ""
    return "; its events: " + "; ".join(parts) + more + "".join(f" ({c})" for c in causes[:1])
