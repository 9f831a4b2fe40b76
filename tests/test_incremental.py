"""The content cache (.cache/gengpu/): after one profile changes, build and validate redo that cluster only, and
every run says exactly what a run without the cache says."""

import json
import os
import shutil
import time

import pytest

from gengpu.compiling import overlay
from gengpu.loading import source
from test_build import snapshot
from gengpu.checking.rules import RULES
from gengpu.checking.rules.base import examples


@pytest.fixture
def compiled(monkeypatch):
    """Names of the profiles build compiles in this process."""
    names = []
    real = overlay.compile_overlay

    def counting(profile, has_local):
        names.append(profile.name)
        return real(profile, has_local)

    monkeypatch.setattr(overlay, "compile_overlay", counting)
    return names


def bump_replicas(repo, name="eks-l4-mps", to=7):
    path = repo / "profiles" / f"{name}.yaml"
    text = path.read_text()
    assert "replicas: 4" in text
    path.write_text(text.replace("replicas: 4", f"replicas: {to}", 1))


def test_a_second_build_compiles_nothing_and_says_the_same(repo, run, compiled):
    first = run("build")
    assert first.exit_code == 0, first.output
    assert len(compiled) == 7
    compiled.clear()
    second = run("build")
    assert (second.exit_code, second.output) == (0, first.output)
    assert compiled == []
    check = run("build", "--check")
    assert (check.exit_code, check.output, compiled) == (0, "7 overlay(s) up to date.\n", [])


def test_after_one_profile_changes_only_its_cluster_is_compiled(repo, run, compiled, tmp_path_factory):
    assert run("build").exit_code == 0
    bump_replicas(repo)
    compiled.clear()
    result = run("build")
    assert result.exit_code == 0, result.output
    assert compiled == ["eks-l4-mps"]
    assert "written: overlays/eks-l4-mps/\n" in result.output and "written: argocd/\n" not in result.output
    # The same overlays as a build without the cache, from scratch.
    fresh = tmp_path_factory.mktemp("fresh")
    shutil.copytree(repo / "profiles", fresh / "profiles")
    assert run("build", "--no-cache", cwd=fresh).exit_code == 0
    assert snapshot(fresh / "overlays") == snapshot(repo / "overlays")
    assert snapshot(fresh / "argocd") == snapshot(repo / "argocd")


@pytest.mark.parametrize("wait", [0, 0.2], ids=["at-once", "later"])
def test_an_edit_of_a_generated_file_after_a_build_is_undone_as_without_the_cache(repo, run, compiled, wait):
    # At once: within a tick of the file clock, so times and size alone cannot tell; later: the times can.
    assert run("build").exit_code == 0
    target = repo / "overlays" / "eks-l4-mps" / "namespace.yaml"
    original = target.read_bytes()
    time.sleep(wait)
    with open(target, "r+b") as f:  # in place: same inode, same size
        f.write(original[:-2] + b"x\n")
    compiled.clear()
    result = run("build")
    assert compiled == ["eks-l4-mps"]
    assert "written: overlays/eks-l4-mps/\n" in result.output
    assert target.read_bytes() == original


@pytest.mark.parametrize("change", ["application-deleted", "local-added", "overlay-deleted"])
def test_a_change_to_what_a_build_wrote_rebuilds_that_cluster(repo, run, compiled, change, tmp_path_factory):
    assert run("build").exit_code == 0
    overlay = repo / "overlays" / "gke-a100-spot"
    if change == "application-deleted":
        (repo / "argocd" / "applications" / "gke-a100-spot.yaml").unlink()
    elif change == "local-added":
        (overlay / "local").mkdir()
        (overlay / "local" / "kustomization.yaml").write_text(
            "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n")
    else:
        shutil.rmtree(overlay)
    compiled.clear()
    assert run("build").exit_code == 0
    assert compiled == ["gke-a100-spot"]
    assert run("build", "--check").exit_code == 0
    reference = tmp_path_factory.mktemp("reference")
    shutil.copytree(repo, reference, dirs_exist_ok=True)
    shutil.rmtree(reference / ".cache")
    assert run("build", "--check", "--no-cache", cwd=reference).exit_code == 0


def test_check_from_the_cache_still_finds_drift(repo, run, compiled):
    assert run("build", "--check").exit_code == 0
    os.remove(repo / "overlays" / "aks-t4-timeslicing" / "namespace.yaml")
    result = run("build", "--check")
    assert result.exit_code == 1
    assert "missing: overlays/aks-t4-timeslicing/namespace.yaml" in result.output


def test_the_cache_is_safe_to_delete_or_to_corrupt(repo, run):
    first = run("build")
    assert first.exit_code == 0
    for index in (repo / ".cache" / "gengpu").glob("index-*.json"):
        index.write_text("{not json")
    assert run("build").output == first.output
    shutil.rmtree(repo / ".cache")
    assert run("build").output == first.output


@pytest.mark.parametrize("shape", ["[]", "[1, 2]", "null", '"text"', '{"files": []}', '{"version": 1, "files": [1]}',
                                   '{"version": 1, "files": {"k": {"findings": [{"line": "x"}]}}, "states": {"a": 5}}',
                                   '{"version": 2, "files": {}, "states": {}}'])
def test_a_cache_file_of_another_shape_is_a_miss_and_is_rewritten(repo, run, shape):
    """Valid JSON that is not what gengpu wrote (an older gengpu's, a hand edit) is read as nothing: every command
    answers as without a cache, and the next save writes the index anew."""
    first = run("build")
    validated = run("validate")
    cache = repo / ".cache" / "gengpu"
    files = sorted(cache.glob("*.json"))
    assert files
    for f in files:
        f.write_text(shape)
    assert run("build").output == first.output
    assert run("validate").output == validated.output
    for index in cache.glob("index-*.json"):
        assert json.loads(index.read_text())["version"] == 1


def test_git_never_sees_the_cache(repo, run):
    """A repository without a .gitignore entry: `git add -A` after a build stages no cache file."""
    import subprocess
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    assert run("build").exit_code == 0
    staged = subprocess.run(["git", "add", "-A", "--dry-run"], cwd=repo, capture_output=True, text=True,
                            check=True).stdout
    assert "overlays/" in staged and ".cache" not in staged


def test_a_partial_build_keeps_the_others_and_a_full_one_still_removes_orphans(repo, run, compiled):
    assert run("build").exit_code == 0
    bump_replicas(repo)
    compiled.clear()
    assert run("build", "profiles/eks-l4-mps.yaml").exit_code == 0
    assert compiled == ["eks-l4-mps"]
    (repo / "profiles" / "aks-t4-timeslicing.yaml").unlink()
    compiled.clear()
    result = run("build")
    assert result.exit_code == 0
    assert compiled == []
    assert "removed: overlays/aks-t4-timeslicing/" in result.output
    assert not (repo / "argocd" / "applications" / "aks-t4-timeslicing.yaml").exists()
    assert "aks-t4-timeslicing" not in (repo / "argocd" / "applications" / "kustomization.yaml").read_text()


def cases(folder, texts):
    folder.mkdir()
    for i, text in enumerate(texts):
        (folder / f"case-{i:03d}.yaml").write_text(text)


def test_findings_are_the_same_from_the_cache(run, tmp_path):
    """Every rule's case, checked without the cache, into a cold cache, and from a warm one."""
    failing = [examples(rule)["fails"] for rule in RULES]
    single = [e.files["case.yaml"] for e in failing if e.run == "validate case.yaml" and isinstance(e.files["case.yaml"], str)]
    cases(tmp_path / "profiles", [t for t in single if "kind: GPUProfile" in t])
    cases(tmp_path / "docs", [t for t in single if "kind: GPUProfile" not in t])
    outputs = []
    for args in (["--no-cache"], [], []):
        result = run("validate", "profiles", "docs", "--output", "json", "-v", *args, cwd=tmp_path)
        assert result.exit_code == 1
        outputs.append((result.stdout, result.stderr))
    assert outputs[0] == outputs[1] == outputs[2]
    found = {f["rule"] for f in json.loads(outputs[0][0])["findings"]}
    assert {"duplicate-profile-name", "object-schema"} <= found and len(found) > 60


def test_validate_of_a_profile_the_build_checked_reads_it_from_the_cache(repo, run, monkeypatch):
    assert run("build").exit_code == 0

    def refuse(*args):
        raise AssertionError("a profile the build checked was parsed again")

    monkeypatch.setattr(source, "load_bytes", refuse)
    result = run("validate", "profiles/eks-l4-mps.yaml", "profiles/gke-a100-spot.yaml")
    assert result.exit_code == 0, result.output
    assert result.stderr == "gengpu: checked 2 profile(s): no findings.\n"


def _recorded_just_now(tmp_path):
    """An index that recorded overlay a right after its one file was written."""
    from gengpu import fleet

    folder = tmp_path / "overlays" / "a"
    folder.mkdir(parents=True)
    (folder / "f.yaml").write_text("one\n")
    index = fleet.Index(fleet.Cache(root=tmp_path / "cache"), tmp_path / "overlays")
    index.record("a", "key", (folder,))
    return index, folder


def test_a_state_taken_right_after_a_write_is_trusted_only_with_the_content(tmp_path, monkeypatch):
    # A coarse file clock can leave times and size as they were after an edit within the same tick; the state
    # of files changed that recently keeps their content too, and a mismatch there means changed.
    from gengpu import fleet

    index, folder = _recorded_just_now(tmp_path)
    _, state, content = index.states["a"]
    assert content is not None  # just written: racy
    assert index.unchanged("a", "key", (folder,))
    (folder / "f.yaml").write_text("two\n")
    monkeypatch.setattr(fleet, "tree_state", lambda *paths: (state, True))  # the clock did not move
    assert not index.unchanged("a", "key", (folder,))
    assert not index.unchanged("a", "other-key", (folder,))


def test_a_racy_state_is_refreshed_once_its_files_are_old_enough(tmp_path, monkeypatch):
    # As git refreshes its index: a state kept with its content (taken right after a write) is rewritten without it
    # once the files are older than the clock's tick, so later runs stat the files and read none of them.
    from gengpu import fleet

    index, folder = _recorded_just_now(tmp_path)
    _, state, content = index.states["a"]
    assert content is not None
    index.dirty = False
    monkeypatch.setattr(fleet, "tree_state", lambda *paths: (state, False))  # the files are old enough now
    read = []
    monkeypatch.setattr(fleet, "tree_content", lambda *paths: read.append(paths) or content)
    assert index.unchanged("a", "key", (folder,))
    assert index.states["a"] == ["key", state, None] and index.dirty
    assert index.unchanged("a", "key", (folder,))
    assert len(read) == 1  # the second look trusted the state alone


def test_each_stage_keys_its_result_by_every_input_it_declares(repo, run, monkeypatch):
    """The stages own their keys (gengpu/stages.py): changing any one input of an overlay's check, or of a file's
    check, gives another key; the same inputs give the same key."""
    from pathlib import Path

    from gengpu import fleet
    from gengpu.pipeline import profiles, validate

    monkeypatch.chdir(repo)
    assert run("build").exit_code == 0
    store = fleet.Cache(root=repo / ".cache" / "gengpu")
    checks = validate.overlay_checks(store)
    overlay = Path("overlays/eks-l4-mps")
    options = ("1.33", "gengpu", b"", "kustomize v5")
    first = checks.key(overlay, *options)
    assert checks.key(overlay, *options) == first
    others = {checks.key(overlay, "1.34", *options[1:]), checks.key(overlay, options[0], "kubeconform", *options[2:]),
              checks.key(overlay, *options[:2], b"context", options[3]), checks.key(overlay, *options[:3], "v5.1"),
              checks.key(Path("overlays/eks-h100-mig"), *options)}
    profile = repo / "profiles" / "eks-l4-mps.yaml"
    profile.write_text(profile.read_text() + "# a comment\n")  # the profile's bytes
    others.add(checks.key(overlay, *options))
    (repo / "overlays" / "eks-l4-mps" / "local-note.txt").write_text("x\n")  # any file of the overlay
    others.add(checks.key(overlay, *options))
    assert first not in others and len(others) == 7

    files = profiles.file_checks(fleet.Index(store, Path("overlays")))
    source = profiles.Source.read(profile)
    (repo / "elsewhere").mkdir()
    copy = repo / "elsewhere" / "eks-l4-mps.yaml"
    copy.write_bytes(profile.read_bytes())  # the same bytes in another place (outside profiles/)
    keys = {files.key(source), files.key(source, "check"), files.key(profiles.Source.read(copy))}
    assert len(keys) == 3  # the options and the file's place are inputs
