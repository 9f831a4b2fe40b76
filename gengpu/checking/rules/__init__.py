"""The rule catalogue: one module per rule in this package, each with a RULE.

Modules starting with "_" are helpers shared by several rules.
"""

import importlib
import json
import pkgutil
from collections.abc import Mapping
from pathlib import Path

from gengpu.checking.rules.base import Hit, Rule

INDEX = Path(__file__).with_name("index.json")  # rule id -> [module, target]: written by scripts/gen-rules-doc


def _module_rules(name: str) -> list[Rule]:
    module = importlib.import_module(f"{__name__}.{name}")
    return list(getattr(module, "RULES", None) or [module.RULE])


def _modules() -> list[str]:
    return sorted(i.name for i in pkgutil.iter_modules(__path__) if not i.name.startswith("_") and i.name != "base")


def _discover() -> dict[str, Rule]:
    """Every rule of every module, imported: what the index must agree with (tests/test_rules.py)."""
    rules = {}
    for name in _modules():
        for rule in _module_rules(name):
            assert rule.id not in rules, rule.id
            rules[rule.id] = rule
    return dict(sorted(rules.items()))


def discover_index() -> dict[str, list[str]]:
    """What index.json holds: each rule's module and target, by id."""
    index = {}
    for name in _modules():
        for rule in _module_rules(name):
            index[rule.id] = [name, rule.applies_to]
    return dict(sorted(index.items()))


_LOADED: dict[str, list[Rule]] = {}


class Catalogue(Mapping):
    """Every rule by id, importing a rule's module only when it is asked for: a run that checks one profile
    imports the profile rules, not the other hundred modules. Iterating the values imports them all."""

    def __init__(self):
        self._table: dict[str, tuple[str, str]] | None = None
        self._rules: dict[str, Rule] = {}

    @property
    def _index(self) -> dict[str, tuple[str, str]]:
        if self._table is None:  # read on first use; a checkout without the file discovers the modules
            raw = json.loads(INDEX.read_text(encoding="utf-8")) if INDEX.is_file() else discover_index()
            self._table = {k: (v[0], v[1]) for k, v in raw.items()}
        return self._table

    def _load(self, module: str) -> None:
        if module not in _LOADED:
            _LOADED[module] = _module_rules(module)
            for rule in _LOADED[module]:
                self._rules[rule.id] = rule

    def __getitem__(self, rule_id: str) -> Rule:
        if rule_id not in self._rules:
            if rule_id not in self._index:
                raise KeyError(rule_id)
            self._load(self._index[rule_id][0])
        return self._rules[rule_id]

    def __contains__(self, rule_id) -> bool:
        return rule_id in self._index

    def __iter__(self):
        return iter(self._index)

    def __len__(self) -> int:
        return len(self._index)

    def for_target(self, target: str) -> list[Rule]:
        """The rules of one target, in id order, importing only their modules."""
        return [self[rule_id] for rule_id, (_, applies_to) in self._index.items() if applies_to == target]


RULES: Catalogue = Catalogue()


def finding(rule_id: str, file: str, line: int, column: int, message: str):
    """A finding of a catalogue rule raised outside a rule's check (parsing, writing, tools): its severity and
    fix come from the catalogue."""
    from gengpu.findings import Finding

    rule = RULES[rule_id]
    return Finding(file, line, column, rule.severity, rule.id, message, rule.fix)


__all__ = ["RULES", "Hit", "Rule", "finding"]
