"""EKS Auto Mode GPU node pools, and whether a pod spec can or must land on their nodes.

A node's labels are known only in part before it exists: a NodePool fixes some (its template labels, one-value
requirements, its own name, Auto Mode's compute-type), bounds others (requirements with several values), and
Kubernetes, Karpenter, Auto Mode, NFD and GPU feature discovery may add keys under their own prefixes. Anything
else is absent. A placement rule is checked against that: "cannot land" is said only when no node of the pool could
satisfy it.
"""

from __future__ import annotations

from dataclasses import dataclass

from gengpu.checking import nodeselect
from gengpu.checking.podspecs import REQUIRED_TERMS, dig
from gengpu.checking.rules._karpenter import launches_gpus, requirements
from gengpu.checking.rules._pods import tolerates
from gengpu.checking.targets import KARPENTER_NODEPOOL

GROUP = "eks.amazonaws.com"  # nodeClassRef.group of an Auto Mode NodePool (its NodeClass, eks.amazonaws.com/v1)
COMPUTE_TYPE = "eks.amazonaws.com/compute-type"  # "auto" on every Auto Mode node
POOL = "karpenter.sh/nodepool"
# Label domains (and their subdomains) a node may carry keys of without its NodePool saying so: Kubernetes' and
# NFD's (feature.node.kubernetes.io), Karpenter's, Auto Mode's, and GPU feature discovery's or the operator's.
ADDED = ("kubernetes.io", "k8s.io", "karpenter.sh", "karpenter.k8s.aws", "eks.amazonaws.com", "nvidia.com")
UNKNOWN = None  # a key the node may or may not have, with any value


@dataclass
class AutoPool:
    subject: object
    name: str
    labels: dict  # key -> the values it can have (present for sure)
    taints: list  # Taints that keep pods off (NoSchedule, NoExecute)

    def values(self, key: str):
        """The values a node of the pool can have for key: a set (present), UNKNOWN, or an empty tuple (absent)."""
        if key in self.labels:
            return self.labels[key]
        domain = key.split("/")[0] if "/" in key else ""
        return UNKNOWN if any(domain == d or domain.endswith("." + d) for d in ADDED) else ()


def _nvidia(obj: dict) -> bool:
    for _, req in requirements(obj):
        if str(req.get("key", "")).endswith("-gpu-manufacturer") and req.get("operator") == "In":
            if "nvidia" not in [str(v).lower() for v in req.get("values") or []]:
                return False
    return launches_gpus(obj)


def auto_pools(overlay, gpus: bool = True) -> list[AutoPool]:
    """The Auto Mode NodePools in the files (with gpus, those that launch only NVIDIA GPU instances)."""
    from gengpu.model import Taint  # (the profile model: only where an Auto Mode pool is read)

    pools = []
    for s in overlay.subjects:
        data = s.data if isinstance(s.data, dict) else {}
        if s.kind != KARPENTER_NODEPOOL or dig(data, "spec", "template", "spec", "nodeClassRef", "group") != GROUP \
                or gpus and not _nvidia(data):
            continue
        name = str(dig(data, "metadata", "name") or "")
        labels = {COMPUTE_TYPE: {"auto"}, POOL: {name}}
        for _, req in requirements(data):
            if req.get("operator") == "In" and isinstance(req.get("values"), list) and req.get("key") not in labels:
                labels[str(req.get("key"))] = {str(v) for v in req["values"]}
        template = dig(data, "spec", "template", "metadata", "labels")
        for key, value in (template.items() if isinstance(template, dict) else []):
            labels[str(key)] = {str(value)}
        taints = dig(data, "spec", "template", "spec", "taints")
        pools.append(AutoPool(s, name, labels, [
            Taint(str(t.get("key")), t["effect"], None if t.get("value") is None else str(t["value"]))
            for t in taints or [] if isinstance(t, dict) and t.get("effect") in ("NoSchedule", "NoExecute")]))
    return pools


def _possible(expr: dict, pool: AutoPool) -> bool:
    have = pool.values(str(expr.get("key")))
    return nodeselect.matches(expr.get("operator"), expr.get("values"), None if have is UNKNOWN else have)


def _terms(spec: dict) -> list[list[dict]]:
    """The required node affinity's terms (any one must hold), each a list of expressions (all must hold)."""
    terms = dig(spec, *REQUIRED_TERMS)
    return [[e for e in t.get("matchExpressions") or [] if isinstance(e, dict)]
            for t in terms or [] if isinstance(t, dict)]


def _selector(spec: dict) -> list[dict]:
    selector = spec.get("nodeSelector")
    return [{"key": k, "operator": "In", "values": [v]} for k, v in (selector or {}).items()] \
        if isinstance(selector, dict) else []


def may_land(spec: dict, pool: AutoPool) -> bool:
    """Whether a pod with this spec (nodeSelector, required node affinity, tolerations) could run on a node of pool."""
    if not all(_possible(e, pool) for e in _selector(spec)):
        return False
    terms = _terms(spec)
    if terms and not any(all(_possible(e, pool) for e in term) for term in terms):
        return False
    return all(tolerates(spec.get("tolerations"), taint) for taint in pool.taints)


def _only(exprs: list[dict], key: str, allowed: set) -> bool:
    return any(e.get("key") == key and e.get("operator") == "In" and e.get("values")
               and {str(v) for v in e["values"]} <= allowed for e in exprs)


def requires_auto(spec: dict, pools: list[AutoPool]) -> bool:
    """Whether a pod with this spec can run only on Auto Mode nodes: it selects compute-type auto, or the
    NodePools it selects by name are all Auto Mode ones in the files."""
    names = {p.name for p in pools}

    def bound(exprs):
        return _only(exprs, COMPUTE_TYPE, {"auto"}) or bool(names) and _only(exprs, POOL, names)
    terms = _terms(spec)
    return bound(_selector(spec)) or bool(terms) and all(bound(term) for term in terms)
