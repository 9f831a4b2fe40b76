"""scripts/sync-schemas --newer: the pins' drift from upstream is said the day a release ships, never a failure."""

import importlib.machinery
import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def _script():
    loader = importlib.machinery.SourceFileLoader("sync_schemas", str(REPO / "scripts" / "sync-schemas"))
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader("sync_schemas", loader))
    loader.exec_module(module)
    return module


def test_only_a_newer_release_counts():
    sync = _script()
    versions = ["v1.13.0", "v1.14.1", "v1.15.0-rc.1", "v1.14.3", "v2.0.0+incompatible"]
    assert sync.newest_after("v1.14.1", versions) == "v1.14.3"
    assert sync.newest_after("v1.14.3", versions) is None  # a release candidate is not a release
    assert sync.newest_after("v1.9.5", ["v1.10.1", "v1.9.10"]) == "v1.10.1"  # by number, not by text


@pytest.mark.skipif(shutil.which("go") is None, reason="reads the Go module proxy")
def test_the_proxy_is_asked_and_a_module_it_lacks_is_said_not_checked():
    """Karpenter v1.14.0 has newer releases on the proxy (v1.14.1 is pinned in crd-sources.yaml)."""
    lines = _script().newer([{"module": "sigs.k8s.io/karpenter", "version": "v1.14.0"},
                             {"module": "example.invalid/no-such-module", "version": "v1.0.0"}])
    assert lines[0].startswith("sigs.k8s.io/karpenter v1.")
    assert lines[0].endswith(" is released; scripts/crd-sources.yaml pins v1.14.0: update the pin, run "
                             "scripts/sync-schemas and read what changed")
    assert lines[1].startswith("not checked: example.invalid/no-such-module (")


@pytest.mark.skipif(shutil.which("go") is None, reason="reads the Go module proxy")
def test_newer_warns_in_github_actions_form_and_exits_0():
    """The lines are workflow commands in GitHub Actions (an annotation on the run), plain warnings elsewhere; the
    script's own run (what scripts/test does) exits 0 whatever it finds."""
    pinned = [{"module": "sigs.k8s.io/karpenter", "version": "v1.14.0"}]
    github, = _script().warnings(pinned, github=True)
    plain, = _script().warnings(pinned, github=False)
    assert github.startswith("::warning::sigs.k8s.io/karpenter v1.")
    assert plain == "sync-schemas: warning: " + github.removeprefix("::warning::")
    done = subprocess.run([sys.executable, str(REPO / "scripts" / "sync-schemas"), "--newer"], capture_output=True,
                          text=True, env={**os.environ, "GITHUB_ACTIONS": "true"}, timeout=600)
    assert done.returncode == 0, done.stderr
    assert all(line.startswith("::warning::") for line in done.stderr.splitlines())
