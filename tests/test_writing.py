"""Ownership and crash safety of build: nothing of the user's is lost, whatever is in the folder and whenever the
build dies. Kills are real SIGKILLs of a separate process, at every step of the write protocol."""

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from gengpu import writing

REPO = Path(__file__).resolve().parent.parent
GENGPU = str(Path(sys.executable).parent / "gengpu")


def snapshot(folder: Path) -> dict:
    out = {}
    for top, dirs, names in os.walk(folder, followlinks=False):
        if top == str(folder):
            dirs[:] = [d for d in dirs if d != ".cache"]  # gengpu's cache, not the user's files
        for name in dirs + names:
            path = Path(top) / name
            rel = path.relative_to(folder).as_posix()
            if path.is_symlink():
                out[rel] = ("link", os.readlink(path))
            elif path.is_dir():
                out[rel] = ("dir",)
            else:
                out[rel] = ("file", path.read_bytes())
    return out


def user_state(repo: Path) -> None:
    """Things of the user's in the overlays: a local/ component holding a copy of a generated file, a note,
    an empty folder and a symlink."""
    overlay = repo / "overlays" / "eks-l4-mps"
    (overlay / "local").mkdir()
    (overlay / "local" / "kustomization.yaml").write_text(
        "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n")
    (overlay / "local" / "copy-of-namespace.yaml").write_bytes((overlay / "namespace.yaml").read_bytes())
    (overlay / "NOTES.md").write_text("why this cluster is special\n")
    (overlay / "empty").mkdir()
    (overlay / "link-to-notes").symlink_to("NOTES.md")


def mine(repo: Path) -> dict:
    overlay = repo / "overlays" / "eks-l4-mps"
    return {k: v for k, v in snapshot(overlay).items()
            if k.split("/")[0] in ("local", "NOTES.md", "empty", "link-to-notes")}


def test_local_is_never_touched_even_when_it_holds_generated_files(repo, run):
    user_state(repo)
    before = mine(repo)
    assert run("build").exit_code == 0  # local/ appears: the kustomization now lists it
    assert "- local" in (repo / "overlays/eks-l4-mps/kustomization.yaml").read_text()
    profile = repo / "profiles" / "eks-l4-mps.yaml"
    profile.write_text(profile.read_text().replace("replicas: 4", "replicas: 6"))
    assert run("build").exit_code == 0
    assert mine(repo) == before


def test_a_hand_copied_overlay_is_reported_and_left_whole(repo, run):
    import shutil

    shutil.copytree(repo / "overlays" / "eks-l4-mps", repo / "overlays" / "eks-l4-mps-custom")
    copy = repo / "overlays" / "eks-l4-mps-custom"
    before = snapshot(copy)
    result = run("build")
    assert result.exit_code == 1
    assert result.output.splitlines()[0].startswith(
        "overlays/eks-l4-mps-custom:0:0: error overlay-orphaned no profile generates eks-l4-mps-custom/ any more, "
        "and gengpu will not remove it: components/l4-mps/cronjob.yaml (edited since gengpu wrote it)")
    assert snapshot(copy) == before


def test_the_folder_of_a_deleted_profile_goes_when_it_is_all_gengpus(repo, run):
    (repo / "profiles" / "eks-l4-mps.yaml").unlink()
    result = run("build")
    assert result.exit_code == 0, result.output
    assert "removed: overlays/eks-l4-mps/" in result.output
    assert not (repo / "overlays" / "eks-l4-mps").exists()


def test_an_edited_generated_file_that_is_no_longer_wanted_is_kept(repo, run):
    verify = repo / "overlays" / "eks-h100-mig" / "verify" / "h100-mig"
    edited = verify / "kustomization.yaml"
    edited.write_text(edited.read_text() + "# my note\n")
    profile = repo / "profiles" / "eks-h100-mig.yaml"
    profile.write_text(profile.read_text().replace("verify: true", "verify: false"))
    result = run("build")
    assert result.exit_code == 0, result.output
    assert ("overlays/eks-h100-mig/verify/h100-mig/kustomization.yaml:1:1: warning generated-file-edited "
            "verify/h100-mig/kustomization.yaml is no longer generated, but gengpu leaves it: edited since gengpu "
            "wrote it") in result.output
    assert sorted(p.name for p in verify.iterdir()) == ["kustomization.yaml"]  # the intact ones went


@pytest.mark.parametrize("kind", ["symlink", "file"])
def test_an_overlay_path_that_is_no_folder_stops_the_build(repo, run, kind):
    import shutil

    target = repo / "overlays" / "eks-l4-mps"
    shutil.move(target, repo / "elsewhere")
    if kind == "symlink":
        target.symlink_to(repo / "elsewhere")
    else:
        target.write_text("not a folder\n")
    before = snapshot(repo)
    result = run("build")
    assert result.exit_code == 1
    assert (f"overlays/eks-l4-mps:1:1: error not-generated-file eks-l4-mps is a {kind}; gengpu writes only into a "
            "folder of its own") in result.output
    assert snapshot(repo) == before


def test_a_symlink_where_gengpu_writes_stops_the_build(repo, run, tmp_path):
    outside = tmp_path / "outside.yaml"
    outside.write_text("precious\n")
    target = repo / "overlays" / "eks-l4-mps" / "namespace.yaml"
    target.unlink()
    target.symlink_to(outside)
    result = run("build")
    assert result.exit_code == 1
    assert ("overlays/eks-l4-mps/namespace.yaml:1:1: error not-generated-file namespace.yaml is not a regular file or "
            "folder (a symlink?); gengpu will not write through it") in result.output
    assert outside.read_text() == "precious\n"


def test_leftovers_of_an_older_gengpu_are_restored_not_deleted(repo, run):
    """gengpu 0.1 swapped folders with two renames; killed between them, only the dot-folders were left."""
    overlays = repo / "overlays"
    (overlays / "eks-l4-mps" / "NOTES.md").write_text("mine\n")
    import shutil

    shutil.copytree(overlays / "eks-l4-mps", overlays / ".eks-l4-mps.gengpu-new")
    (overlays / "eks-l4-mps").rename(overlays / ".eks-l4-mps.gengpu-old")
    result = run("validate", "--output", "json")  # leftovers are no overlays to validate
    assert ".gengpu" not in result.output
    result = run("build")
    assert result.exit_code == 0, result.output
    assert "gengpu: restored overlays/eks-l4-mps from .eks-l4-mps.gengpu-new" in result.output
    assert (overlays / "eks-l4-mps" / "NOTES.md").read_text() == "mine\n"
    assert sorted(p.name for p in overlays.iterdir() if p.name.startswith(".")) == []


def test_a_full_disk_is_an_environment_error_and_changes_nothing(repo, run, monkeypatch):
    import errno

    def full(path, text, executable):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))

    monkeypatch.setattr(writing, "_write_new", full)
    profile = repo / "profiles" / "eks-l4-mps.yaml"
    profile.write_text(profile.read_text().replace("replicas: 4", "replicas: 6"))
    before = snapshot(repo)
    result = run("build")
    assert result.exit_code == 2
    assert result.output.endswith("No space left on device; nothing was changed\n")
    assert snapshot(repo) == before


# The write protocol, killed at each of its steps by a real SIGKILL in a child process.
KILLER = """
import os, signal, sys
from gengpu import writing
from gengpu.cli import main
step, at = sys.argv[1], int(sys.argv[2])
calls = [0]
def killing(original):
    def wrapper(*args, **kwargs):
        if calls[0] == at:
            os.kill(os.getpid(), signal.SIGKILL)
        calls[0] += 1
        return original(*args, **kwargs)
    return wrapper
if step == "write":
    writing._write_new = killing(writing._write_new)
elif step == "replace":
    writing.os.replace = killing(writing.os.replace)
else:
    writing.Path.unlink = killing(writing.Path.unlink)
sys.argv = ["gengpu", "build"]
main()
"""


def _changes(repo: Path) -> None:
    """A build with every kind of write: stale files, new files, a deleted profile's folder, dropped files."""
    for name, old, new in (("eks-l4-mps", "replicas: 4", "replicas: 6"), ("eks-h100-mig", "verify: true", "verify: false"),
                           ("aks-t4-timeslicing", "replicas: 10", "replicas: 8")):
        path = repo / "profiles" / f"{name}.yaml"
        path.write_text(path.read_text().replace(old, new))
    (repo / "profiles" / "gke-autopilot-l4.yaml").unlink()


def _expected(tmp_path: Path) -> dict:
    import shutil

    clean = tmp_path / "clean"
    shutil.copytree(REPO / "profiles", clean / "profiles")
    shutil.copytree(REPO / "overlays", clean / "overlays")
    shutil.copytree(REPO / "argocd", clean / "argocd")
    user_state(clean)
    _changes(clean)
    subprocess.run([GENGPU, "build"], cwd=clean, check=True, capture_output=True)
    return snapshot(clean)


@pytest.mark.parametrize("step", ["write", "replace", "unlink"])
def test_a_build_killed_at_any_step_loses_nothing(repo, tmp_path_factory, step):
    expected = _expected(tmp_path_factory.mktemp("expected"))
    scratch = tmp_path_factory.mktemp("killed")
    user_state(repo)
    _changes(repo)
    pristine = {p: p.read_bytes() for p in sorted((repo / "profiles").glob("*.yaml"))}
    env = {**os.environ, "PYTHONPATH": ""}
    killed_at = []
    for at in range(0, 200):
        work = scratch / f"k{at}"
        import shutil

        shutil.copytree(repo, work, symlinks=True)
        proc = subprocess.run([sys.executable, "-c", KILLER, step, str(at)], cwd=work, capture_output=True, env=env)
        if proc.returncode != -signal.SIGKILL:
            assert proc.returncode == 0, proc.stderr
            break  # the build ran past its last step of this kind
        killed_at.append(at)
        after = subprocess.run([GENGPU, "build"], cwd=work, capture_output=True, text=True)
        assert after.returncode == 0, after.stderr
        assert snapshot(work) == expected, f"killed at {step} #{at}"
        assert {p.name: p.read_bytes() for p in sorted((work / "profiles").glob("*.yaml"))} == \
            {p.name: b for p, b in pristine.items()}
        shutil.rmtree(work)
    assert len(killed_at) >= 3, killed_at  # the build really was killed at several points


def test_an_interrupted_build_is_reported_until_the_next_build_finishes_it(repo):
    user_state(repo)
    _changes(repo)
    proc = subprocess.run([sys.executable, "-c", KILLER, "replace", "3"], cwd=repo, capture_output=True)
    assert proc.returncode == -signal.SIGKILL
    check = subprocess.run([GENGPU, "build", "--check"], cwd=repo, capture_output=True, text=True)
    assert check.returncode == 1
    assert check.stderr.startswith("overlays/.gengpu-journal:0:0: error build-interrupted a build was killed while it "
                                   "wrote overlays/; they may be part old, part new\n")
    validate = subprocess.run([GENGPU, "validate", "--output", "json"], cwd=repo, capture_output=True, text=True)
    assert '"rule": "build-interrupted"' in validate.stdout
    build = subprocess.run([GENGPU, "build"], cwd=repo, capture_output=True, text=True)
    assert build.returncode == 0
    assert build.stderr == "gengpu: finished the writes of an interrupted build\n"
    assert not (repo / "overlays" / writing.JOURNAL).exists()
    assert subprocess.run([GENGPU, "build", "--check"], cwd=repo, capture_output=True).returncode == 0


@pytest.mark.parametrize("text,generated", [
    ("# Generated by gengpu from profiles/a.yaml.\nkind: X\n", True),
    ("#!/usr/bin/env bash\n# Generated by gengpu from profiles/a.yaml.\nset -e\n", True),
    ("# my notes\n# Generated by gengpu from profiles/a.yaml.\n", False),  # a user's copy with a comment on top
    ("kind: X\n# Generated by gengpu from profiles/a.yaml.\n", False),
    ("#!/usr/bin/env bash\necho hi\n# Generated by gengpu from profiles/a.yaml.\n", False),
    (" # Generated by gengpu from profiles/a.yaml.\n", False),
])
def test_only_a_header_that_opens_the_file_makes_it_gengpus(text, generated):
    """Ownership is what keeps user files safe: the header counts only as the first line (or after #!)."""
    from gengpu.headers import is_generated

    assert is_generated(text) is generated


def test_the_check_diff_names_new_changed_and_removed_files_as_git_does(tmp_path):
    from gengpu import writing
    from gengpu.headers import header

    top = header("profiles/c.yaml")
    first = writing.plan_overlay(tmp_path, "c", {"keep.yaml": top + "a: 1\n", "old.yaml": top + "b: 1\n"})
    writing.apply([first], tmp_path, tmp_path / ".cache")
    plan = writing.plan_overlay(tmp_path, "c", {"keep.yaml": top + "a: 2\n", "new.yaml": top + "c: 1\n"})
    assert (plan.missing, plan.stale, plan.extra) == (["new.yaml"], ["keep.yaml"], ["old.yaml"])
    out = writing.diff(plan, "overlays")
    assert out.startswith("--- a/overlays/c/keep.yaml\n+++ b/overlays/c/keep.yaml\n")
    assert "--- /dev/null\n+++ b/overlays/c/new.yaml\n@@ -0,0 +1," in out
    assert "--- a/overlays/c/old.yaml\n+++ /dev/null\n@@ -1," in out and "-b: 1\n" in out
    assert "+c: 1\n" in out and "-a: 1\n" in out and "+a: 2\n" in out
    assert out.index("keep.yaml") < out.index("new.yaml") < out.index("old.yaml")

    def lines(chunk, sign):
        return [line for line in chunk.splitlines() if line.startswith(sign) and not line.startswith(sign * 3)]

    new_chunk, old_chunk = out[out.index("--- /dev/null"):out.index("--- a/overlays/c/old.yaml")], \
        out[out.index("--- a/overlays/c/old.yaml"):]
    assert lines(new_chunk, "-") == [] and lines(old_chunk, "+") == []  # nothing removed from a new file, or added
    assert lines(new_chunk, "+") == ["+" + line for line in plan.desired["new.yaml"].splitlines()]


def test_an_interrupted_preparation_is_undone_and_leaves_the_users_files(tmp_path):
    """A journal in the prepare state (a build killed before its commit point): temporary files go, folders the
    build created go when empty, a folder that now holds a file of the user's stays, the journal goes."""
    from gengpu import writing

    journal_dir = tmp_path / ".cache"
    journal_dir.mkdir()
    (tmp_path / "overlays" / "new" / "components" / "deep").mkdir(parents=True)
    tmp = tmp_path / "overlays" / "new" / "components" / "deep" / ("x.yaml" + writing.TMP_SUFFIX)
    tmp.write_text("half")
    (tmp_path / "overlays" / "mine").mkdir()
    (tmp_path / "overlays" / "mine" / "notes.md").write_text("the user's")
    (journal_dir / writing.JOURNAL).write_text(json.dumps({
        "state": "prepare", "renames": [[tmp.relative_to(tmp_path).as_posix(), "overlays/new/components/deep/x.yaml"]],
        "created": ["overlays/new", "overlays/new/components", "overlays/new/components/deep", "overlays/mine"]}))
    assert writing.interrupted(journal_dir)
    assert writing.recover(tmp_path, journal_dir) == ["undid the preparations of an interrupted build"]
    assert not (tmp_path / "overlays" / "new").exists()
    assert (tmp_path / "overlays" / "mine" / "notes.md").read_text() == "the user's"
    assert not writing.interrupted(journal_dir)
    # a journal that does not parse is rolled back too (nothing to undo), and removed
    (journal_dir / writing.JOURNAL).write_text("{half")
    assert writing.recover(tmp_path, journal_dir) == ["undid the preparations of an interrupted build"]
    assert not (journal_dir / writing.JOURNAL).exists()
