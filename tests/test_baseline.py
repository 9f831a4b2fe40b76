"""A baseline of accepted findings: write it, pass, move lines and reformat, pass, add a finding, fail with only that
one; fixed findings are reported as removable; the repository's .gengpu.yaml applies it without a flag."""

import json
import shutil
from pathlib import Path

import pytest

from gengpu import baseline, reporting
from gengpu.findings import Finding

REPO = Path(__file__).resolve().parent.parent
EXPORTER = """apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: dcgm-exporter
spec:
  selector:
    matchLabels: {app: dcgm-exporter}
  template:
    metadata:
      labels: {app: dcgm-exporter}
    spec:
      containers:
        - name: exporter
          image: nvcr.io/nvidia/k8s/dcgm-exporter:4.5.2-4.8.1-distroless
"""
# a rule that reads the exporter's pod label: what makes the exporter's missing pod labels a warning, not advice
ALERTS = """apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata:
  name: gpu-per-pod
spec:
  groups:
    - name: gpu
      rules:
        - alert: GPUIdleInPod
          expr: avg by (namespace, pod) (DCGM_FI_DEV_GPU_UTIL) < 5
"""
PLUGIN = """version: v1
sharing:
  timeSlicing:
    resources:
      - name: nvidia.com/gpu
        replicas: 1
"""


@pytest.fixture
def old(tmp_path):
    """A repository with findings older than gengpu: two warnings on a hand-written exporter, an error in a config."""
    shutil.copytree(REPO / "profiles", tmp_path / "profiles")
    (tmp_path / "manifests").mkdir()
    (tmp_path / "manifests" / "dcgm.yaml").write_text(EXPORTER)
    (tmp_path / "manifests" / "plugin.yaml").write_text(PLUGIN)
    (tmp_path / "manifests" / "alerts.yaml").write_text(ALERTS)
    return tmp_path


def _validate(run, where, *args):
    result = run("validate", "profiles", "manifests", "--output", "json", *args, cwd=where)
    assert result.exit_code in (0, 1), result.output
    return result.exit_code, [(f["file"], f["rule"]) for f in json.loads(result.stdout)["findings"]]


def test_write_pass_move_pass_add_fail_with_only_the_new_one(run, old):
    before = _validate(run, old)
    assert before == (1, [("manifests/dcgm.yaml", "dcgm-exporter-no-node-name"),
                          ("manifests/dcgm.yaml", "dcgm-exporter-no-pod-labels"),
                          ("manifests/plugin.yaml", "sharing-replicas-too-low")])
    written = run("validate", "profiles", "manifests", "--write-baseline", ".gengpu-baseline.json", cwd=old)
    assert written.exit_code == 0
    assert written.stderr == ("gengpu: wrote .gengpu-baseline.json: 3 finding(s) accepted; commit it, and set "
                              "`baseline: .gengpu-baseline.json` in .gengpu.yaml for the hooks and CI.\n")
    entries = json.loads((old / ".gengpu-baseline.json").read_text())["findings"]
    assert [(e["file"], e["rule"], e["count"]) for e in entries] == [
        ("manifests/dcgm.yaml", "dcgm-exporter-no-node-name", 1), ("manifests/dcgm.yaml", "dcgm-exporter-no-pod-labels", 1),
        ("manifests/plugin.yaml", "sharing-replicas-too-low", 1)]
    (old / ".gengpu.yaml").write_text("baseline: .gengpu-baseline.json\n")
    assert _validate(run, old) == (0, [(".gengpu-baseline.json", "baseline-accepted")])
    # lines moved, the config rewritten in flow style: the same findings, still accepted
    (old / "manifests" / "dcgm.yaml").write_text("# the exporter, by hand\n\n" + EXPORTER)
    (old / "manifests" / "plugin.yaml").write_text(
        "version: v1\nsharing: {timeSlicing: {resources: [{name: nvidia.com/gpu, replicas: 1}]}}\n")
    assert _validate(run, old) == (0, [(".gengpu-baseline.json", "baseline-accepted")])
    # a new mistake: it alone is reported, and it fails (a warning too: against a baseline every new finding fails)
    profile = old / "profiles" / "eks-l4-mps.yaml"
    profile.write_text(profile.read_text().replace("      limits:\n        gpus: 8\n", ""))
    code, found = _validate(run, old)
    assert code == 1
    assert found == [("profiles/eks-l4-mps.yaml", "pool-unbounded"), (".gengpu-baseline.json", "baseline-accepted")]
    # --no-baseline shows everything
    assert len(_validate(run, old, "--no-baseline")[1]) == 4


def test_a_fixed_finding_is_reported_removable_but_only_where_gengpu_looked(run, old):
    run("validate", "profiles", "manifests", "--write-baseline", "base.json", cwd=old)
    (old / "manifests" / "plugin.yaml").write_text(PLUGIN.replace("replicas: 1", "replicas: 2"))
    result = run("validate", "profiles", "manifests", "--baseline", "base.json", cwd=old)
    assert result.exit_code == 0
    assert result.stdout.splitlines()[2] == (
        "base.json:4:3: info baseline-stale sharing-replicas-too-low in manifests/plugin.yaml (device-plugin-config: "
        "sharing.timeSlicing.resources[0].replicas is 1; the plugin needs 2 or more and refuses the whole config) no "
        "longer occurs: remove the entry")
    # a run over other files (a pre-commit hook on one file) judges no entry of the files it did not read
    alone = run("validate", "manifests/dcgm.yaml", "--baseline", "base.json", "--output", "json", cwd=old)
    assert [f["rule"] for f in json.loads(alone.stdout)["findings"]] == ["baseline-accepted"]


def test_a_finding_twice_is_accepted_twice_and_a_third_is_new(run, tmp_path):
    """The same exporter written out twice (documents of one file): the same two findings twice, counted."""
    (tmp_path / "dcgm.yaml").write_text(EXPORTER + "---\n" + EXPORTER)
    run("validate", "dcgm.yaml", "--write-baseline", "b.json", cwd=tmp_path)
    assert [e["count"] for e in json.loads((tmp_path / "b.json").read_text())["findings"]] == [2, 2]
    (tmp_path / "dcgm.yaml").write_text(EXPORTER + "---\n" + EXPORTER + "---\n" + EXPORTER)
    result = run("validate", "dcgm.yaml", "--baseline", "b.json", "--output", "json", cwd=tmp_path)
    found = json.loads(result.stdout)["findings"]
    assert result.exit_code == 1
    assert [(f["line"], f["rule"]) for f in found] == [
        (44, "dcgm-exporter-no-node-name"), (44, "dcgm-exporter-no-pod-labels"), (1, "baseline-accepted")]
    assert found[2]["message"].startswith("4 finding(s) accepted")


def test_fingerprints_ignore_positions_and_sarif_carries_them():
    a = Finding("p.yaml", 3, 7, "error", "r", "field x at line 12 of p.yaml:12:7 is wrong")
    b = Finding("p.yaml", 30, 1, "error", "r", "field x at line 40 of p.yaml:40:1 is  wrong")
    assert baseline.fingerprint(a) == baseline.fingerprint(b)
    assert baseline.fingerprint(a) != baseline.fingerprint(Finding("q.yaml", 3, 7, "error", "r", a.message))
    assert baseline.fingerprint(a) != baseline.fingerprint(Finding("p.yaml", 3, 7, "error", "r", "field y is wrong"))
    result, = json.loads(reporting.sarif([a]))["runs"][0]["results"]
    assert result["partialFingerprints"] == {"gengpu/v2": baseline.fingerprint(a)}


def test_bad_baselines_and_settings_are_clear_errors(run, old):
    (old / "b.json").write_text("{not json")
    result = run("validate", "profiles", "--baseline", "b.json", cwd=old)
    assert result.exit_code == 2
    assert result.stderr.startswith("gengpu: error: baseline b.json: not JSON (")
    assert result.stderr.endswith("; write it again with `gengpu validate --write-baseline b.json`\n")
    result = run("validate", "profiles", "--baseline", "missing.json", cwd=old)
    assert (result.exit_code, result.stderr) == (2, "gengpu: error: baseline missing.json: no such file; write it "
                                                 "again with `gengpu validate --write-baseline missing.json`\n")
    (old / "notes.json").write_text('{"mine": true}\n')
    result = run("validate", "profiles", "--write-baseline", "notes.json", cwd=old)
    assert (result.exit_code, (old / "notes.json").read_text()) == (2, '{"mine": true}\n')
    assert result.stderr == "gengpu: error: notes.json exists and is not a gengpu baseline; give another path\n"
    (old / ".gengpu.yaml").write_text("baseline: [a, b]\n")
    result = run("validate", "profiles", cwd=old)
    assert (result.exit_code, result.stderr) == (2, "gengpu: error: .gengpu.yaml: expected a mapping with "
                                                 "`baseline: FILE` only\n")
    result = run("validate", "profiles", "--write-baseline", "x.json", "--no-baseline", cwd=old)
    assert result.exit_code == 2


def test_the_summary_comes_after_the_findings_when_both_streams_share_one_pipe(tmp_path):
    """A CI log that takes stdout and stderr together (issue 25 saw a fix line and the summary interleave; not
    reproduced here: click.echo flushes every write, and the progress line is erased before findings print). Holds
    the order: every finding and its fix line, then the summary."""
    import subprocess
    import sys

    (tmp_path / "plugin.yaml").write_text(PLUGIN)
    out = subprocess.run([sys.executable, "-m", "gengpu", "validate", "plugin.yaml"], cwd=tmp_path,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True).stdout.splitlines()
    assert out[0].startswith("plugin.yaml:6:19: error sharing-replicas-too-low ")
    assert out[1].startswith("  fix: ")
    assert out[2] == "gengpu: checked 1 other file(s): 1 error(s), 0 other finding(s)."


QUOTA = """apiVersion: v1
kind: ResourceQuota
metadata:
  name: gpu-quota
  namespace: {ns}
spec:
  hard:
    limits.nvidia.com/gpu: "8"
"""


def test_reordering_pools_keeps_accepted_findings_accepted(run, tmp_path):
    """A finding of a profile rule names its pool by index (nodePools[1]); inserting a pool before it must not turn the
    accepted finding into a new one: the fingerprint holds the pool's name."""
    (tmp_path / "profiles").mkdir()
    profile = tmp_path / "profiles" / "onprem.yaml"
    shutil.copy(REPO / "tests" / "fixtures" / "profiles" / "onprem-kubernetes.yaml", profile)
    assert run("validate", "profiles", "--write-baseline", "b.json", cwd=tmp_path).exit_code == 0
    text = profile.read_text()
    pool = text[text.index("    - name: t4-shared\n"):text.index("  argocd:")]
    profile.write_text(text.replace("    - name: a100-mig\n", pool + "    - name: a100-mig\n", 1).replace(
        pool + "  argocd:", "  argocd:"))
    assert profile.read_text().index("t4-shared") < profile.read_text().index("a100-mig")  # moved first
    result = run("validate", "profiles", "--baseline", "b.json", "--output", "json", cwd=tmp_path)
    assert [f["rule"] for f in json.loads(result.stdout)["findings"]] == ["baseline-accepted"]
    assert result.exit_code == 0


def test_a_finding_moving_to_another_namespace_is_new(run, tmp_path):
    """The same quota mistake fixed in team-a and made in team-c: the message is the same, the object is not."""
    (tmp_path / "manifests").mkdir()
    quota = tmp_path / "manifests" / "quota.yaml"
    quota.write_text(QUOTA.format(ns="team-a"))
    assert run("validate", "manifests", "--write-baseline", "b.json", cwd=tmp_path).exit_code == 0
    quota.write_text(QUOTA.format(ns="team-c"))
    result = run("validate", "manifests", "--baseline", "b.json", "--output", "json", cwd=tmp_path)
    assert result.exit_code == 1
    assert sorted(f["rule"] for f in json.loads(result.stdout)["findings"]) == [
        "baseline-stale", "quota-limits-prefix-not-counted"]


def test_a_baseline_from_a_subfolder_and_info_findings(run, tmp_path):
    """Paths in a baseline are the repository's, wherever gengpu runs; info findings (which never fail CI) are not
    recorded, so they are never reported stale the moment the baseline is used."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "manifests").mkdir()
    (tmp_path / "manifests" / "quota.yaml").write_text(QUOTA.format(ns="team-a"))
    (tmp_path / "manifests" / "dcgm.yaml").write_text(EXPORTER)
    assert run("validate", "manifests", "--write-baseline", "b.json", cwd=tmp_path).exit_code == 0
    written = json.loads((tmp_path / "b.json").read_text())["findings"]
    assert {e["file"] for e in written} == {"manifests/quota.yaml", "manifests/dcgm.yaml"}
    result = run("validate", ".", "--baseline", "../b.json", "--output", "json", cwd=tmp_path / "manifests")
    assert [f["rule"] for f in json.loads(result.stdout)["findings"] if f["severity"] != "info"] == []
    assert "baseline-stale" not in [f["rule"] for f in json.loads(result.stdout)["findings"]]
    assert result.exit_code == 0


def test_old_and_hostile_baselines_are_clear_errors(run, old):
    (old / "v1.json").write_text('{"version": 1, "findings": []}\n')
    result = run("validate", "profiles", "--baseline", "v1.json", cwd=old)
    assert (result.exit_code, result.stderr) == (2, "gengpu: error: baseline v1.json: written by an older gengpu, whose "
                                                 "fingerprints held list indexes and the working directory; write it "
                                                 "again with `gengpu validate --write-baseline v1.json` (and review "
                                                 "its diff)\n")
    (old / "deep.json").write_text("[" * 100000 + "]" * 100000)
    result = run("validate", "profiles", "--baseline", "deep.json", cwd=old)
    assert result.exit_code == 2 and result.stderr.startswith("gengpu: error: baseline deep.json: not JSON (")


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_baseline_that_is_not_a_regular_file_is_refused_not_read(run, old, kind):
    """A FIFO waits forever for a writer and /dev/zero never ends: neither is read."""
    import os

    path = "/dev/zero" if kind == "device" else str(old / "b.fifo")
    if kind == "fifo":
        os.mkfifo(path)
    result = run("validate", "profiles", "--baseline", path, cwd=old)
    assert result.exit_code == 2
    what = "a FIFO" if kind == "fifo" else "a character device"
    assert result.stderr.startswith(f"gengpu: error: baseline {path}: cannot read file: it is {what}, not a regular file")


def test_the_settings_at_the_repository_root_apply_in_a_subfolder(run, old):
    """A hook or CI job run from a subfolder of the repository reads the root's .gengpu.yaml, and its baseline path
    is taken from the root."""
    import subprocess

    subprocess.run(["git", "init", "-q", str(old)], check=True)
    run("validate", "profiles", "manifests", "--write-baseline", ".gengpu-baseline.json", cwd=old)
    (old / ".gengpu.yaml").write_text("baseline: .gengpu-baseline.json\n")
    result = run("validate", ".", "--output", "json", cwd=old / "manifests")
    assert result.exit_code == 0, result.output
    found = json.loads(result.stdout)["findings"]
    assert [(f["rule"], f["file"]) for f in found] == [("baseline-accepted", "../.gengpu-baseline.json")]
    assert found[0]["message"].startswith("3 finding(s) accepted by 3 baseline entries")


def test_a_renamed_files_accepted_findings_stay_accepted(run, old):
    """git mv of a file: its findings are the ones accepted (same rule, object and message), not new ones."""
    run("validate", "profiles", "manifests", "--write-baseline", "b.json", cwd=old)
    (old / "manifests" / "dcgm.yaml").rename(old / "manifests" / "exporter.yaml")
    code, found = _validate(run, old, "--baseline", "b.json")
    assert (code, found) == (0, [("b.json", "baseline-accepted")])
    # once a file of the old path is back, the entries are its own again, and the renamed copy's findings are new
    (old / "manifests" / "dcgm.yaml").write_text(EXPORTER)
    code, found = _validate(run, old, "--baseline", "b.json")
    assert (code, found) == (1, [("manifests/exporter.yaml", "dcgm-exporter-no-node-name"),
                                 ("manifests/exporter.yaml", "dcgm-exporter-no-pod-labels"),
                                 ("b.json", "baseline-accepted")])
