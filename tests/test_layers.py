"""The pipeline's stages depend one way: rendering and checking never reach into the compiler."""

import ast
from pathlib import Path

import pytest

GENGPU = Path(__file__).resolve().parent.parent / "gengpu"


def imports(folder: str) -> list[tuple[str, str]]:
    found = []
    for path in sorted((GENGPU / folder).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                found.append((path.relative_to(GENGPU).as_posix(), node.module))
            elif isinstance(node, ast.Import):
                found += [(path.relative_to(GENGPU).as_posix(), a.name) for a in node.names]
    return found


@pytest.mark.parametrize("folder", ["rendering", "loading"])
def test_a_stage_does_not_import_the_compiler(folder):
    assert [(f, m) for f, m in imports(folder) if m.startswith("gengpu.compiling")] == []


def test_checking_does_not_import_the_pipeline():
    """The pipeline orchestrates the stages; a stage that reached back into it would make it a stage of its own."""
    assert [(f, m) for f, m in imports("checking") if m == "gengpu.pipeline"] == []


def test_the_pipeline_decides_no_finding():
    """Every finding is built where its check lives, under checking/ (or by a stage that runs a tool); the pipeline
    only passes them on, rebuilding cached ones from their fields (Finding(**f))."""
    tree = ast.parse((GENGPU / "pipeline.py").read_text())
    built = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Call)
             and getattr(node.func, "id", None) == "Finding" and (node.args or any(k.arg for k in node.keywords))]
    assert built == []


def test_every_rule_check_takes_its_target_and_the_cluster():
    """One signature for every rule: check(target, ctx), the target being what the rule applies to."""
    import inspect

    from gengpu.checking.rules import RULES

    shapes = set()
    for rule in RULES.values():
        if rule.check is not None:
            params = list(inspect.signature(rule.check).parameters)
            shapes.add(len(params))
    assert shapes == {2}
