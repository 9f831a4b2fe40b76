"""A fleet split over a CI matrix (--shard I/N) and progress on a terminal."""

import json
import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import pytest

GENGPU = str(Path(sys.executable).parent / "gengpu")
CLUSTERS = ["aks-t4-timeslicing", "eks-h100-mig", "eks-l4-mps", "eks-spot-ondemand", "gke-a100-spot", "gke-autopilot-l4",
            "gke-dra"]


def counts(summary: str) -> dict:
    return {what: int(n) for n, what in re.findall(r"(\d+) (profile|rendered kustomization|Argo CD manifest)",
                                                   summary)}


def test_validate_shards_cover_the_fleet_once(repo, run):
    whole = run("validate", "--no-cache")
    assert whole.exit_code == 0, whole.output
    parts = [run("validate", "--no-cache", "--shard", f"{i}/3") for i in (1, 2, 3)]
    assert all(p.exit_code == 0 for p in parts)
    total = {}
    for part in parts:
        for what, n in counts(part.stderr).items():
            total[what] = total.get(what, 0) + n
    assert total == counts(whole.stderr)
    assert sum(bool(counts(p.stderr)) for p in parts) >= 2  # the work really is split


def test_a_finding_turns_up_in_exactly_one_shard(repo, run):
    target = repo / "overlays" / "gke-a100-spot" / "namespace.yaml"
    target.write_text(target.read_text().replace("kind: Namespace", "kind: Namespace\nspec:\n  bogus: 1"))
    hits = []
    for i in (1, 2, 3):
        result = run("validate", "overlays/gke-a100-spot", "--output", "json", "--shard", f"{i}/3")
        hits += [f["rule"] for f in json.loads(result.stdout)["findings"]]
    # Paths given on the command line are checked whatever the shard: the shard splits the default fleet.
    assert hits.count("object-schema") == 3
    hits = []
    for i in (1, 2, 3):
        result = run("validate", "--output", "json", "--shard", f"{i}/3", "--no-cache")
        hits += [f["rule"] for f in json.loads(result.stdout)["findings"]]
    assert hits.count("object-schema") == 1


def test_build_check_shards_cover_the_fleet_once(repo, run):
    os.remove(repo / "overlays" / "eks-l4-mps" / "namespace.yaml")
    results = [run("build", "--check", "--shard", f"{i}/4") for i in (1, 2, 3, 4)]
    stale = [r for r in results if r.exit_code == 1]
    assert len(stale) == 1 and "missing: overlays/eks-l4-mps/namespace.yaml" in stale[0].output
    up_to_date = sum(int(m) for r in results for m in re.findall(r"^(\d+) overlay\(s\) up to date", r.output, re.M))
    assert up_to_date == len(CLUSTERS) - 1


def test_a_duplicate_name_is_found_whichever_shard_holds_the_other_file(repo, run):
    text = (repo / "profiles" / "eks-l4-mps.yaml").read_text()
    (repo / "profiles" / "zz-copy.yaml").write_text(text)
    found = [r for r in (run("build", "--check", "--shard", f"{i}/4") for i in (1, 2, 3, 4))
             if "duplicate-profile-name" in r.output]
    assert len(found) == 1
    assert "profiles/zz-copy.yaml:6:9: error duplicate-profile-name metadata.name 'eks-l4-mps' is also used by " \
           "profiles/eks-l4-mps.yaml\n  fix: Give every profile its own name.\n" in found[0].output


@pytest.mark.parametrize("value", ["0/3", "4/3", "x", "1/0", "2"])
def test_a_shard_that_is_not_i_of_n_is_a_usage_error(repo, run, value):
    result = run("validate", "--shard", value)
    assert result.exit_code == 2
    assert f"'{value}' is not I/N with 1 <= I <= N (for example 2/4)" in result.output


def test_build_shards_only_a_check(repo, run):
    result = run("build", "--shard", "1/2")
    assert result.exit_code == 2
    assert "--shard splits the work of `build --check`" in result.output


def on_a_terminal(args, cwd) -> str:
    """stderr of gengpu run with a terminal as its stderr."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen([GENGPU, *args], cwd=cwd, stdout=subprocess.DEVNULL, stderr=follower,
                            env={**os.environ, "GENGPU_NO_CACHE": "1"})
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    proc.wait()
    os.close(leader)
    return b"".join(chunks).decode()


def test_progress_shows_on_a_terminal_and_quiet_turns_it_off(repo):
    shown = on_a_terminal(["validate"], repo)
    assert "\rgengpu: checked 1/" in shown and " overlays" in shown
    quiet = on_a_terminal(["validate", "-q"], repo)
    assert "gengpu: checked" not in quiet
    assert on_a_terminal(["build", "--check", "-q"], repo) == ""


def test_gengpu_jobs_sets_the_default_process_count(monkeypatch):
    from gengpu import fleet

    monkeypatch.setenv("GENGPU_JOBS", "3")
    assert fleet.default_jobs() == 3
    monkeypatch.setenv("GENGPU_JOBS", "")  # (set empty: as unset)
    assert fleet.default_jobs() == len(os.sched_getaffinity(0))
    from gengpu.findings import UsageError

    for bad in ("0", "two", "²", "2000"):  # (ignored before issue 50: a typo silently ran on every core)
        monkeypatch.setenv("GENGPU_JOBS", bad)
        with pytest.raises(UsageError, match=r"^GENGPU_JOBS=.*: give a whole number of processes from 1 to 1024"):
            fleet.default_jobs()
