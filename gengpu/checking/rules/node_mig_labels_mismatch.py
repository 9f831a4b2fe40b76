import re

from gengpu.checking.rules._live import at_item, at_pool
from gengpu.checking.rules.base import LIVE_NODE, Rule

COUNT = re.compile(r"^nvidia\.com/mig-(\d+g\.\d+gb(?:[.+-]me|\.gfx)?)\.count$")


def _replicas(value) -> int:
    return int(value) if isinstance(value, str) and value.isdecimal() and int(value) > 1 else 1


def check(node, cluster):
    labels = {m.group(1): v for k, v in node.labels.items() for m in [COUNT.match(k)] if m}
    resources = {r.removeprefix("nvidia.com/mig-"): node.offered(r)
                 for r in node.gpu_resources() if r.startswith("nvidia.com/mig-")}
    resources = {p: n for p, n in resources.items() if n}  # a profile left at 0 is an old name the kubelet keeps
    if not labels or not resources:
        return  # GFD's per-profile labels or the node's MIG resources not in the snapshot: nothing to compare
    # GFD counts the MIG devices; time-sliced, each is offered nvidia.com/mig-<profile>.replicas times (resource.go)
    said = {p: int(v) * _replicas(node.labels.get(f"nvidia.com/mig-{p}.replicas"))
            for p, v in labels.items() if str(v).isdecimal() and int(v) > 0}
    if said == resources:
        return
    only_labels = sorted(set(said) - set(resources))
    only_resources = sorted(set(resources) - set(said))
    differ = sorted(p for p in set(said) & set(resources) if said[p] != resources[p])
    parts = [f"GFD labels nvidia.com/mig-{p}.count={labels[p]} and no nvidia.com/mig-{p} is offered" for p in only_labels]
    parts += [f"nvidia.com/mig-{p} is offered ({resources[p]}) with no nvidia.com/mig-{p}.count label"
              for p in only_resources]
    parts += [f"nvidia.com/mig-{p}.count={labels[p]}" + (f" x {said[p] // int(labels[p])} replicas" if said[p] !=
              int(labels[p]) else "") + f" where {resources[p]} are offered" for p in differ]
    message = f"GPU Feature Discovery's MIG labels disagree with the MIG devices the node offers: {'; '.join(parts)}"
    key = next(iter(sorted(k for k in node.labels if COUNT.match(k))))
    if node.pool is not None:
        yield at_pool(node, message, "sharing")
    else:
        yield at_item(node.item, f"node {node.name}: {message}", "metadata", "labels", key, node=node.name)


RULE = Rule(
    id="node-mig-labels-mismatch",
    severity="warning",
    summary="GPU Feature Discovery's per-profile MIG labels (nvidia.com/mig-<profile>.count) disagree with the MIG "
    "resources the device plugin offers.",
    fix="Let GPU Feature Discovery write its labels: remove hand-set nvidia.com/mig-* labels (the MIG manager "
    "applies a layout from nvidia.com/mig.config, never from count labels), and run a GFD as new as the device "
    "plugin (GFD before v0.4.0 named MIG memory in GB of 1000 MB, the device plugin in GiB: mig-3g.21gb against "
    "nvidia.com/mig-3g.20gb).",
    explanation="Pods and autoscalers pick MIG nodes by GFD's labels (a nodeSelector on nvidia.com/mig-1g.10gb.count, "
    "a Karpenter or cluster-autoscaler template) and are then given the device plugin's resources. Labels that name "
    "other profiles or other counts than the node offers send pods to nodes that cannot run them, or keep them "
    "from nodes that can. The labels are GFD's to write: counts set by hand change nothing on the GPUs.",
    source="NVIDIA/gpu-feature-discovery be5584d (MIG memory /1024 to match the device plugin, v0.4.0); NVIDIA/"
    "gpu-operator #981 (hand-set count labels)",
    check=check,
    applies_to=LIVE_NODE,
)
