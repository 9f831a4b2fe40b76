import shutil
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


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory, monkeypatch):
    # One derived Kubernetes schema cache for the whole session, outside the user's home.
    monkeypatch.setenv("GENGPU_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "cache"))
