from gengpu.checking.rules._live import at_item
from gengpu.checking.rules._stack import GPU_WORDS, event_cause, event_count, event_text, pods
from gengpu.checking.rules.base import LIVE_CLUSTER, Rule
from gengpu.live import stack
from gengpu.live.snapshot import Item

# objects of the GPU stack itself: any Warning about one counts
STACK_KINDS = {"ClusterPolicy", "NVIDIADriver", "GPUCluster", "ComputeDomain"}


def _about(event) -> tuple[str, str, str]:
    about = event.mapping("involvedObject") or event.mapping("regarding")
    return (str(about.get("kind") or ""), str(about.get("namespace") or event.text("metadata", "namespace") or ""),
            str(about.get("name") or ""))


def _judged(cluster, event, stack_pods: set) -> bool:
    """Whether a Warning event is about the GPU stack and not said elsewhere."""
    kind, ns, name = _about(event)
    if kind == "Pod" and ((ns, name) in stack_pods or (not ns and any(n == name for _, n in stack_pods))):
        return False  # said with the pod's own state (gpu-stack-pod-failing, -waiting), or a pod that runs now
    reason, text = event.text("reason") or "", event_text(event)
    if kind in STACK_KINDS or (kind in ("Pod", "DaemonSet") and stack.component(Item({"metadata": {"name": name}}))):
        return True
    if reason == "FailedScheduling":
        return False  # the scheduler's view: pod-gpu-unschedulable and claim-device-class-missing weigh it
    # an event pasted without the object it is about was pasted for a reason; any other must say it is about GPUs
    return not name or bool(GPU_WORDS.search(f"{text} {name}")) or bool(event_cause(text))


def check(cluster, ctx=None):
    stack_pods = {(p.namespace, p.item.name) for p in pods(cluster)}
    groups: dict[tuple, list] = {}
    for event in cluster.snapshot.events:
        if event.text("type") == "Warning" and _judged(cluster, event, stack_pods):
            kind, ns, name = _about(event)
            # one finding per object; events of no named object one per reason and message
            key = (kind, ns, name) if name else ("", ns, "", event.text("reason") or "", event_text(event))
            groups.setdefault(key, []).append(event)
    for key, events in groups.items():
        kind, ns, name = key[:3]
        reasons: dict[str, list] = {}
        for event in events:
            reasons.setdefault(event.text("reason") or "(no reason)", []).append(event)
        said = []
        for reason, same in reasons.items():
            count = sum(event_count(e) for e in same)
            texts = list(dict.fromkeys(event_text(e) for e in same if event_text(e)))
            said.append(f"{reason}{f' (x{count})' if count > 1 else ''}"
                        + (f": {texts[-1][:400]}" if texts else ""))
        causes = [c for c in dict.fromkeys(event_cause(event_text(e)) for e in events) if c]
        what = f"{kind.lower() or 'object'} {ns + '/' if ns else ''}{name}" if name else \
            "an object the snapshot does not name"
        subject = "/".join(p for p in (kind, ns, name) if p) if name else f"Event/{key[3] or 'Warning'}"
        node = name if kind == "Node" else ""
        yield at_item(events[0], f"Warning events about {what}: {'; '.join(said)}"
                      + (f" ({causes[0]})" if causes else ""), node=node, subject=subject)


RULE = Rule(
    id="gpu-stack-events",
    severity="warning",
    summary="Warning events about the GPU stack: its DaemonSets and objects, pods on GPU nodes that cannot start "
    "(a sandbox the nvidia runtime cannot create, a mount of the driver's directory that fails), any event that names "
    "NVIDIA, the GPU, NVML, CDI or MIG.",
    fix="Read the event's message: it names the cause (a runtime handler or CNI plugin the toolkit's config lost, a "
    "host path the driver installer has not created, an image tag that does not exist); kubectl get events -A "
    "--field-selector type=Warning shows them with the object they are about.",
    explanation="Events carry what no object's status keeps: why a sandbox was not created, a volume not mounted, an "
    "image not pulled. Teams paste them first when GPUs vanish. gengpu states the cause where the message's words "
    "name one it knows (kinds.yaml stackEvents). Events about a pod of the stack are said with that pod "
    "(gpu-stack-pod-failing, gpu-stack-pod-waiting); the scheduler's FailedScheduling is left to pod-gpu-unschedulable "
    "and claim-device-class-missing, which weigh it against what the cluster offers.",
    source="Kubernetes Events (core/v1 Event, events.k8s.io/v1); NVIDIA GPU Operator troubleshooting",
    check=check,
    applies_to=LIVE_CLUSTER,
)
