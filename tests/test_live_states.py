"""`gengpu check` on real GPU node states as their sources show them (tests/live-corpus/states.yaml): each file
checked as pasted, against the profile a team would write for that cluster, and held to the errors and warnings
its upstream verdict implies. The verdicts and expectations were written before gengpu ran on the files."""

import json
import re
import shutil
from pathlib import Path

import pytest
import yaml

import live_index

from gengpu.live import snapshot

CORPUS = Path(__file__).resolve().parent / "live-corpus"
STATES = live_index.states()
NODE = re.compile(r"^node (.+?)(?: \(pool [^)]*\))?: ")


def test_every_state_has_its_file_provenance_and_verdict():
    listed = {e["file"] for e in STATES}
    assert listed == {f"states/{p.name}" for p in (CORPUS / "states").iterdir()}
    for entry in STATES:
        assert entry["source"]["url"].startswith("https://") and entry["reason"]
        assert entry["verdict"] in ("healthy", "broken")
        assert (entry["verdict"] == "healthy") == (entry["expect"] == []), entry["file"]
        assert (CORPUS / "profiles" / entry["profile"]).is_file()


def _where(finding: dict) -> str:
    """The node a finding is about, else the object (Kind/namespace/name), as its JSON fields say."""
    if finding.get("object", "").startswith("Node/") or (finding.get("node") and "object" not in finding):
        return finding.get("node") or finding["object"].removeprefix("Node/")
    if finding.get("object"):
        return finding["object"]
    m = NODE.match(finding["message"])
    return m.group(1) if m else finding["message"].split(":")[0]


@pytest.mark.parametrize("entry", STATES, ids=[Path(e["file"]).stem for e in STATES])
def test_each_state_as_pasted(run, tmp_path, entry):
    shutil.copy(CORPUS / "profiles" / entry["profile"], tmp_path / entry["profile"])
    shutil.copy(CORPUS / entry["file"], tmp_path / Path(entry["file"]).name)
    result = run("check", entry["profile"], "--snapshot", Path(entry["file"]).name, *entry.get("args", []),
                 "--output", "json", cwd=tmp_path)
    findings = json.loads(result.stdout)["findings"]
    got = sorted([f["rule"], f["severity"], _where(f)] for f in findings if f["severity"] != "info")
    assert got == sorted(entry["expect"]), [f["message"] for f in findings]
    assert result.exit_code == (1 if any(s == "error" for _, s, _ in entry["expect"]) else 0)


def test_the_corpus_figure():
    """Printed for the closing note: how many states, healthy and broken, from how many sources."""
    broken = sum(e["verdict"] == "broken" for e in STATES)
    sources = {e["source"]["url"].split("#")[0] for e in STATES}
    print(f"\nlive states: {len(STATES)} real states ({len(STATES) - broken} healthy, {broken} broken) from "
          f"{len(sources)} sources")
    readme = (CORPUS.parent.parent / "README.md").read_text()
    assert f"`tests/live-corpus/states.yaml` holds {len(STATES)} node states" in readme.replace("\n", " ")



@pytest.mark.parametrize("entry", STATES, ids=[Path(e["file"]).stem for e in STATES])
def test_every_node_of_a_state_is_read_as_a_v1_node(entry):
    """Whatever form a node was pasted in (labels alone, resources alone, status alone, a table, `describe`), it is
    read as a Node, and one the paste gives no apiVersion of its own is a v1 Node as the API has one. One pasted as
    its labels alone is named by its kubernetes.io/hostname label where the paste shows it, else "(pasted
    labels)"; one pasted as its status or its resources alone is "(pasted node)"."""
    text = (CORPUS / entry["file"]).read_text()
    snap, _ = snapshot.load(text.encode(), entry["file"])
    own = re.search(r"^\s*\"?(apiVersion|api_version)\"?\s*:", text, re.M)
    for node in snap.nodes if snap else []:
        assert node.data["kind"] == "Node"
        if not own:
            assert node.data["apiVersion"] == "v1"
    if not text.lstrip().startswith(("{", '"', "status:")):
        return  # a table or `describe`: named as printed (tests/test_pasted_tables.py)
    try:
        data = yaml.safe_load(text if text.lstrip().startswith(("{", "status:")) else "{" + text + "}")
    except yaml.YAMLError:
        return
    if not isinstance(data, dict) or "kind" in data or "apiVersion" in data:
        return
    labels = ("nvidia.com/gpu.", "nvidia.com/mig.", "nvidia.com/cuda.", "nvidia.com/cc.", "nvidia.com/gfd.",
              "nvidia.com/mps.", "nvidia.com/vgpu.", "feature.node.kubernetes.io/", "kubernetes.io/",
              "beta.kubernetes.io/", "node.kubernetes.io/", "node-role.kubernetes.io/")
    if set(data) == {"status"} or not any(str(k).startswith(labels) for k in data):
        # its status, or its capacity or allocatable alone (cpu, nvidia.com/gpu, nvidia.com/mig-2g.10gb)
        assert [n.name for n in snap.nodes] == ["(pasted node)"]
    else:
        assert [n.name for n in snap.nodes] == [str(data.get("kubernetes.io/hostname", "(pasted labels)"))]


_RESOURCE = re.compile(r"^\s+(nvidia\.com/[\w.-]+|cpu|memory|pods|ephemeral-storage):\s+(\S+)\s*$")


def _printed_twice(text: str) -> dict[str, list[str]]:
    """The resources a paste without Capacity or Allocatable headings prints twice, with their two values."""
    if re.search(r"^\s*(Capacity|Allocatable|capacity|allocatable):", text, re.M):
        return {}
    seen: dict[str, list[str]] = {}
    for m in filter(None, map(_RESOURCE.match, text.splitlines())):
        seen.setdefault(m.group(1), []).append(m.group(2))
    return {k: v for k, v in seen.items() if len(v) == 2}


_GREPPED = [e["file"] for e in STATES if _printed_twice((CORPUS / e["file"]).read_text())]


@pytest.mark.parametrize("file", _GREPPED)
def test_a_resource_printed_twice_is_the_nodes_capacity_then_its_allocatable(file):
    """A grep of `kubectl describe node` keeps a resource's line under Capacity and its line under Allocatable, in
    that order, without their headings: the node read has the first value as its capacity and the second as its
    allocatable. (Where a heading is printed, the heading says; a resource printed once is not judged here.)"""
    text = (CORPUS / file).read_text()
    twice = _printed_twice(text)
    snap, _ = snapshot.load(text.encode(), file)
    (node,) = snap.nodes
    status = node.data.get("status") or {}
    assert {k: [(status.get("capacity") or {}).get(k), (status.get("allocatable") or {}).get(k)] for k in twice} == \
        twice
