from gengpu.live.pools import GPU_PREFIXES
from gengpu.checking.rules._live import at_item
from gengpu.checking.rules.base import LIVE_CLUSTER, Rule


def _asks(pod) -> dict[str, int]:
    out: dict[str, int] = {}
    for group in ("containers", "initContainers"):
        for c in pod.sequence("spec", group):
            resources = c.get("resources") if isinstance(c, dict) else None
            limits = resources.get("limits") if isinstance(resources, dict) else None
            for k, v in (limits.items() if isinstance(limits, dict) else ()):
                if str(k).startswith(GPU_PREFIXES) and str(v).isdecimal():
                    out[str(k)] = max(out.get(str(k), 0), int(v))
    return out


def check(cluster, ctx=None):
    offered: dict[str, int] = {}
    for node in cluster.snapshot.nodes:
        for k, v in node.mapping("status", "allocatable").items():
            if str(v).isdecimal():
                offered[str(k)] = max(offered.get(str(k), 0), int(v))
    for pod in cluster.snapshot.pods:
        if pod.text("status", "phase") != "Pending":
            continue
        for resource, count in sorted(_asks(pod).items()):
            if offered.get(resource, 0) < count:
                most = offered.get(resource, 0)
                ns = pod.text("metadata", "namespace") or "default"
                yield at_item(pod, f"pod {ns}/{pod.name} is pending for {count} {resource}, and no node offers "
                              + (f"more than {most}" if most else "it"), "spec")


RULE = Rule(
    id="pod-gpu-unschedulable",
    severity="error",
    summary="A pending pod asks for a GPU resource no node offers (or not that many on one node).",
    fix="Ask for a resource a pool advertises (gengpu validate --profile checks workloads against the profile), or "
    "give a pool the resource: a sharing or MIG layout that makes it, or nodes with enough GPUs.",
    explanation="A pod asking for nvidia.com/mig-1g.10gb on a cluster whose nodes only advertise nvidia.com/gpu "
    "(or for 8 GPUs where the biggest node has 4) stays Pending with 'Insufficient' events, and an autoscaler "
    "cannot help unless one of its node shapes would offer the resource.",
    source="Kubernetes scheduler (NodeResourcesFit: Insufficient <resource>)",
    check=check,
    applies_to=LIVE_CLUSTER,
)
