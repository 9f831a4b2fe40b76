from gengpu.checking.rules.base import Hit, Rule


def check(profile, ctx=None):
    for s in profile.suppressions:
        if not s.reason:
            yield Hit(("spec", "suppress", s.index), f"spec.suppress[{s.index}] silences {s.rule} without a reason")


RULE = Rule(
    id="suppression-without-reason",
    severity="error",
    summary="A rule is suppressed without saying why.",
    fix="Add a reason: the fact that makes the rule not apply to this cluster.",
    explanation="A suppression is a decision a reviewer must be able to check. Without a reason it silences a "
    "finding nobody can judge later; gengpu does not honour it.",
    source="gengpu policy (kube-linter and Polaris ask for a reason in their exemption annotations too)",
    check=check,
)
