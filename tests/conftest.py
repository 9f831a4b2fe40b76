import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from gengpu.cli import main

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def run(monkeypatch):
    """Run the CLI in-process; exceptions propagate so a traceback fails the test."""

    def _run(*args, cwd=None):
        if cwd is not None:
            monkeypatch.chdir(cwd)
        result = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
        return result

    return _run


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """A scratch GitOps repo holding the example profiles and their committed overlays."""
    shutil.copytree(REPO / "profiles", tmp_path / "profiles")
    shutil.copytree(REPO / "overlays", tmp_path / "overlays")
    shutil.copytree(REPO / "argocd", tmp_path / "argocd")
    # The real tools, from the project's bin folder (scripts/install-tools).
    monkeypatch.setenv("GENGPU_KUSTOMIZE", str(REPO / "bin" / "kustomize"))
    monkeypatch.setenv("GENGPU_KUBECONFORM", str(REPO / "bin" / "kubeconform"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def profile_repo(tmp_path, monkeypatch, request):
    """A scratch repo holding the test module's FIXTURE_PROFILE (a file of tests/fixtures/profiles), with the real
    tools."""
    name = request.module.FIXTURE_PROFILE
    (tmp_path / "profiles").mkdir()
    shutil.copy(REPO / "tests" / "fixtures" / "profiles" / name, tmp_path / "profiles" / name)
    monkeypatch.setenv("GENGPU_KUSTOMIZE", str(REPO / "bin" / "kustomize"))
    monkeypatch.setenv("GENGPU_KUBECONFORM", str(REPO / "bin" / "kubeconform"))
    return tmp_path


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory, monkeypatch):
    # One derived Kubernetes schema cache for the whole session, outside the user's home.
    monkeypatch.setenv("GENGPU_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "cache"))


@pytest.fixture(scope="session")
def harness(tmp_path_factory):
    go = shutil.which("go")
    assert go, "Go is needed to build the upstream harness (tests/upstream)"
    binary = tmp_path_factory.mktemp("harness") / "harness"
    env = {**os.environ, "GOFLAGS": "-mod=mod"}
    proc = subprocess.run([go, "build", "-o", str(binary), "."], cwd=REPO / "tests" / "upstream", capture_output=True,
                          text=True, env=env)
    assert proc.returncode == 0, proc.stderr

    def parse(kind, files):
        out = subprocess.run([str(binary), kind, *map(str, files)], capture_output=True, text=True, check=True)
        return {Path(v["file"]).name: v for v in json.loads(out.stdout)}

    parse.binary = binary
    return parse


def pytest_configure(config):
    """Under scripts/mutation every mutant is a pytest session of its own, two at a time: each gets its own base
    temporary folder, or one session's cleanup of old numbered folders races the other's and the loser's pytest
    stops with an error instead of a verdict."""
    if os.environ.get("MUTANT_UNDER_TEST") and not config.option.basetemp:
        config.option.basetemp = f"/tmp/gengpu-mutant-{os.getpid()}"
        config._gengpu_mutant_temp = config.option.basetemp


def pytest_collection_modifyitems(config, items):
    """Under scripts/mutation a mutant's tests come in mutmut's order, which is a set's: one module's tests
    interleaved with others', so a module fixture such as an API server started again at each switch, and a module's
    tests out of the file's order, which some rely on (an object the API server holds from a test above). They run
    module by module, cheapest module first (the call times mutmut recorded), so a killed mutant stops early and a
    survivor starts each server once, and each module's tests in the order they are written."""
    stats = Path("mutmut-stats.json")
    if os.environ.get("MUTANT_UNDER_TEST") and stats.is_file():
        items[:] = by_cost(items, json.loads(stats.read_text()).get("duration_by_test", {}))


def by_cost(items: list, seconds: dict) -> list:
    def module(item) -> str:
        return item.nodeid.partition("::")[0]

    def case(item) -> tuple:  # (a parametrized test's cases in their table's order)
        callspec = getattr(item, "callspec", None)
        return tuple(callspec.indices.values()) if callspec else ()

    module_cost: dict = {}
    for item in items:
        cost = seconds.get(item.nodeid.removeprefix("mutants/"), 0.0)
        module_cost[module(item)] = module_cost.get(module(item), 0.0) + cost
    return sorted(items, key=lambda item: (module_cost[module(item)], module(item), item.location[1], case(item)))


def pytest_unconfigure(config):
    """A mutant's base temporary folder goes with its session: an API server's etcd leaves 600 MB in it, and a run
    of hundreds of mutants filled the disk (scripts/mutation removes those of mutants it stopped)."""
    temp = getattr(config, "_gengpu_mutant_temp", None)
    if temp:
        shutil.rmtree(temp, ignore_errors=True)
