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


@pytest.mark.parametrize("folder", ["checking", "loading", "rendering", "live", "metrics", "reporting"])
def test_a_stage_does_not_import_the_pipeline_or_the_cli(folder):
    """The pipeline orchestrates the stages; a stage that reached back into it would make it a stage of its own."""
    assert [(f, m) for f, m in imports(folder) if m.startswith(("gengpu.pipeline", "gengpu.cli"))] == []


def test_checking_does_not_import_rendering():
    """Judgments never depend on how an overlay is rendered: the pipeline renders, then hands the files to checking;
    what both use (the binaries gengpu runs, a run's loaded files) lives outside either."""
    assert [(f, m) for f, m in imports("checking") if m.startswith("gengpu.rendering")] == []


def test_the_cli_holds_no_flow():
    """Commands parse options, call one flow of gengpu/pipeline/ and hand its result to gengpu/reporting/: the CLI
    never builds, renders, checks or writes on its own."""
    stages = ("gengpu.compiling", "gengpu.rendering", "gengpu.checking.run", "gengpu.checking.documents",
              "gengpu.live.pools", "gengpu.stages", "gengpu.fleet")
    assert [(f, m) for f, m in imports("cli") if m.startswith(stages)] == []


def test_no_module_is_a_second_hub():
    """Each command's flow reads in one file: no module of gengpu outside its data is over 400 lines."""
    long = {p.relative_to(GENGPU).as_posix(): n for p in GENGPU.rglob("*.py")
            if "data" not in p.parts and (n := len(p.read_text().splitlines())) > 400}
    assert long == {}


def test_the_pipeline_decides_no_finding():
    """Every finding is built where its check lives, under checking/ (or by a stage that runs a tool); the pipeline
    only passes them on, rebuilding cached ones from their fields (Finding(**f))."""
    built = [(path.name, node.lineno) for path in sorted((GENGPU / "pipeline").glob("*.py"))
             for node in ast.walk(ast.parse(path.read_text())) if isinstance(node, ast.Call)
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
