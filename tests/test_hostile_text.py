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
