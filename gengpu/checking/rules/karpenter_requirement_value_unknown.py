from gengpu.checking.rules._karpenter import REQUIREMENTS, requirements
from gengpu.checking.rules.base import KARPENTER_NODEPOOL, Hit, Rule

# Karpenter pkg/apis/v1/labels.go WellKnownValuesForRequirements
WELL_KNOWN = {"karpenter.sh/capacity-type": ("on-demand", "spot", "reserved")}


def check(subject, ctx=None):
    for i, req in requirements(subject.data):
        known = WELL_KNOWN.get(req.get("key"))
        values = req.get("values") if isinstance(req.get("values"), list) else []
        if not known or req.get("operator") != "In" or not values:
            continue
        bad = [str(v) for v in values if v not in known]
        if bad and len(bad) == len(values):
            yield Hit(REQUIREMENTS + (i, "values", 0), f"{subject.label}: no valid values found in [{' '.join(bad)}] for "
                      f"{req['key']}, expected one of: {', '.join(known)}; Karpenter marks the NodePool not ready and "
                      "launches nothing from it")
        elif bad:
            yield Hit(REQUIREMENTS + (i, "values", values.index(bad[0])),
                      f"{subject.label}: {', '.join(bad)} {'is not a value' if len(bad) == 1 else 'are not values'} "
                      f"of {req['key']} ({', '.join(known)}); Karpenter drops {'it' if len(bad) == 1 else 'them'}")


RULE = Rule(
    id="karpenter-requirement-value-unknown",
    severity="error",
    summary="A NodePool requirement on karpenter.sh/capacity-type with a value Karpenter does not know.",
    fix="Use on-demand, spot or reserved.",
    explanation="The API server accepts any string, but Karpenter's own validation sets the NodePool's "
    "ValidationSucceeded condition to false when no value is one it knows ('no valid values found in [xspot] for "
    "karpenter.sh/capacity-type'), and the NodePool provisions nothing. A GPU pool that never scales looks like a "
    "capacity problem.",
    source="kubernetes-sigs/karpenter v1.14.1 pkg/apis/v1/nodeclaim_validation.go validateWellKnownValues; "
    "kubernetes-sigs/karpenter#2164",
    check=check,
    applies_to=KARPENTER_NODEPOOL,
)
