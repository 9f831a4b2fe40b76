from gengpu import catalog
from gengpu.checking.rules._pods import tolerates
from gengpu.checking.rules.base import OVERLAY, Hit, Rule
from gengpu.checking.podspecs import dig
from gengpu.model import Taint

POOL = "gengpu.dev/pool"
# Taints platforms put on nodes themselves (platforms.yaml automaticTaints): a placement may tolerate them though
# no provisioner lists them.
PLATFORM_TAINTS = {(t["key"], t.get("value")) for platform in catalog.platforms().values()
                   for t in platform.get("automaticTaints", [])}


def _provisioned(docs):
    """pool -> (doc, taints) from Karpenter NodePools and GKE ComputeClasses."""
    out = {}
    for doc in docs:
        d = doc.data if isinstance(doc.data, dict) else {}
        if d.get("kind") == "NodePool":
            pool = dig(d, "spec", "template", "metadata", "labels", POOL)
            taints = dig(d, "spec", "template", "spec", "taints") or []
        elif d.get("kind") == "ComputeClass":
            pool = dig(d, "spec", "nodePoolConfig", "nodeLabels", POOL)
            taints = dig(d, "spec", "nodePoolConfig", "taints") or []
        else:
            continue
        if pool:
            out[pool] = (doc, [Taint(t.get("key"), t.get("effect"), t.get("value")) for t in taints
                               if isinstance(t, dict)])
    return out


def check(overlay, ctx=None):
    provisioned = _provisioned(overlay.docs)
    for doc in overlay.docs:
        d = doc.data if isinstance(doc.data, dict) else {}
        if d.get("kind") != "Placement" or not str(d.get("apiVersion", "")).startswith("gengpu.dev/"):
            continue
        pool = dig(d, "spec", "pool")
        if not isinstance(pool, str) or pool not in provisioned:
            continue
        path = ("spec", "tolerations")
        tolerations = dig(d, *path)
        tolerations = tolerations if isinstance(tolerations, list) else []
        _, taints = provisioned[pool]
        for taint in taints:
            if not tolerates(tolerations, taint):
                yield Hit(path, f"placement for pool {pool} does not tolerate "
                          f"{taint.key}{'=' + taint.value if taint.value else ''}:{taint.effect}, which its node "
                          "pool sets", doc=doc)
        for i, tol in enumerate(tolerations):
            if not isinstance(tol, dict) or (tol.get("key"), tol.get("value")) in PLATFORM_TAINTS:
                continue
            if not any(tolerates([tol], t) for t in taints):
                yield Hit(path + (i,), f"placement for pool {pool} tolerates {tol.get('key')}, which "
                          "its node pool does not set", doc=doc)


RULE = Rule(
    id="placement-taints-mismatch",
    severity="error",
    summary="A pool's placement component and its provisioner disagree on taints.",
    fix="Rebuild the overlay (`gengpu build`), or make the component's tolerations match the NodePool's taints.",
    explanation="Pods placed on a pool must tolerate exactly the taints its nodes carry: a missing toleration keeps "
    "them Pending, an extra one usually means a taint was renamed on one side only and other pods may now land on "
    "the GPU nodes.",
    source="Kubernetes 'Taints and Tolerations'; pain point OP-07",
    check=check,
    applies_to=OVERLAY,
)
