"""Every rule's examples (gengpu/checking/rules/examples/<rule>.yaml): the failing one gives exactly its listed
findings, its own rule among them, and the near miss gives exactly its own, without the rule."""

import json
import shlex

import pytest

from gengpu.checking.rules import RULES
from gengpu.checking.rules.base import EXAMPLES_DIR, SIDES, examples


def run_example(run, tmp_path, monkeypatch, example):
    for name, text in example.files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
    if example.env:
        from gengpu.checking import cel

        monkeypatch.setattr(cel, "_checker", None)  # the environment is read when the checker first starts
        monkeypatch.setattr(cel, "_missing", None)
        for key, value in example.env.items():
            monkeypatch.setenv(key, value.replace("$TMP", str(tmp_path)))
    result = run(*shlex.split(example.run), "--output", "json", cwd=tmp_path)
    assert result.exit_code in (0, 1), result.output
    report = json.loads(result.stdout)
    found = [f"{f['file']}:{f['line']}:{f['column']} {f['rule']}" for f in report["findings"]]
    errors = any(f["severity"] == "error" for f in report["findings"])
    assert result.exit_code == (1 if errors else 0), result.output
    return found


def test_every_rule_has_examples_and_every_example_a_rule():
    assert sorted(p.stem for p in EXAMPLES_DIR.glob("*.yaml")) == sorted(RULES)


@pytest.mark.parametrize("rule", sorted(RULES))
def test_the_examples_are_what_they_say(rule):
    """The failing example lists its rule; the near miss does not (and is itself well-formed enough to be judged:
    a near miss that breaks the YAML never reaches the rule)."""
    ex = examples(rule)
    assert any(f.endswith(" " + rule) for f in ex["fails"].findings)
    assert not any(f.endswith(" " + rule) for f in ex["passes"].findings)
    if rule not in ("yaml-syntax", "yaml-duplicate-key", "yaml-tag", "yaml-merge", "yaml-limit", "file-unreadable"):
        assert not any(f.split()[1].startswith(("yaml-", "file-unreadable")) for f in ex["passes"].findings), rule


@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("rule", sorted(RULES))
def test_example(run, tmp_path, monkeypatch, rule, side):
    example = examples(rule)[side]
    assert run_example(run, tmp_path, monkeypatch, example) == example.findings


def test_explain_prints_the_examples_with_line_numbers(run):
    out = run("explain", "sharing-replicas-too-low", "--examples").output
    assert "Breaks the rule: gengpu validate case.yaml\n\n  case.yaml:\n     1 | version: v1\n" in out
    assert "     8 |         replicas: 1\n\n  Findings:\n    case.yaml:8:19 sharing-replicas-too-low\n" in out
    assert out.endswith("     8 |         replicas: 4\n\n  Findings: none\n")
