from gengpu.checking.rules.base import Hit, Rule


def check(profile, ctx=None):
    from gengpu.checking.rules import RULES

    names = {p.name for p in profile.node_pools}
    for s in profile.suppressions:
        if s.rule not in RULES:
            yield Hit(("spec", "suppress", s.index, "rule"), f"spec.suppress[{s.index}].rule '{s.rule}' is not a rule")
        elif not RULES[s.rule].suppressible:
            yield Hit(("spec", "suppress", s.index, "rule"), f"spec.suppress[{s.index}].rule '{s.rule}' cannot be "
                      "suppressed: gengpu cannot compile a profile that breaks it")
        for i, pool in enumerate(s.pools):
            if pool not in names:
                yield Hit(("spec", "suppress", s.index, "pools", i),
                          f"spec.suppress[{s.index}].pools names '{pool}', which is not a node pool")


RULE = Rule(
    id="suppression-unknown-rule",
    severity="error",
    summary="A suppression names a rule or a pool that does not exist, or a rule no suppression can silence.",
    fix="Use a rule id from `gengpu rules` and pool names from spec.nodePools; fix the profile where the rule "
    "cannot be suppressed.",
    explanation="A misspelt rule id silences nothing, and the finding it was meant for keeps failing the build; a "
    "renamed rule should be noticed, not ignored. A few rules guard what the compiler needs (MIG only on a GPU that "
    "has it, a GPU model gengpu knows): `gengpu explain` says 'cannot be suppressed' for them.",
    source="gengpu policy",
    check=check,
)
