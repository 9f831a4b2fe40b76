"""The hooks in .pre-commit-hooks.yaml, run by the real pre-commit in a scratch GitOps repo.

The scratch repo's .pre-commit-config.yaml points at this checkout's HEAD commit, as a
user's points at a release tag; pre-commit installs that commit once per session.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PRE_COMMIT = [sys.executable, "-m", "pre_commit"]
GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com"}


@pytest.fixture(scope="session")
def pre_commit_home(tmp_path_factory):
    return tmp_path_factory.mktemp("pre-commit-home")


@pytest.fixture
def gitops(tmp_path, pre_commit_home):
    repo = tmp_path / "gitops"
    repo.mkdir()
    shutil.copytree(REPO / "profiles", repo / "profiles")
    shutil.copytree(REPO / "overlays", repo / "overlays")
    env = {**os.environ, **GIT_ENV, "PRE_COMMIT_HOME": str(pre_commit_home)}

    def sh(*args, check=True):
        proc = subprocess.run(args, cwd=repo, env=env, capture_output=True, text=True)
        if check:
            assert proc.returncode == 0, proc.stdout + proc.stderr
        return proc

    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True).stdout.strip()
    (repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {REPO}\n    rev: {head}\n    hooks:\n      - id: gengpu-validate\n"
        "      - id: gengpu-overlays-up-to-date\n      - id: gengpu-build\n        stages: [manual]\n")
    sh("git", "init", "-q")
    sh("git", "add", "-A")
    sh("git", "commit", "-qm", "start")
    return repo, sh


def try_repo(sh, hook, *files):
    """Run one hook on some files, as `pre-commit run` does before a commit."""
    proc = sh(*PRE_COMMIT, "run", hook, "--hook-stage", "manual", "--files", *files, check=False)
    proc.stdout += proc.stderr
    return proc


def test_a_good_profile_passes(gitops):
    repo, sh = gitops
    result = try_repo(sh, "gengpu-validate", "profiles/eks-l4-mps.yaml")
    assert result.returncode == 0, result.stdout
    assert "gengpu validate" in result.stdout and "Passed" in result.stdout


def test_a_bad_profile_is_stopped_with_its_line(gitops):
    repo, sh = gitops
    profile = repo / "profiles" / "aks-t4-timeslicing.yaml"
    profile.write_text(profile.read_text().replace("replicas: 10", "replicas: 1"))
    result = try_repo(sh, "gengpu-validate", "profiles/aks-t4-timeslicing.yaml")
    assert result.returncode == 1
    assert ("profiles/aks-t4-timeslicing.yaml:31:19: error profile-schema 'spec.nodePools[0].sharing.replicas': 1 is "
            "less than the minimum of 2\n  fix: use 2 or more") in result.stdout


def test_a_stale_overlay_is_stopped_and_a_build_fixes_it(gitops):
    repo, sh = gitops
    profile = repo / "profiles" / "eks-l4-mps.yaml"
    profile.write_text(profile.read_text().replace("replicas: 4", "replicas: 6"))
    stale = try_repo(sh, "gengpu-overlays-up-to-date", "profiles/eks-l4-mps.yaml")
    assert stale.returncode == 1
    assert "stale: overlays/eks-l4-mps/device-plugin-config.yaml" in stale.stdout
    fixing = try_repo(sh, "gengpu-build", "profiles/eks-l4-mps.yaml")
    assert fixing.returncode == 1  # files were modified: pre-commit fails so they can be reviewed
    assert "replicas: 6" in (repo / "overlays" / "eks-l4-mps" / "device-plugin-config.yaml").read_text()
    assert try_repo(sh, "gengpu-overlays-up-to-date", "profiles/eks-l4-mps.yaml").returncode == 0


def test_an_edited_overlay_file_is_stopped(gitops):
    repo, sh = gitops
    values = repo / "overlays" / "gke-a100-spot" / "gpu-operator-values.yaml"
    values.write_text(values.read_text().replace("enabled: false", "enabled: true", 1))
    result = try_repo(sh, "gengpu-overlays-up-to-date", "overlays/gke-a100-spot/gpu-operator-values.yaml")
    assert result.returncode == 1
    assert "stale: overlays/gke-a100-spot/gpu-operator-values.yaml" in result.stdout


def test_the_hook_blocks_a_real_commit(gitops):
    repo, sh = gitops
    sh(*PRE_COMMIT, "install")
    profile = repo / "profiles" / "eks-h100-mig.yaml"
    profile.write_text(profile.read_text().replace("3g.40gb: 1", "3g.40gb: 3"))
    sh("git", "add", "-A")
    blocked = sh("git", "commit", "-m", "grow the MIG layout", check=False)
    assert blocked.returncode != 0
    assert "error mig-layout-invalid nodePools[0].sharing.mig.layout: 3 x 3g.40gb exceeds the maximum of 2 on " \
           "H100-80GB" in blocked.stdout + blocked.stderr
    # A layout that fits, with its overlays rebuilt, goes through both hooks.
    profile.write_text(profile.read_text().replace("3g.40gb: 3", "3g.40gb: 1").replace("1g.10gb: 2", "1g.10gb: 1"))
    sh("git", "add", "-A")
    stale = sh("git", "commit", "-m", "smaller layout, overlays not rebuilt", check=False)
    assert stale.returncode != 0
    assert "stale: overlays/eks-h100-mig/mig-parted-config.yaml" in stale.stdout + stale.stderr
    sh(sys.executable, "-m", "gengpu", "build")
    sh("git", "add", "-A")
    sh("git", "commit", "-m", "smaller layout")


def test_unrelated_changes_check_nothing(gitops):
    repo, sh = gitops
    (repo / "notes.yaml").write_text("a: 1\n")
    result = try_repo(sh, "gengpu-overlays-up-to-date", "notes.yaml")
    assert result.returncode == 0
