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


# --- the file a baseline is, entry by entry, from its definition (issue 51: the baseline group's survivors) ---------

OBJECTS = """apiVersion: v1
kind: ConfigMap
metadata:
  name: one
  namespace: team-a
data: {}
---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: two
spec: {}
"""
PROFILE = """apiVersion: gengpu.dev/v1alpha1
kind: GPUProfile
metadata:
  name: p
spec:
  nodePools:
    - name: first
    - name: second
    - gpu: L4
"""


def _print(rule: str, file: str, obj: str, message: str) -> str:
    """The fingerprint as the module's docstring defines it: rule, repository-relative file, object and the message
    with positions and list indexes taken out, hashed (sha256, 32 hex digits)."""
    import hashlib
    import re

    message = re.sub(r"\blines? \d+(?:\s*[-–]\s*\d+)?|(?<=\.yaml):\d+(?::\d+)?", "#", message)
    message = " ".join(re.sub(r"\[\d+\]", "[#]", message).split())
    return hashlib.sha256(f"{rule}\0{file}\0{obj}\0{message}".encode()).hexdigest()[:32]


@pytest.fixture
def tree(tmp_path, monkeypatch):
    (tmp_path / ".git").mkdir()
    (tmp_path / "k8s").mkdir()
    (tmp_path / "k8s" / "a.yaml").write_text(OBJECTS)
    (tmp_path / "p.yml").write_text(PROFILE)
    (tmp_path / "notes.txt").write_text("kind: ConfigMap\n")
    monkeypatch.chdir(tmp_path / "k8s")  # (paths are the repository's, wherever gengpu runs)
    return tmp_path


def test_a_baseline_file_holds_each_entry_as_defined(tree):
    findings = [
        Finding("a.yaml", 5, 3, "error", "r1", "bad at line 5 and a.yaml:5:3 [0]"),
        Finding("a.yaml", 8, 1, "warning", "r2", "starts here"),  # (the second document's first line)
        Finding("a.yaml", 12, 1, "warning", "r2", "starts here"),
        Finding("../p.yml", 8, 7, "error", "r3", "spec.nodePools[1].gpu: missing"),
        Finding("../p.yml", 9, 7, "error", "r3", "spec.nodePools[2].gpu: no name; spec.nodePools[7] gone"),
        Finding("../notes.txt", 1, 1, "warning", "r4", "not YAML gengpu reads"),
        Finding("a.yaml", 2, 1, "info", "r5", "advice without a consequence"),
        Finding("a.yaml", 2, 1, "info", "r6", "advice", needs="a rule reading pod"),
    ]
    entries = [
        {"fingerprint": _print("r4", "notes.txt", "", "not YAML gengpu reads"), "rule": "r4", "file": "notes.txt",
         "message": "not YAML gengpu reads", "count": 1},
        {"fingerprint": _print("r3", "p.yml", "", "spec.nodePools[second].gpu: missing"), "rule": "r3",
         "file": "p.yml", "message": "spec.nodePools[1].gpu: missing", "count": 1},
        {"fingerprint": _print("r3", "p.yml", "", "spec.nodePools[2].gpu: no name; spec.nodePools[7] gone"),
         "rule": "r3", "file": "p.yml", "message": "spec.nodePools[2].gpu: no name; spec.nodePools[7] gone",
         "count": 1},
        {"fingerprint": _print("r1", "k8s/a.yaml", "ConfigMap/team-a/one", "bad at # and a.yaml# [#]"), "rule": "r1",
         "file": "k8s/a.yaml", "object": "ConfigMap/team-a/one", "message": "bad at line 5 and a.yaml:5:3 [0]",
         "count": 1},
        {"fingerprint": _print("r2", "k8s/a.yaml", "DaemonSet//two", "starts here"), "rule": "r2",
         "file": "k8s/a.yaml", "object": "DaemonSet//two", "message": "starts here", "count": 2},
        {"fingerprint": _print("r6", "k8s/a.yaml", "ConfigMap/team-a/one", "advice"), "rule": "r6",
         "file": "k8s/a.yaml", "object": "ConfigMap/team-a/one", "message": "advice", "count": 1},
    ]
    entries.sort(key=lambda e: (e["file"], e["rule"], e["message"], e["fingerprint"]))
    head = ('{"version": 2, "about": "Findings accepted by `gengpu validate --write-baseline`; validate with '
            '--baseline (or `baseline:` in .gengpu.yaml) reports only new ones. Remove an entry once it is fixed.", '
            '"findings": [')
    assert baseline.render(findings) == "\n".join(
        [head, ",\n".join(f"  {json.dumps(e)}" for e in entries), "]}"]) + "\n"
    assert baseline.render([findings[6]]) == head + "]}\n"


def _base(tree, entries: list[dict]) -> baseline.Baseline:
    text = baseline.render([])[:-3] + "\n" + ",\n".join(f"  {json.dumps(e)}" for e in entries) + "\n]}\n"
    (tree / "b.json").write_text(text)
    return baseline.load(str(tree / "b.json"))


def test_applying_accepts_counts_renames_and_reports_stale_entries_exactly(tree):
    """One run over k8s/: an entry of a renamed file without an object (gone.yml) accepts the same finding under the
    new name; an entry of a file that is still there (other.yaml) never accepts a finding of another file; an info
    finding is never accepted, even by an entry of its fingerprint; what is left over in the checked folder is stale,
    in the order of the baseline's lines, and an entry of a file outside it is not."""
    (tree / "k8s" / "other.yaml").write_text(OBJECTS)
    (tree / "k8s" / "new.yml").write_text("sharing: {}\n")
    same = Finding("a.yaml", 5, 3, "error", "r1", "bad")
    info = Finding("a.yaml", 5, 3, "info", "r9", "advice")
    base = _base(tree, [
        {"fingerprint": _print("r7", "k8s/gone.yml", "", "moved"), "rule": "r7", "file": "k8s/gone.yml",
         "message": "moved", "count": 1},
        {"fingerprint": _print("r1", "k8s/other.yaml", "ConfigMap/team-a/one", "bad"), "rule": "r1",
         "file": "k8s/other.yaml", "object": "ConfigMap/team-a/one", "message": "bad", "count": 1},
        {"fingerprint": _print("r9", "k8s/a.yaml", "ConfigMap/team-a/one", "advice"), "rule": "r9",
         "file": "k8s/a.yaml", "object": "ConfigMap/team-a/one", "message": "advice", "count": 1},
        {"fingerprint": _print("r2", "k8s/a.yaml", "DaemonSet//two", "twice"), "rule": "r2", "file": "k8s/a.yaml",
         "object": "DaemonSet//two", "message": "twice", "count": 3},
        {"fingerprint": _print("r3", "p.yml", "", "elsewhere"), "rule": "r3", "file": "p.yml",
         "message": "elsewhere", "count": 1},
    ])
    twice = Finding("a.yaml", 9, 1, "warning", "r2", "twice")
    out, accepted = baseline.apply([same, info, twice, Finding("new.yml", 1, 1, "error", "r7", "moved")], base,
                                   ["../k8s/"])
    assert accepted == 2
    assert [(f.file, f.line, f.column, f.severity, f.rule, f.message) for f in out] == [
        ("a.yaml", 5, 3, "error", "r1", "bad"),
        ("a.yaml", 5, 3, "info", "r9", "advice"),
        (str(tree / "b.json"), 1, 1, "info", "baseline-accepted",
         "2 finding(s) accepted by 2 baseline entries (not shown; --no-baseline shows them)"),
        (str(tree / "b.json"), 3, 3, "info", "baseline-stale",
         "r1 in k8s/other.yaml (bad) no longer occurs: remove the entry"),
        (str(tree / "b.json"), 4, 3, "info", "baseline-stale",
         "r9 in k8s/a.yaml (advice) no longer occurs: remove the entry"),
        (str(tree / "b.json"), 5, 3, "info", "baseline-stale",
         "r2 in k8s/a.yaml (twice) occurs 1 time(s), not 3: remove the entry"),
    ]
    out, accepted = baseline.apply([twice], base, ["a.yaml"])
    assert accepted == 1
    assert out[0].message == "1 finding(s) accepted by 1 baseline entry (not shown; --no-baseline shows them)"
    assert [f.message for f in out[1:]] == ["r9 in k8s/a.yaml (advice) no longer occurs: remove the entry",
                                            "r2 in k8s/a.yaml (twice) occurs 1 time(s), not 3: remove the entry"]


@pytest.mark.parametrize("count, kept", [(2, 2), (0, 1), (-3, 1), ("2", 1), (None, 1), (True, True)])
def test_an_entrys_count_is_a_whole_number_above_zero_or_one(tree, count, kept):
    entry = {"fingerprint": "ab", "rule": "r", "file": "f", "message": "m"}
    base = _base(tree, [entry if count is None else {**entry, "count": count}])
    assert base.entries == {"ab": {**entry, "count": kept}}
    assert base.lines == {"ab": 2}


@pytest.mark.parametrize("text, why", [
    ('{"version": 2, "findings": {}}', "not a gengpu baseline of version 2"),
    ('{"version": 3, "findings": []}', "not a gengpu baseline of version 2"),
    ('[]', "not a gengpu baseline of version 2"),
    ('{"version": 2, "findings": [{"rule": "r"}]}', "an entry without a fingerprint"),
    ('{"version": 2, "findings": ["ab"]}', "an entry without a fingerprint"),
    ('{"version": 2, "findings": [', "not JSON (Expecting value: line 1 column 29 (char 28))"),
])
def test_a_malformed_baseline_says_what_is_wrong(tree, text, why):
    (tree / "b.json").write_text(text)
    with pytest.raises(baseline.UsageError) as caught:
        baseline.load(str(tree / "b.json"))
    assert str(caught.value) == f"baseline {tree / 'b.json'}: {why}; write it again with `gengpu validate " \
                                f"--write-baseline {tree / 'b.json'}`"


def test_settings_that_are_not_yaml_name_the_first_line_of_the_reason(tree):
    (tree / ".gengpu.yaml").write_text("baseline: [\n")
    with pytest.raises(baseline.UsageError) as caught:
        baseline.settings_baseline()
    assert str(caught.value) == "../.gengpu.yaml: cannot be read (while parsing a flow node); fix or remove it"
    (tree / ".gengpu.yaml").write_text("baseline: b.json\n")
    assert baseline.settings_baseline() == "../b.json"
    (tree / ".gengpu.yaml").write_text("baseline: /abs/b.json\n")
    assert baseline.settings_baseline() == "/abs/b.json"


def test_identities_of_odd_documents(tree):
    """What a finding is about, where the file makes it hard: a document after a leading '---' (a finding on the
    whole file, line 0, is about no object), metadata that is not a mapping, an object without a name, a profile
    whose spec is not a mapping, a pool index just past the list, a file that is not YAML, a lone surrogate."""
    (tree / "k8s" / "odd.yaml").write_text("---\napiVersion: v1\nkind: ConfigMap\nmetadata: oops\n---\n"
                                           "apiVersion: v1\nkind: Secret\nmetadata:\n  namespace: ns\n")
    (tree / "bare.yml").write_text("kind: GPUProfile\nspec: []\n")
    ids = baseline.Identities()
    assert [ids.of(Finding("odd.yaml", line, 1, "error", "r", "m")) for line in (0, 2, 4, 6)] == [
        "", "ConfigMap//", "ConfigMap//", "Secret/ns/"]
    pools = "nodePools[0], nodePools[3]"
    assert ids.named(Finding("../notes.txt", 1, 1, "error", "r", pools)) == pools
    assert ids.named(Finding("../bare.yml", 2, 1, "error", "r", pools)) == pools
    assert ids.named(Finding("../p.yml", 8, 1, "error", "r", pools)) == "nodePools[first], nodePools[3]"
    odd = Finding("a.yaml", 1, 1, "error", "r", "name a\udc80b")
    import hashlib

    assert baseline.fingerprint(odd) == hashlib.sha256(
        "r\0k8s/a.yaml\0ConfigMap/team-a/one\0name a\udc80b".encode("utf-8", "surrogatepass")).hexdigest()[:32]


def test_in_scope_takes_a_folder_with_or_without_its_slash():
    assert baseline.in_scope("k8sX/a.yaml", ["k8sX/"]) and baseline.in_scope("k8sX/a.yaml", ["k8sX"])
    assert not baseline.in_scope("k8sXY/a.yaml", ["k8sX/"])


def test_hand_edited_entries_still_apply(tree):
    """An entry without a message (of a file that is gone) and a baseline written compactly by hand: nothing breaks,
    an info finding is never accepted by a renamed file's entry, and a stale entry whose line cannot be found is
    reported at line 1."""
    (tree / "b.json").write_text('{"version": 2, "findings": [{"fingerprint": "aa", "rule": "r1", "file": '
                                 '"k8s/gone.yaml"}, {"fingerprint":"bb","rule":"r2","file":"k8s/gone.yaml",'
                                 '"object":"ConfigMap/team-a/one","message":"advice","count":1}]}\n')
    base = baseline.load(str(tree / "b.json"))
    out, accepted = baseline.apply([Finding("a.yaml", 2, 1, "info", "r2", "advice")], base, ["."])
    assert accepted == 0
    assert [(f.line, f.rule, f.message) for f in out] == [
        (2, "r2", "advice"),
        # (by the entry's line: bb's cannot be found in the compact text, so it sorts first, reported at line 1)
        (1, "baseline-stale", "r2 in k8s/gone.yaml (advice) no longer occurs: remove the entry"),
        (1, "baseline-stale", "r1 in k8s/gone.yaml (None) no longer occurs: remove the entry")]


def test_a_baseline_is_written_as_a_regular_file_readable_by_all(tree):
    baseline.write(str(tree / "b.json"), [])
    assert (tree / "b.json").stat().st_mode & 0o777 == 0o644
    (tree / "link.json").symlink_to(tree / "b.json")
    (tree / "dir.json").mkdir()
    for path in ("link.json", "dir.json"):
        with pytest.raises(baseline.UsageError) as caught:
            baseline.write(str(tree / path), [])
        assert str(caught.value) == f"{tree / path} is not a regular file; give another baseline path"
    (tree / "bad.json").write_bytes(b'{"version": 2, "findings": ["\xff"]}')
    with pytest.raises(baseline.UsageError) as caught:
        baseline.load(str(tree / "bad.json"))
    assert str(caught.value).startswith(f"baseline {tree / 'bad.json'}: cannot be read ('utf-8' codec can't decode "
                                        "byte 0xff in position 29")
    assert (tree / "b.json").read_text() == baseline.render([])  # (the refused writes left it as written)
