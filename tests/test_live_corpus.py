"""`gengpu check` on live objects quoted in public threads (tests/live-corpus/): each file wrapped into a snapshot
as its entry's `wrap` says, checked against a fixture profile, and held to the findings its upstream verdict
implies. Files are verbatim; the verdicts were written from upstream before gengpu ran on them."""

import json
import shutil
from pathlib import Path

import pytest
import yaml

import snapshots

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO / "tests" / "live-corpus"
INDEX = yaml.safe_load((CORPUS / "live-corpus.yaml").read_text())
RUNS = [(entry, run) for entry in INDEX["files"] for run in entry["runs"]]


def _node(name: str, labels: dict | None = None, status: dict | None = None) -> dict:
    """The quoted fields as a Node of that name: no label added (gengpu ties it to its pool by what it is)."""
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": dict(labels or {})}}
    if status is not None:
        node["status"] = status
    return node


def _healthy_node(profile: Path) -> dict:
    data = yaml.safe_load(profile.read_text())
    return snapshots.node(data, data["spec"]["nodePools"][0], 0, data["spec"]["nodePools"][0].get("gpusPerNode", 1))


def wrap(file: str, profile: Path) -> list[dict]:
    """The snapshot's objects: the quoted object with exactly what live-corpus.yaml's `wrap` names."""
    text = (CORPUS / file).read_text()
    if file.startswith("k8s-device-plugin-503-"):  # jq's lines of one object, without its braces
        return [_node("k8s-device-plugin-cluster-worker", labels=yaml.safe_load("{" + text + "}"))]
    if file.startswith("k8s-device-plugin-58-"):
        return [_node("ocio-gpu01", status=yaml.safe_load(text)["status"])]
    if file.startswith("k8s-device-plugin-213-"):
        obj = yaml.safe_load(text)
        return [{**obj, **_node("gpu-node"), "status": obj["status"]}]
    if file.startswith("gpu-driver-container-979-"):
        fields = yaml.safe_load(text)
        status = {"state": fields["state"], "conditions": [
            {"type": "Ready", "status": "False", "reason": fields["reason"], "message": fields["message"]}]}
        return [_healthy_node(profile), {"apiVersion": "nvidia.com/v1", "kind": "ClusterPolicy",
                                         "metadata": {"name": "cluster-policy"}, "status": status}]
    if file.startswith("gpu-operator-2150-"):
        return [_healthy_node(profile), yaml.safe_load(text)]
    raise AssertionError(f"no wrap for {file}")


def test_every_file_has_its_entry_and_provenance():
    listed = {e["file"] for e in INDEX["files"]}
    on_disk = {p.name for p in CORPUS.glob("*.yaml")} - {"live-corpus.yaml", "states.yaml", "pastes.yaml"}
    assert listed == on_disk
    for entry in INDEX["files"]:
        assert entry["source"]["url"].startswith("https://github.com/") and entry["reason"] and entry["wrap"]


@pytest.mark.parametrize("entry,spec", RUNS, ids=[f"{e['file'][:-5]}-{r['profile'][:-5]}" for e, r in RUNS])
def test_the_verdict_of_each_quoted_object(run, tmp_path, entry, spec):
    profile = CORPUS / "profiles" / spec["profile"]
    shutil.copy(profile, tmp_path / profile.name)
    (tmp_path / "snap.yaml").write_text(snapshots.dump({"apiVersion": "v1", "kind": "List",
                                                        "items": wrap(entry["file"], profile)}))
    result = run("check", profile.name, "--snapshot", "snap.yaml", "--output", "json", cwd=tmp_path)
    got = [[f["rule"], f["severity"], f["message"]] for f in json.loads(result.stdout)["findings"]]
    assert sorted(got) == sorted(spec["expect"])
    assert result.exit_code == (1 if any(s == "error" for _, s, _ in spec["expect"]) else 0)
