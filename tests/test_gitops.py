"""The GitOps workflow: init scaffolds, the CI jobs, and the user's extension point in an overlay."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parent.parent
BIN = REPO / "bin"
GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com"}
CHECK_JSONSCHEMA = [sys.executable, "-m", "check_jsonschema"]


def test_workflows_match_the_github_workflow_schema(tmp_path, run):
    assert run("init", str(tmp_path / "repo"), "--platform", "eks", "--gpu", "T4").exit_code == 0
    files = [REPO / ".github" / "workflows" / "ci.yaml", REPO / ".github" / "workflows" / "gengpu-lint.yaml",
             tmp_path / "repo" / ".github" / "workflows" / "gpu-lint.yaml"]
    proc = subprocess.run([*CHECK_JSONSCHEMA, "--builtin-schema", "vendor.github-workflows", *map(str, files)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lint = yaml.safe_load(files[1].read_text())
    steps = [s.get("run", s.get("uses")) for s in lint["jobs"]["lint"]["steps"]]
    assert 'gengpu build --check --shard "$SHARD"' in steps
    assert 'gengpu validate --output github --shard "$SHARD"' in steps
    assert lint["jobs"]["lint"]["strategy"]["matrix"]["shard"] == "${{ fromJSON(needs.plan.outputs.shards) }}"
    # The plan job's matrix, as the runner's bash runs it.
    matrix = lint["jobs"]["plan"]["steps"][0]["run"].replace("${{ inputs.shards }}", "4")
    out = tmp_path / "github-output"
    subprocess.run(["bash", "-c", matrix], env={**os.environ, "GITHUB_OUTPUT": str(out)}, check=True)
    assert out.read_text() == "shards=[1, 2, 3, 4]\n"
    assert "github/codeql-action/upload-sarif@dd903d2e4f5405488e5ef1422510ee31c8b32357" in steps
    # every action by commit, not by a tag that can move
    assert all(re.match(r".+@[0-9a-f]{40}$", s["uses"]) for s in lint["jobs"]["lint"]["steps"] if "uses" in s)
    # after the stale-overlay check fails, findings and the diff still reach the reviewer
    after_check = lint["jobs"]["lint"]["steps"][[s.get("run") for s in lint["jobs"]["lint"]["steps"]].index(
        'gengpu build --check --shard "$SHARD"') + 1:]
    assert all("!cancelled()" in s["if"] for s in after_check), [s.get("name") for s in after_check]
    caller = yaml.safe_load(files[2].read_text())
    assert caller["jobs"]["gengpu"]["uses"] == "gengpu/gengpu/.github/workflows/gengpu-lint.yaml@v0.1.0"


def test_the_action_matches_the_github_action_schema():
    """action.yml, for `uses: gengpu/gengpu@<release>` as a step: inputs reach the commands through env only."""
    action = REPO / "action.yml"
    proc = subprocess.run([*CHECK_JSONSCHEMA, "--builtin-schema", "vendor.github-actions", str(action)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    steps = yaml.safe_load(action.read_text())["runs"]["steps"]
    assert [s["run"] for s in steps[1:]] == ['gengpu build --check --shard "$SHARD"',
                                             'gengpu validate --output "$OUTPUT" --shard "$SHARD"']
    assert all("${{" not in s["run"] for s in steps)  # no expression pasted into a shell


def test_gitlab_example_matches_the_gitlab_ci_schema():
    proc = subprocess.run([*CHECK_JSONSCHEMA, "--builtin-schema", "vendor.gitlab-ci",
                           str(REPO / "examples" / "gitlab-ci.yml")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory):
    return tmp_path_factory.mktemp("pre-commit-home")


@pytest.mark.parametrize("platform,gpu,sharing", [
    ("eks", "A10G", "time-slicing"), ("gke", "L4", "mps"), ("gke-autopilot", "T4", "none"),
    ("aks", "A100-80GB", "mig")])
def test_init_then_the_scaffolds_own_hooks_pass(tmp_path, run, pre_commit_home, platform, gpu, sharing):
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True).stdout.strip()
    target = tmp_path / f"gitops-{platform}"
    result = run("init", str(target), "--platform", platform, "--gpu", gpu, "--sharing", sharing,
                 "--hooks-repo", str(REPO), "--hooks-rev", head)
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-1] == ("Next: git init && pre-commit install && git add -A && "
                                              "git commit -m 'GPU GitOps'")
    profile = (target / "profiles" / f"gitops-{platform}.yaml").read_text()
    assert profile.startswith("# yaml-language-server: $schema=../schemas/profile.schema.json\n")
    env = {**os.environ, **GIT_ENV, "PRE_COMMIT_HOME": str(pre_commit_home),
           "GENGPU_KUSTOMIZE": str(BIN / "kustomize"), "GENGPU_KUBECONFORM": str(BIN / "kubeconform")}
    assert_hooks_pass(target, env)
    full = subprocess.run([sys.executable, "-m", "gengpu", "validate"], cwd=target, env=env, capture_output=True,
                          text=True)
    assert full.returncode == 0, full.stdout + full.stderr


def test_init_asks_in_a_terminal(tmp_path, run, monkeypatch):
    monkeypatch.setattr("gengpu.cli.repository._stdin_is_terminal", lambda: True)
    from click.testing import CliRunner

    from gengpu.cli import main

    # an alias the prompt must take as --gpu does (a first answer that is no GPU of AKS is asked again),
    # how GPU metrics reach Prometheus, then the region and the repository URL Argo CD syncs
    answers = "aks\nL4\nt4\ntime-slicing\n6\nscrape-config\nwesteurope\nhttps://git.example.org/gpu.git\n"
    result = CliRunner().invoke(main, ["init", str(tmp_path / "asked")], input=answers, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    profile = yaml.safe_load((tmp_path / "asked" / "profiles" / "asked.yaml").read_text())
    pool = profile["spec"]["nodePools"][0]
    assert (profile["spec"]["platform"], pool["gpu"], pool["instanceTypes"], pool["sharing"]["replicas"]) == (
        "aks", "T4", ["Standard_NC4as_T4_v3"], 6)
    assert (profile["spec"]["region"], profile["spec"]["argocd"]["repoURL"]) == (
        "westeurope", "https://git.example.org/gpu.git")
    assert profile["spec"]["monitoring"] == {"mode": "scrape-config"}
    prompt = next(line for line in result.output.splitlines() if line.startswith("GPU model"))
    assert prompt.count("T4") == 1  # the choices are listed once
    assert "L4 is not a GPU aks offers" in result.output
    assert "placeholder" not in result.output


def test_init_asks_for_a_mig_layout(tmp_path, monkeypatch):
    monkeypatch.setattr("gengpu.cli.repository._stdin_is_terminal", lambda: True)
    from click.testing import CliRunner

    from gengpu.cli import main

    answers = "eks\nA100-40GB\nmig\nall-3g.20gb\n\n\nhttps://git.example.org/gpu.git\n"
    result = CliRunner().invoke(main, ["init", str(tmp_path / "mig")], input=answers, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    pool = yaml.safe_load((tmp_path / "mig" / "profiles" / "mig.yaml").read_text())["spec"]["nodePools"][0]
    assert pool["sharing"]["mig"] == {"strategy": "mixed", "preset": "all-3g.20gb"}


def test_init_follows_the_branch_git_made(tmp_path, run):
    """A repository whose branch is master (git's default here) gets an Argo CD revision of master."""
    target = tmp_path / "on-master"
    target.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "master"], cwd=target, check=True)
    assert run("init", str(target), "--platform", "eks", "--gpu", "L4").exit_code == 0
    profile = yaml.safe_load((target / "profiles" / "on-master.yaml").read_text())
    assert profile["spec"]["argocd"]["revision"] == "master"


def test_init_never_overwrites(tmp_path, run):
    (tmp_path / "README.md").write_text("mine\n")
    result = run("init", str(tmp_path), "--platform", "eks", "--gpu", "T4")
    assert result.exit_code == 2
    assert "already has README.md" in result.output
    assert (tmp_path / "README.md").read_text() == "mine\n"
    assert not (tmp_path / "profiles").exists()


def test_init_refuses_a_gpu_the_platform_lacks(tmp_path, run):
    result = run("init", str(tmp_path), "--platform", "gke", "--gpu", "A10G")
    assert result.exit_code == 2
    assert result.output.startswith("gengpu: error: gke offers no A10G; choose one of A100-40GB, ")


def test_the_local_component_is_the_users_extension_point(repo, run):
    local = repo / "overlays" / "eks-l4-mps" / "local"
    local.mkdir()
    (local / "kustomization.yaml").write_text(
        "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\npatches:\n  - target: {kind: Namespace}\n"
        "    patch: |-\n      apiVersion: v1\n      kind: Namespace\n      metadata:\n        name: any\n"
        "        labels:\n          team: ml-platform\n")
    assert run("build").exit_code == 0
    kustomization = yaml.safe_load((repo / "overlays" / "eks-l4-mps" / "kustomization.yaml").read_text())
    assert kustomization["components"] == ["local"]
    rendered = subprocess.run([str(BIN / "kustomize"), "build", str(repo / "overlays" / "eks-l4-mps")],
                              capture_output=True, text=True, check=True).stdout
    namespace = next(d for d in yaml.safe_load_all(rendered) if d["kind"] == "Namespace")
    assert namespace["metadata"]["labels"]["team"] == "ml-platform"
    profile = repo / "profiles" / "eks-l4-mps.yaml"
    profile.write_text(profile.read_text().replace("replicas: 4", "replicas: 8"))
    assert run("build").exit_code == 0
    assert (local / "kustomization.yaml").read_text().endswith("team: ml-platform\n")
    assert run("validate", "overlays/eks-l4-mps").exit_code == 0


MATRIX = [(p, g, s) for p in ("eks", "aks", "gke", "gke-autopilot") for g in ("T4", "L4", "A100-80GB", "H100-80GB")
          for s in ("none", "time-slicing", "mps", "mig")]


@pytest.mark.parametrize("platform,gpu,sharing", MATRIX, ids=["-".join(m) for m in MATRIX])
def test_init_writes_a_repo_that_passes_its_checks_or_nothing(tmp_path, run, platform, gpu, sharing):
    """Every platform x GPU x sharing mode: a repository whose validate finds no error, or no file at all."""
    result = run("init", "Über-cluster", "--platform", platform, "--gpu", gpu, "--sharing", sharing,
                 "--repo-url", "https://github.com/example/gpu.git", cwd=tmp_path)
    target = tmp_path / "Über-cluster"
    if result.exit_code != 0:
        assert result.exit_code == 2, result.output
        assert not target.exists() or not any(target.iterdir()), result.output
        last = result.output.strip().splitlines()[-1]
        # says why, and what to choose instead or that nothing was written
        assert last.startswith("gengpu: error: ") and ("choose" in last or "nothing was written" in last), last
        return
    checked = run("validate", "--output", "json", cwd=target)
    errors = [f for f in json.loads(checked.output)["findings"] if f["severity"] == "error"]
    assert errors == []


def test_a_scaffold_pins_the_release_that_wrote_it_and_works_against_it(tmp_path, run, pre_commit_home):
    """init pins v<version> of the gengpu that runs it; against a clone tagged as a release is cut
    (README, Releases), the scaffold's first commit passes its own hooks."""
    from gengpu import __version__

    release = tmp_path / "gengpu-release"
    subprocess.run(["git", "clone", "-q", str(REPO), str(release)], check=True)
    subprocess.run(["git", "tag", f"v{__version__}"], cwd=release, check=True, env={**os.environ, **GIT_ENV})
    target = tmp_path / "gitops"
    result = run("init", str(target), "--platform", "eks", "--gpu", "L4", "--hooks-repo", str(release))
    assert result.exit_code == 0, result.output
    config = yaml.safe_load((target / ".pre-commit-config.yaml").read_text())
    assert config["repos"][0]["rev"] == f"v{__version__}"
    env = {**os.environ, **GIT_ENV, "PRE_COMMIT_HOME": str(pre_commit_home)}
    assert_hooks_pass(target, env)


def assert_hooks_pass(target, env):
    """git init and stage the scaffold, then run its own pre-commit hooks on every file: they pass."""
    for cmd in (["git", "init", "-q"], ["git", "add", "-A"]):
        subprocess.run(cmd, cwd=target, check=True, env=env)
    hooks = subprocess.run([sys.executable, "-m", "pre_commit", "run", "--all-files"], cwd=target, env=env,
                           capture_output=True, text=True)
    assert hooks.returncode == 0, hooks.stdout + hooks.stderr
    assert "gengpu validate" in hooks.stdout and "Passed" in hooks.stdout


def test_init_says_which_monitoring_it_picked_and_input_ending_at_a_question_is_no_internal_error(tmp_path, run,
                                                                                                   monkeypatch):
    result = run("init", str(tmp_path / "picked"), "--platform", "eks", "--gpu", "L4")
    assert result.exit_code == 0, result.output
    assert ("note: GPU metrics reach Prometheus through a Prometheus Operator ServiceMonitor; for a plain Prometheus "
            "use --monitoring scrape-config (or set spec.monitoring.mode)") in result.output
    chosen = run("init", str(tmp_path / "told"), "--platform", "eks", "--gpu", "L4", "--monitoring", "scrape-config")
    assert chosen.exit_code == 0 and "ServiceMonitor" not in chosen.output
    profile = yaml.safe_load((tmp_path / "told" / "profiles" / "told.yaml").read_text())
    assert profile["spec"]["monitoring"] == {"mode": "scrape-config"}
    assert "kind: ServiceMonitor" not in (tmp_path / "told" / "overlays" / "told" / "monitoring.yaml").read_text()

    monkeypatch.setattr("gengpu.cli.repository._stdin_is_terminal", lambda: True)
    from click.testing import CliRunner

    from gengpu.cli import main

    ended = CliRunner().invoke(main, ["init", str(tmp_path / "ended")], input="eks\nL4\n")
    assert ended.exit_code == 130 and "gengpu: aborted" in ended.output and "internal error" not in ended.output
    assert not (tmp_path / "ended").exists()
