"""The node labels Prometheus kept of nodes the cluster no longer has: which pool a node that an autoscaler removed
was in, and whether it ran on spot capacity, over the whole window.

Three places hold them, each with its own spelling of a label (a Kubernetes label key, `karpenter.sh/nodepool`, is
not a valid Prometheus label name):
- kube-state-metrics' `kube_node_labels{node}`: `label_` and the key with every character outside [a-zA-Z0-9_] made
  `_` (`label_karpenter_sh_nodepool`), for the labels its `--metric-labels-allowlist=nodes=[...]` names (none by
  default);
- Karpenter's `karpenter_nodes_allocatable{node_name}`: its well-known labels by their last part, snake_case
  (`nodepool`, `capacity_type`, `instance_type`; kubernetes-sigs/karpenter pkg/controllers/metrics/node/controller.go
  at 020fb1f7);
- dcgm-exporter's own series, where the scrape copies node labels onto them (a ServiceMonitor's
  `attachMetadata.node` with a labelmap of `__meta_kubernetes_node_label_(.+)`): the key made a label name, with or
  without `label_`.
"""

from __future__ import annotations

import math
import re

from gengpu.metrics import usage as u

KSM = "kube_node_labels"
KARPENTER = "karpenter_nodes_allocatable"
METRICS = (KSM, KARPENTER)
SOURCE_LABEL = "gengpu_source"
# the node label keys a node's capacity type is read from, and the values that mean spot
SPOT = {"karpenter.sh/capacity-type": "spot", "eks.amazonaws.com/capacityType": "SPOT",
        "cloud.google.com/gke-spot": "true", "cloud.google.com/gke-provisioning": "spot",
        "kubernetes.azure.com/scalesetpriority": "spot"}
_KARPENTER_LABELS = {"nodepool": "karpenter.sh/nodepool", "capacity_type": "karpenter.sh/capacity-type",
                     "instance_type": "node.kubernetes.io/instance-type"}
# (source, metric, the label that names the node)
SOURCES = ((KSM, KSM, "node"), (KARPENTER, KARPENTER, "node_name"),
           *(("dcgm-exporter", u.FB_USED, label) for label in u.NODE_LABELS))


def sanitize(key: str) -> str:
    """A label key as a Prometheus label name, the way kube-state-metrics and Prometheus's service discovery write
    it (every character outside [a-zA-Z0-9_] becomes _)."""
    return re.sub(r"[^a-zA-Z0-9_]", "_", key)


def names(keys: list[str]) -> dict[str, dict[str, str]]:
    """source -> {label name on its series: the node label key it spells}: the pool label keys and the capacity-type
    keys (a joined node's price)."""
    keys = sorted(set(keys) | set(SPOT))
    return {KSM: {f"label_{sanitize(k)}": k for k in keys},
            KARPENTER: dict(_KARPENTER_LABELS),
            "dcgm-exporter": {**{sanitize(k): k for k in keys}, **{f"label_{sanitize(k)}": k for k in keys}}}


def query(nodes: list[str], spelled: dict[str, dict[str, str]], window: str, matchers=()) -> str:
    """One query for the labels of these nodes in every source over the window, each result tagged with its source."""
    regex = u.quote(u.node_regex(nodes))
    parts = []
    for source, metric, node_label in SOURCES:
        keys = ", ".join([node_label, *sorted(spelled[source])])
        inner = f"last_over_time({metric}{{{node_label}=~{regex}{u._terms(matchers)}}}[{window}])"
        parts.append(f'label_replace(count by ({keys}) ({inner}), "{SOURCE_LABEL}", "{source}", "", "")')
    return "\nor ".join(parts)


class NodeLabels:
    """node -> node label key -> the values seen over the window (more than one: the name was reused by another
    node, or the label changed)."""

    def __init__(self, spelled: dict[str, dict[str, str]]):
        self.spelled = spelled
        self.by_node: dict[str, dict[str, set[str]]] = {}
        self.told_by: dict[str, set[str]] = {}  # node -> the sources that gave one of its labels

    def add(self, source: str, labels: dict, value: float = 1.0) -> None:
        node = next((labels[label] for s, _, label in SOURCES if s == source and labels.get(label)), None)
        if node is None or not math.isfinite(value):
            return
        found = self.by_node.setdefault(node, {})
        for name, key in self.spelled[source].items():
            if labels.get(name):
                found.setdefault(key, set()).add(labels[name])
                self.told_by.setdefault(node, set()).add(source)

    def of(self, node: str) -> dict[str, str]:
        """The node's labels where each has one value over the window."""
        return {k: next(iter(v)) for k, v in self.by_node.get(node, {}).items() if len(v) == 1}

    def changed(self, node: str) -> dict[str, list[str]]:
        """The node's labels that had more than one value over the window, with their values."""
        return {k: sorted(v) for k, v in self.by_node.get(node, {}).items() if len(v) > 1}


def spot(labels: dict[str, str]) -> bool | None:
    """Whether a node's labels say spot (True), another capacity type (False), or nothing (None)."""
    said = [labels[k] == v for k, v in SPOT.items() if labels.get(k)]
    return None if not said else any(said)
