"""The pre-commit hook over whole public repositories: every YAML file of the twelve repositories of tests/sweep (Flux's
and Argo CD's example repositories, vLLM's production-stack, NVIDIA's DRA driver, NIM operator and NIM deploy, an AI
cluster, three homelabs, kubeflow/manifests), each at one commit, handed to `gengpu validate` exactly as pre-commit
hands it (scripts/sweep: identify's yaml type, the hook's exclude, pre-commit's own batches).

tests/sweep/verdicts.yaml holds what upstream says of the findings: the right ones, each with its reason, decided
before gengpu knew what a file is. The hook must report every one of them and nothing else that is a warning or an
error: a false alarm in a repository's files fails here.
"""

import hashlib
import json
import subprocess
import sys
import tarfile
from collections import Counter
from pathlib import Path

import pytest
import yaml

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SWEEP = HERE / "sweep"
REPOSITORIES = yaml.safe_load((SWEEP / "sweep.yaml").read_text())["repositories"]
RIGHT = yaml.safe_load((SWEEP / "verdicts.yaml").read_text())["right"]


@pytest.fixture(scope="session")
def checkouts(tmp_path_factory):
    """Each repository unpacked as a checkout of its own (no .git: the repository's root is where the hook runs)."""
    where = tmp_path_factory.mktemp("sweep")
    out = {}
    for repo in REPOSITORIES:
        archive = SWEEP / "repos" / f"{repo['name']}.tar.gz"
        assert hashlib.sha256(archive.read_bytes()).hexdigest() == repo["sha256"], archive.name
        folder = where / repo["name"]
        folder.mkdir()
        with tarfile.open(archive) as tar:
            tar.extractall(folder, filter="data")
        out[repo["name"]] = folder
    return out


def sweep(folder: Path) -> list[dict]:
    """The hook's findings on one checkout, as scripts/sweep runs it."""
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "sweep"), str(folder)], capture_output=True,
                          text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout)


def expected(name: str) -> list[tuple]:
    return [(e["file"], f["rule"], f["line"], f.get("message")) for e in RIGHT if e["repo"] == name
            for f in e["findings"]]


@pytest.mark.parametrize("repo", [r["name"] for r in REPOSITORIES])
def test_the_hook_on_a_whole_repository_says_only_what_upstream_says(checkouts, repo, capsys):
    found = sweep(checkouts[repo])
    assert not [f for f in found if f["rule"] == "sweep-crash"], found
    judged = [f for f in found if f["severity"] != "info"]
    right = expected(repo)
    false = [f"{f['file']}:{f['line']} {f['rule']} {f['message']}" for f in judged
             if not any(f["file"] == file and f["rule"] == rule and f["line"] == line and (not text or text in
                        f["message"]) for file, rule, line, text in right)]
    missed = [r for r in right if not any(f["file"] == r[0] and f["rule"] == r[1] and f["line"] == r[2] and
                                          (not r[3] or r[3] in f["message"]) for f in judged)]
    files = next(r["hookFiles"] for r in REPOSITORIES if r["name"] == repo)
    with capsys.disabled():
        print(f"\n{repo}: {files} files, {len(judged)} errors and warnings, {len(false)} false, "
              f"{len(right) - len(missed)} of {len(right)} right ones found")
    assert false == [] and missed == []


def test_the_corpus_is_whole_repositories_with_their_provenance():
    assert len(REPOSITORIES) >= 6
    for repo in REPOSITORIES:
        assert len(repo["commit"]) == 40 and repo["repo"].count("/") == 1 and repo["hookFiles"] >= 20
        with tarfile.open(SWEEP / "repos" / f"{repo['name']}.tar.gz") as tar:
            names = tar.getnames()
        assert len(names) == repo["files"]
    kinds = Counter(e["repo"] for e in RIGHT)
    assert all(e["why"] and e["findings"] for e in RIGHT)
    assert set(kinds) <= {r["name"] for r in REPOSITORIES}
