"""The rule catalogue: one module per rule in this package, each with a RULE.

Modules starting with "_" are helpers shared by several rules.
"""

import importlib
import pkgutil

from gengpu.checking.rules.base import Hit, Rule


def _discover() -> dict[str, Rule]:
    rules = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        if info.name.startswith("_") or info.name == "base":
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        for rule in getattr(module, "RULES", None) or [module.RULE]:
            assert rule.id not in rules, rule.id
            rules[rule.id] = rule
    return dict(sorted(rules.items()))


RULES: dict[str, Rule] = _discover()


def finding(rule_id: str, file: str, line: int, column: int, message: str):
    """A finding of a catalogue rule raised outside a rule's check (parsing, writing, tools): its severity and
    fix come from the catalogue."""
    from gengpu.findings import Finding

    rule = RULES[rule_id]
    return Finding(file, line, column, rule.severity, rule.id, message, rule.fix)


__all__ = ["RULES", "Hit", "Rule", "finding"]
