from gengpu.checking.rules.base import KARPENTER_NODEOVERLAY, Hit, Rule
from gengpu.checking.podspecs import dig


def check(subject, ctx=None):
    capacity = dig(subject.data, "spec", "capacity")
    gpus = sorted(k for k in (capacity if isinstance(capacity, dict) else {}) if str(k).startswith("nvidia.com/"))
    requirements = dig(subject.data, "spec", "requirements")
    keys = {str(r.get("key")) for r in (requirements if isinstance(requirements, list) else []) if isinstance(r, dict)}
    if gpus and "karpenter.sh/nodepool" not in keys:
        yield Hit(("spec", "requirements") if requirements is not None else ("spec",),
                  f"{subject.label} adds {', '.join(gpus)} to every matching instance type of every NodePool: "
                  "it has no karpenter.sh/nodepool requirement")


RULE = Rule(
    id="karpenter-nodeoverlay-unscoped",
    severity="warning",
    summary="A NodeOverlay that adds shared GPU capacity is not scoped to its NodePool.",
    fix="Add `{key: karpenter.sh/nodepool, operator: In, values: [<the sharing pool>]}` to spec.requirements.",
    explanation="A NodeOverlay changes Karpenter's idea of an instance type's capacity wherever its requirements "
    "match. Sharing (time-slicing, MPS, MIG) is configured per pool, so an overlay that matches only the instance "
    "type also tells Karpenter that another pool's nodes of that type have, say, 4x their GPUs: Karpenter launches "
    "one node for four pods that then stay Pending.",
    source="Karpenter docs 'NodeOverlays' (requirements select instance types and NodePools); issue 11",
    check=check,
    applies_to=KARPENTER_NODEOVERLAY,
)
