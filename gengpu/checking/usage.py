"""What the pools' GPUs did, judged: the rules of the usage targets over each pool's recommendation
(gengpu/sizing.py), with findings at the pool's line in the profile."""

from __future__ import annotations

from gengpu.checking.targets import USAGE_POOL
from gengpu.findings import Finding


def check_pools(recommendations) -> list[Finding]:
    from gengpu.checking.run import rules_for

    findings = []
    for rule in rules_for(USAGE_POOL):
        for rec in recommendations:
            suppressed = {s.rule: s for s in rec.usage.profile.suppressions}
            if rule.id in suppressed and suppressed[rule.id].reason and (
                    not suppressed[rule.id].pools or rec.pool in suppressed[rule.id].pools):
                continue
            for hit in rule.check(rec, None):
                doc = rec.usage.doc
                line, col = doc.position(hit.path, key=hit.key)
                findings.append(Finding(doc.file, line, col, rule.severity, rule.id, hit.message, rule.fix))
    return findings
