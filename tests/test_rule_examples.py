"""Every rule's examples (gengpu/checking/rules/examples/<rule>.yaml): the failing one gives exactly its listed
findings (file:line:column rule: message), its own rule among them, and the near miss gives exactly its own,
without the rule."""

import json
import shlex
from pathlib import Path

import pytest

import gengpu
from gengpu.checking.rules import RULES
from gengpu.checking.rules.base import EXAMPLES_DIR, examples

EXAMPLES = [(rule, name) for rule in sorted(RULES) for name in examples(rule)]


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
    # messages that name a path name it relative to these two
    places = {str(tmp_path): "$TMP", str(Path(gengpu.__file__).resolve().parents[1]): "$GENGPU"}
    found = []
    for f in report["findings"]:
        message = f["message"]
        for real, shown in places.items():
            message = message.replace(real, shown)
        found.append(f"{f['file']}:{f['line']}:{f['column']} {f['rule']}: {message}")
    errors = any(f["severity"] == "error" for f in report["findings"])
    assert result.exit_code == (1 if errors else 0), result.output
    return found


def test_every_rule_has_examples_and_every_example_a_rule():
    assert sorted(p.stem for p in EXAMPLES_DIR.glob("*.yaml")) == sorted(RULES)


@pytest.mark.parametrize("rule", sorted(RULES))
def test_the_examples_are_what_they_say(rule):
    """The failing example lists its rule; the near miss does not (and is itself well-formed enough to be judged:
    a near miss that breaks the YAML never reaches the rule)."""
    found = {name: [f.split(": ", 1)[0].split(" ")[1] for f in example.findings]
             for name, example in examples(rule).items()}
    passes = found.pop("passes")
    assert rule not in passes and all(rule in fails for fails in found.values())
    if rule not in ("yaml-syntax", "yaml-duplicate-key", "yaml-tag", "yaml-merge", "yaml-limit", "file-unreadable"):
        assert not any(r.startswith(("yaml-", "file-unreadable")) for r in passes), rule


@pytest.mark.parametrize("rule, name", EXAMPLES, ids=[f"{rule}-{name}" for rule, name in EXAMPLES])
def test_example(run, tmp_path, monkeypatch, rule, name):
    example = examples(rule)[name]
    assert run_example(run, tmp_path, monkeypatch, example) == example.findings


def test_explain_prints_the_examples_with_line_numbers(run):
    out = run("explain", "sharing-replicas-too-low", "--examples").output
    assert "Breaks the rule: gengpu validate case.yaml\n\n  case.yaml:\n     1 | version: v1\n" in out
    assert ("     8 |         replicas: 1\n\n  Findings:\n    case.yaml:8:19 sharing-replicas-too-low: device-plugin-config: "
            "sharing.timeSlicing.resources[0].replicas is 1; the plugin needs 2 or more and refuses the whole config\n") in out
    assert out.endswith("     8 |         replicas: 4\n\n  Findings: none\n")
