"""Each hook of .pre-commit-hooks.yaml, run in process against this working tree on files it should pass and
files it should stop (check-jsonschema's acceptance-test style). pre-commit's own file selection (files, exclude,
types) is applied as pre-commit applies it; tests/test_precommit.py keeps one real pre-commit run for the wiring."""

import re
import shlex
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
HOOKS = {h["id"]: h for h in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())}


def selected(hook: dict, paths: list[str]) -> list[str]:
    """The paths pre-commit hands the hook: `files` and `exclude` are Python regexes searched in the path;
    `types: [yaml]` keeps .yaml and .yml files."""
    out = []
    for p in paths:
        if not re.search(hook.get("files", ""), p) or ("exclude" in hook and re.search(hook["exclude"], p)):
            continue
        if "yaml" in hook.get("types", []) and not p.endswith((".yaml", ".yml")):
            continue
        out.append(p)
    return out


def run_hook(run, hook_id: str, paths: list[str]):
    hook = HOOKS[hook_id]
    argv = shlex.split(hook["entry"])
    assert argv[0] == "gengpu"
    files = selected(hook, paths)
    return files, run(*argv[1:], *hook.get("args", []), *files)


def test_every_hook_is_covered_here():
    assert sorted(HOOKS) == ["gengpu-build", "gengpu-overlays-up-to-date", "gengpu-validate"]


def test_validate_passes_a_good_profile_and_skips_overlays_and_other_files(repo, run):
    (repo / "notes.md").write_text("# not yaml\n")
    files, result = run_hook(run, "gengpu-validate", ["profiles/eks-l4-mps.yaml", "overlays/eks-l4-mps/namespace.yaml",
                                                      "notes.md"])
    assert files == ["profiles/eks-l4-mps.yaml"]
    assert (result.exit_code, result.output) == (0, "gengpu: checked 1 profile(s): no findings.\n")


def test_validate_stops_a_broken_profile_at_its_line(repo, run):
    path = repo / "profiles" / "eks-l4-mps.yaml"
    path.write_text(path.read_text().replace("replicas: 4", "replicas: 99"))
    files, result = run_hook(run, "gengpu-validate", ["profiles/eks-l4-mps.yaml"])
    assert result.exit_code == 1
    assert [line for line in result.output.splitlines() if line.startswith("profiles/")] == [
        "profiles/eks-l4-mps.yaml:26:19: error mps-replicas-over-limit nodePools[0].sharing.replicas is 99; MPS on "
        "L4 allows at most 48 clients per GPU"]


def test_overlays_up_to_date_passes_a_built_repo_and_stops_a_stale_one(repo, run):
    files, result = run_hook(run, "gengpu-overlays-up-to-date", ["profiles/eks-l4-mps.yaml", "README.md"])
    assert files == ["profiles/eks-l4-mps.yaml"]
    assert (result.exit_code, result.output) == (0, "1 overlay(s) up to date.\n")
    path = repo / "profiles" / "eks-l4-mps.yaml"
    path.write_text(path.read_text().replace("replicas: 4", "replicas: 6"))
    _, stale = run_hook(run, "gengpu-overlays-up-to-date", ["profiles/eks-l4-mps.yaml"])
    assert stale.exit_code == 1
    assert "stale: overlays/eks-l4-mps/device-plugin-config.yaml" in stale.output
    # an overlay file changed by hand selects its profile
    (repo / "overlays" / "eks-l4-mps" / "namespace.yaml").write_text("apiVersion: v1\nkind: Namespace\n")
    _, edited = run_hook(run, "gengpu-overlays-up-to-date", ["overlays/eks-l4-mps/namespace.yaml"])
    assert edited.exit_code == 1 and "overlays/eks-l4-mps/namespace.yaml" in edited.output


def test_build_rewrites_what_a_changed_profile_generates_and_says_so(repo, run):
    """pre-commit fails this hook by the files it modified (its exit code stays 0); it writes only the changed
    profile's overlay."""
    path = repo / "profiles" / "eks-l4-mps.yaml"
    _, same = run_hook(run, "gengpu-build", ["profiles/eks-l4-mps.yaml"])
    assert (same.exit_code, same.output) == (0, "unchanged: overlays/eks-l4-mps/\nunchanged: argocd/\n")
    path.write_text(path.read_text().replace("replicas: 4", "replicas: 6"))
    _, changed = run_hook(run, "gengpu-build", ["profiles/eks-l4-mps.yaml"])
    assert (changed.exit_code, changed.output) == (0, "written: overlays/eks-l4-mps/\nunchanged: argocd/\n")
    assert "replicas: 6" in (repo / "overlays" / "eks-l4-mps" / "device-plugin-config.yaml").read_text()
