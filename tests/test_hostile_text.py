"""Text from the cluster and from Prometheus reaches terminals, pull-request comments and reports: a node condition's
message with the terminal-title escape, a bell, a forged line and a right-to-left override, and dcgm-exporter pod
labels with the same, must come out as visible escapes in every format, never as the characters themselves."""

import json
import shutil
from pathlib import Path

import pytest
import yaml

import dcgm_samples

REPO = Path(__file__).resolve().parent.parent
HERE = Path(__file__).parent / "usage"
EVIL = "\x1b]0;pwned\x07bad\ngengpu: checked 0 node(s): no findings.\u202eexe.txt"
RAW = ("\x1b", "\x07", "\u202e", "\ngengpu: checked 0")


def _snapshot(tmp_path):
    mps = REPO / "profiles" / "eks-l4-mps.yaml"
    shutil.copy(mps, tmp_path / mps.name)
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "l4-mps-0", "labels": {
        "gengpu.dev/pool": "l4-mps", "nvidia.com/gpu.product": "NVIDIA-L4"}},
        "status": {"capacity": {"nvidia.com/gpu": "4"}, "allocatable": {"nvidia.com/gpu": "4"},
                   "conditions": [{"type": "Ready", "status": "False", "reason": "KubeletNotReady", "message": EVIL}]}}
    (tmp_path / "snap.yaml").write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": [node]}))
    return mps.name


@pytest.mark.parametrize("fmt", ["text", "json", "github", "sarif", "junit"])
def test_cluster_text_is_escaped_in_every_format(run, tmp_path, fmt):
    profile = _snapshot(tmp_path)
    result = run("check", profile, "--snapshot", "snap.yaml", "--output", fmt, cwd=tmp_path)
    assert result.exit_code == 1
    assert [r for r in RAW if r in result.stdout] == []
    assert "\\x1b]0;pwned\\x07bad" in result.stdout.replace("\\\\", "\\")
    if fmt == "text":
        (line,) = [x for x in result.stdout.splitlines() if "node-not-ready" in x]
        assert line.endswith("(KubeletNotReady: \\x1b]0;pwned\\x07bad\\ngengpu: checked 0 node(s): no findings."
                             "\\u202eexe.txt)")


def test_prometheus_labels_are_escaped_in_rightsize_reports(run, tmp_path):
    shutil.copy(HERE / "gke-a100.yaml", tmp_path / "gke-a100.yaml")
    shutil.copy(HERE / "snapshot.yaml", tmp_path / "snapshot.yaml")
    gpus = dcgm_samples.a100_fleet()
    gpus[0].pod = "llm-0\x1b]0;x\x07\u202e</summary><script>"
    text = dcgm_samples.openmetrics(gpus, step=300).replace("\x1b", "\\x1b").replace("\x07", "\\x07")
    # OpenMetrics label values escape only \\, " and newline: write the raw characters as the exporter would
    text = text.replace("\\x1b", "\x1b").replace("\\x07", "\x07")
    (tmp_path / "gpus.om").write_text(text, encoding="utf-8")
    for fmt in ("text", "markdown"):
        result = run("rightsize", "gke-a100.yaml", "--snapshot", "snapshot.yaml", "--metrics", "gpus.om", "--output",
                     fmt, cwd=tmp_path)
        assert result.exit_code == 0, result.output
        assert [r for r in ("\x1b", "\x07", "\u202e") if r in result.stdout] == []
        # markdown also writes the escapes' backslashes and brackets as entities, which render as the same text
        assert ("llm-0\\x1b]0;x\\x07\\u202e" if fmt == "text" else "llm-0&#92;x1b&#93;0;x&#92;x07&#92;u202e") \
            in result.stdout
        if fmt == "markdown":
            assert "<script>" not in result.stdout and "&lt;/summary&gt;&lt;script&gt;" in result.stdout


@pytest.mark.parametrize("value", ["NaN", "-5000", "+Inf", "-Inf", "9e99"])
def test_memory_that_cannot_be_gives_no_proposal(run, tmp_path, value):
    """The inference pool's memory series all NaN, negative, infinite or beyond any GPU (a broken exporter, a
    relabelling gone wrong): the pool gets no proposal, and the report says why instead of 'peaked at 0.0 GiB'."""
    import re

    shutil.copy(HERE / "gke-a100.yaml", tmp_path / "gke-a100.yaml")
    shutil.copy(HERE / "snapshot.yaml", tmp_path / "snapshot.yaml")
    text = dcgm_samples.openmetrics(dcgm_samples.a100_fleet(), step=300)
    text = re.sub(r'^(DCGM_FI_DEV_FB_USED\{[^}]*Hostname="gke-a100-inference-[^}]*\}) \S+ (\d+)$', rf"\1 {value} \2",
                  text, flags=re.M)
    (tmp_path / "gpus.om").write_text(text, encoding="utf-8")
    result = run("rightsize", "gke-a100.yaml", "--snapshot", "snapshot.yaml", "--metrics", "gpus.om", "--output",
                 "json", cwd=tmp_path)
    assert result.exit_code in (0, 1), result.output
    rec = next(r for r in json.loads(result.stdout)["recommendations"] if r["pool"] == "inference")
    assert (rec["verdict"], rec["proposed"]) == ("none", None)
    assert "are missing or cannot be (not a number, below 0, above the GPU's memory)" in rec["reason"]


BIG = "9" * 5000  # past the 4,300 digits Python converts, and past any count a cluster prints


@pytest.mark.parametrize("text, kind, read", [
    # a DaemonSet's count: left unread
    (f"Name: nvidia-device-plugin-daemonset\nNamespace: gpu-operator\nDesired Number of Nodes Scheduled: {BIG}\n"
     "Current Number of Nodes Scheduled: 2\n", "daemonsets", lambda d: d["status"] == {"currentNumberScheduled": 2}),
    # a described container's restarts, exit code and signal: left unread
    ("Name: p\nNamespace: gpu-operator\nContainers:\n  c:\n    State:  Terminated\n      Reason:  Error\n"
     f"      Exit Code:  {BIG}\n      Signal:  {BIG}\n    Ready:  False\n    Restart Count:  {BIG}\n", "pods",
     lambda p: p["status"]["containerStatuses"] == [{"name": "c", "ready": False, "restartCount": 0,
                                                     "state": {"terminated": {"reason": "Error"}}}]),
    # a pods row's READY and Init:N/M past any pod's containers: one container, no init containers listed
    (f"NAMESPACE  NAME  READY  STATUS  RESTARTS  AGE\ngpu-operator  nvidia-driver-daemonset-x  1/{BIG}  Running  0  1d\n",
     "pods", lambda p: len(p["spec"]["containers"]) == 1),
    (f"NAME  READY  STATUS  RESTARTS  AGE\nnvidia-driver-daemonset-x  0/1  Init:0/{'9' * 15}  3  1d\n",
     "pods", lambda p: p["spec"]["initContainers"] == []),
    # an exit code past 32 bits: a failure
    (f"NAME  READY  STATUS  RESTARTS  AGE\nnvidia-driver-daemonset-x  0/1  ExitCode:{BIG}  3  1d\n",
     "pods", lambda p: p["status"]["containerStatuses"][0]["state"]["terminated"]["exitCode"] == 1),
    # a DaemonSets row with a count no cluster prints: no row
    (f"NAME  DESIRED  CURRENT  READY  UP-TO-DATE  AVAILABLE  NODE SELECTOR  AGE\nnvidia-dcgm-exporter  {BIG}  1  1  1  1"
     "  <none>  1d\n", "daemonsets", None),
    # an event counted past any count: its count unknown
    ("Events:\n  Type     Reason   Age                  From     Message\n  ----     ------   ----                 ----"
     f"     -------\n  Warning  BackOff  76s (x{BIG} over 11h)  kubelet  Back-off restarting failed container\n",
     "events", lambda e: "count" not in e),
])
def test_a_figure_no_cluster_prints_is_read_without_stopping(text, kind, read):
    """A pasted count of thousands of digits (past what Python converts to a number) or past any pod's containers
    neither stops the check nor sizes a list: the figure is left unread, and the rest of the object is read."""
    from gengpu.live import snapshot

    snap, findings = snapshot.load(text.encode(), "pasted.txt")
    objects = [item.data for item in getattr(snap, kind)]
    if read is None:
        assert objects == []
    else:
        assert len(objects) == 1 and read(objects[0]), objects
