"""`gengpu check --snapshot`: a cluster's state against its profile. Healthy snapshots of every example and fixture
profile give no finding; each class of drift gives its finding, at the pool's line in the profile, naming the node.
Snapshots are built from the profile YAML by tests/snapshots.py, not by gengpu."""

import json
import shutil
from pathlib import Path

import pytest
import yaml

import snapshots

REPO = Path(__file__).resolve().parent.parent
PROFILES = sorted([*(REPO / "profiles").glob("*.yaml"), *(REPO / "tests" / "fixtures" / "profiles").glob("*.yaml")])


def check(run, tmp_path, profile: Path, snap: dict, *more):
    (tmp_path / "snap.yaml").write_text(snapshots.dump(snap))
    shutil.copy(profile, tmp_path / profile.name)
    result = run("check", profile.name, "--snapshot", "snap.yaml", "--output", "json", *more, cwd=tmp_path)
    assert result.exit_code in (0, 1, 2), result.output
    return result


def found(result) -> list[tuple]:
    return [(f["file"], f["line"], f["rule"], f["message"]) for f in json.loads(result.stdout)["findings"]]


@pytest.mark.parametrize("profile", PROFILES, ids=[p.stem for p in PROFILES])
def test_a_healthy_cluster_gives_no_finding(run, tmp_path, profile):
    result = check(run, tmp_path, profile, snapshots.healthy(profile.read_text()))
    assert (result.exit_code, found(result)) == (0, [])


def _line(profile: Path, needle: str, after: str = "") -> int:
    lines = profile.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if after in line) if after else 0
    return next(i for i, line in enumerate(lines[start:], start + 1) if needle in line)


MPS = REPO / "profiles" / "eks-l4-mps.yaml"
MIG = REPO / "profiles" / "eks-h100-mig.yaml"
DRA = REPO / "profiles" / "gke-dra.yaml"


def test_sharing_that_never_applied_is_reported_at_the_pool(run, tmp_path):
    """eks-l4-mps promises 4 MPS clients per L4. One node advertises its one GPU whole (the config never applied),
    the other nothing at all (no device plugin)."""
    snap = snapshots.healthy(MPS.read_text())
    one, other = snapshots.find(snap, "l4-mps-0"), snapshots.find(snap, "l4-mps-1")
    for section in ("capacity", "allocatable"):
        one["status"][section]["nvidia.com/gpu"] = "1"
        del other["status"][section]["nvidia.com/gpu"]
    result = check(run, tmp_path, MPS, snap)
    at = _line(MPS, "sharing:")
    assert (result.exit_code, found(result)) == (1, [
        ("eks-l4-mps.yaml", at, "node-gpus-not-advertised", "node l4-mps-0 (pool l4-mps): nvidia.com/gpu is 1, one "
         "per GPU, the profile promises 4 (1 GPU(s) x 4 mps replicas): the sharing config did not apply"),
        ("eks-l4-mps.yaml", at, "node-gpus-not-advertised", "node l4-mps-1 (pool l4-mps): advertises no GPU resource, "
         "the profile promises 4 nvidia.com/gpu: the device plugin never registered (not running on the node, or "
         "without its config: its pod: kubectl get pods -n gpu-operator -o wide -l app=nvidia-device-plugin-daemonset)")])


def test_each_drift_class_is_its_rule_at_the_node(run, tmp_path):
    """One snapshot of eks-h100-mig with one thing wrong per node, and things no pool promised."""
    snap = snapshots.healthy(MIG.read_text(), per_pool=6)
    node = {i: snapshots.find(snap, f"h100-mig-{i}") for i in range(6)}
    node[0]["metadata"]["labels"]["nvidia.com/mig.config.state"] = "failed"
    node[1]["status"]["allocatable"]["nvidia.com/mig-1g.10gb"] = "15"  # one of 16 devices unhealthy
    node[2]["status"]["conditions"] = [{"type": "Ready", "status": "False", "reason": "KubeletNotReady"}]
    node[3]["metadata"]["labels"]["nvidia.com/device-plugin.config"] = "t4-shared"
    node[4]["metadata"]["labels"]["nvidia.com/mig.config"] = "all-1g.10gb"  # NVIDIA's stock config, another layout
    del node[5]["status"]
    stray = snapshots.node(yaml.safe_load(MIG.read_text()), {"name": "stray", "taints": []}, 0)
    del stray["metadata"]["labels"]["gengpu.dev/pool"]
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "big", "namespace": "ml"},
           "spec": {"containers": [{"name": "c", "resources": {"limits": {"nvidia.com/mig-7g.80gb": 1}}}]},
           "status": {"phase": "Pending"}}
    policy = snapshots.find(snap, "cluster-policy")
    policy["status"] = {"state": "notReady"}
    snap["items"] += [stray, pod]
    result = check(run, tmp_path, MIG, snap)
    pool, mig = _line(MIG, "- name: h100-mig"), _line(MIG, "mig:", "sharing:")
    name = _line(MIG, "- name: h100-mig")
    got = found(result)
    assert result.exit_code == 1
    assert sorted(got) == sorted([
        ("eks-h100-mig.yaml", mig, "node-mig-not-applied",
         "node h100-mig-0 (pool h100-mig): nvidia.com/mig.config.state is failed: the MIG manager could not apply "
         "h100-mig"),
        ("eks-h100-mig.yaml", pool, "node-gpus-unhealthy",
         "node h100-mig-1 (pool h100-mig): 1 of 16 nvidia.com/mig-1g.10gb are unhealthy (allocatable 15 < capacity 16)"),
        ("eks-h100-mig.yaml", pool, "node-not-ready",
         "node h100-mig-2 (pool h100-mig): is not Ready (Ready is False) (KubeletNotReady)"),
        ("eks-h100-mig.yaml", name, "node-sharing-config-mismatch",
         "node h100-mig-3 (pool h100-mig): nvidia.com/device-plugin.config=t4-shared names no key of ConfigMap "
         "gengpu-device-plugin-config (default, h100-mig): the config-manager stops with 'specified config does not "
         "exist'"),
        ("eks-h100-mig.yaml", mig, "node-mig-not-applied",
         "node h100-mig-4 (pool h100-mig): nvidia.com/mig.config is all-1g.10gb (7 x 1g.10gb per GPU), the pool's "
         "layout is 2 x 1g.10gb, 1 x 2g.20gb, 1 x 3g.40gb: the MIG manager applies another layout"),
        # no status at all: not judged, and said so (a trimmed paste, not a node that is down)
        ("eks-h100-mig.yaml", pool, "snapshot-object-partial",
         "node h100-mig-5 (pool h100-mig): has no status in the snapshot: whether it is Ready and the GPUs it offers "
         "not judged"),
        ("snap.yaml", _snap_line(tmp_path, "name: stray"), "node-unclaimed",
         "node stray-0 has GPUs but belongs to no pool of profile eks-h100-mig: nvidia.com/gpu.count=1, pool h100-mig "
         "has 8 GPU(s) per node"),
        ("snap.yaml", _snap_line(tmp_path, "state: notReady") - 1, "operator-not-ready",
         "ClusterPolicy cluster-policy is notReady, not ready"),
        ("snap.yaml", _snap_line(tmp_path, "name: big") + 2, "pod-gpu-unschedulable",
         "pod ml/big is pending for 1 nvidia.com/mig-7g.80gb, and no node offers it"),
    ])


def _snap_line(tmp_path: Path, needle: str) -> int:
    return next(i for i, line in enumerate((tmp_path / "snap.yaml").read_text().splitlines(), 1) if needle in line)


def test_a_dra_pool_without_slices_or_with_a_device_plugin_left(run, tmp_path):
    """gke-dra's nodes: one publishes no ResourceSlice (the kubelet plugin never started), one still advertises
    nvidia.com/gpu from a device plugin."""
    snap = snapshots.healthy(DRA.read_text())
    snap["items"] = [i for i in snap["items"] if not (i["kind"] == "ResourceSlice" and i["spec"]["nodeName"] == "l4-shared-0")]
    left = snapshots.find(snap, "a100-mig-1")
    for section in ("capacity", "allocatable"):
        left["status"][section]["nvidia.com/gpu"] = "1"
    result = check(run, tmp_path, DRA, snap)
    alloc = _line(DRA, "allocation: dra")
    alloc_mig = _line(DRA, "allocation: dra", "- name: a100-mig")
    assert (result.exit_code, found(result)) == (1, [
        ("gke-dra.yaml", alloc, "node-gpus-not-advertised", "node l4-shared-0 (pool l4-shared): publishes no GPU "
         "device in a ResourceSlice (driver gpu.nvidia.com), where the pool hands out 1 GPU(s) through DRA: the DRA "
         "kubelet plugin is not running there, so every claim stays pending"),
        ("gke-dra.yaml", alloc_mig, "node-stale-label", "node a100-mig-1 (pool a100-mig): advertises nvidia.com/gpu: 1 "
         "on a DRA pool: a device plugin still runs there and hands out the GPUs the DRA driver claims")])


def test_what_a_gengpu_snapshot_says_it_captured_and_could_not_read_is_taken_at_its_word(run, tmp_path):
    """A `gengpu snapshot` file names the kinds it captured and what it could not read (its List's annotations): no
    ResourceSlice in it means none published only where it captured them, and each kind not read is a finding that
    says the checks needing it are left out. A snapshot that says neither (kubectl's) is judged on what it holds."""
    snap = snapshots.healthy(DRA.read_text(), per_pool=1)
    snap["items"] = [i for i in snap["items"] if i["kind"] != "ResourceSlice"]
    assert found(check(run, tmp_path, DRA, snap)) == []
    snap["metadata"] = {"annotations": {"gengpu.dev/snapshot-of": "context prod",
                                        "gengpu.dev/captured": "clusterpolicies,configmaps,nodes,resourceslices",
                                        "gengpu.dev/not-read": "pods: forbidden (403); events: forbidden (403)"}}
    result = check(run, tmp_path, DRA, snap)
    assert (result.exit_code, [(rule, message) for _, _, rule, message in found(result)]) == (1, [
        *[("node-gpus-not-advertised", f"node {node} (pool {pool}): publishes no GPU device in a ResourceSlice "
           "(driver gpu.nvidia.com), where the pool hands out 1 GPU(s) through DRA: the DRA kubelet plugin is not "
           "running there, so every claim stays pending") for node, pool in (("l4-shared-0", "l4-shared"),
                                                                          ("a100-mig-0", "a100-mig"))],
        ("snapshot-incomplete", "not read: events: forbidden (403); the checks that need it are left out"),
        ("snapshot-incomplete", "not read: pods: forbidden (403); the checks that need it are left out")])


def test_a_profile_that_cannot_be_read_leaves_the_snapshot_read_and_no_node_judged(run, tmp_path):
    """The profile's own error is the finding (no pool to judge a node against), with what the snapshot says it
    could not read; the summary counts the snapshot's nodes."""
    (tmp_path / "broken.yaml").write_text(DRA.read_text().replace("platform: gke\n", "platform: gkee\n"))
    snap = snapshots.healthy(DRA.read_text(), per_pool=1)
    snap["metadata"] = {"annotations": {"gengpu.dev/not-read": "events: forbidden (403)"}}
    (tmp_path / "snap.yaml").write_text(snapshots.dump(snap))
    result = run("check", "broken.yaml", "--snapshot", "snap.yaml", "--output", "json", cwd=tmp_path)
    assert (result.exit_code, [(f["file"], f["rule"]) for f in json.loads(result.stdout)["findings"]]) == (
        1, [("broken.yaml", "profile-schema"), ("snap.yaml", "snapshot-incomplete")])
    result = run("check", "broken.yaml", "--snapshot", "snap.yaml", "--output", "text", cwd=tmp_path)
    assert result.stderr.splitlines() == ["gengpu: checked 3 node(s) of snap.yaml: 2 error(s), 0 other finding(s)."]


def test_the_profile_of_the_cluster_is_chosen_from_all(run, tmp_path):
    """Without profiles named, every profiles/*.yaml is read and the one whose pools the nodes belong to is used."""
    shutil.copytree(REPO / "profiles", tmp_path / "profiles")
    snap = snapshots.healthy(MPS.read_text())
    snapshots.find(snap, "l4-mps-0")["metadata"]["labels"]["nvidia.com/gpu.replicas"] = "2"
    (tmp_path / "snap.yaml").write_text(snapshots.dump(snap))
    result = run("check", "--snapshot", "snap.yaml", "--output", "json", cwd=tmp_path)
    assert [(f["file"], f["rule"]) for f in json.loads(result.stdout)["findings"]] == [
        ("profiles/eks-l4-mps.yaml", "node-sharing-config-mismatch")]
    text = run("check", "--snapshot", "snap.yaml", cwd=tmp_path)
    assert text.stderr.endswith("gengpu: checked 3 node(s) of snap.yaml against profiles/eks-l4-mps.yaml: 1 error(s), "
                                "0 other finding(s).\n")


def test_a_snapshot_on_standard_input(tmp_path, monkeypatch):
    """kubectl get nodes,... -o yaml | gengpu check PROFILE --snapshot -"""
    from click.testing import CliRunner

    from gengpu.cli import main

    shutil.copy(MPS, tmp_path / MPS.name)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["check", MPS.name, "--snapshot", "-", "--output", "json"],
                                input=snapshots.dump(snapshots.healthy(MPS.read_text())), catch_exceptions=False)
    assert (result.exit_code, json.loads(result.stdout)["findings"]) == (0, [])


def test_a_snapshot_of_another_cluster(run, tmp_path):
    result = check(run, tmp_path, MPS, snapshots.healthy(MIG.read_text()))
    assert (result.exit_code, found(result)) == (1, [
        ("snap.yaml", 1, "snapshot-cluster-mismatch", "no node of snap.yaml belongs to a pool of eks-l4-mps (3 "
         "node(s), 2 with GPUs): is it a snapshot of another cluster? (node h100-mig-0: nvidia.com/gpu.count=8, pool "
         "l4-mps has 1 GPU(s) per node; node h100-mig-1: nvidia.com/gpu.count=8, pool l4-mps has 1 GPU(s) per node)")])


@pytest.mark.parametrize("content, rule, message", [
    (b"items: [\n", "yaml-syntax", None),
    (b"items:\n  - \xff\xff\n", "file-unreadable", None),
    (b"apiVersion: v1\nkind: List\nitems: []\n", "snapshot-incomplete",
     "the snapshot holds no Node: nothing to check the profiles' promises against"),
    (b"- just\n- a list\n", "snapshot-incomplete",
     "the snapshot holds no Node: nothing to check the profiles' promises against"),
])
def test_a_broken_snapshot_is_one_finding(run, tmp_path, content, rule, message):
    shutil.copy(MPS, tmp_path / MPS.name)
    (tmp_path / "snap.yaml").write_bytes(content)
    result = run("check", MPS.name, "--snapshot", "snap.yaml", "--output", "json", cwd=tmp_path)
    findings = json.loads(result.stdout)["findings"]
    assert result.exit_code == 1 and [f["rule"] for f in findings] == [rule]
    if message:
        assert findings[0]["message"] == message


def test_a_snapshot_that_is_no_file_or_too_large(run, tmp_path, monkeypatch):
    import os

    from gengpu.loading import reading

    shutil.copy(MPS, tmp_path / MPS.name)
    os.mkfifo(tmp_path / "fifo.yaml")
    result = run("check", MPS.name, "--snapshot", "fifo.yaml", "--output", "json", cwd=tmp_path)
    assert [f["message"] for f in json.loads(result.stdout)["findings"]] == [
        "cannot read file: it is a FIFO, not a regular file"]
    monkeypatch.setattr(reading, "MAX_BYTES", 1000)  # other files' limit: a snapshot has its own
    (tmp_path / "big.yaml").write_text(snapshots.dump(snapshots.healthy(MPS.read_text())))
    result = run("check", MPS.name, "--snapshot", "big.yaml", "--output", "json", cwd=tmp_path)
    assert json.loads(result.stdout)["findings"] == []
    monkeypatch.setattr(reading, "SNAPSHOT_MAX_BYTES", 1000)
    result = run("check", MPS.name, "--snapshot", "big.yaml", "--output", "json", cwd=tmp_path)
    assert [(f["rule"], f["fix"]) for f in json.loads(result.stdout)["findings"]] == [
        ("yaml-limit", "split the file, or set GENGPU_MAX_SNAPSHOT_BYTES")]
    missing = run("check", MPS.name, "--snapshot", "nope.yaml", cwd=tmp_path)
    assert (missing.exit_code, missing.output) == (2, "gengpu: error: nope.yaml: no such file\n")


def test_a_kubectl_list_of_one_kind_and_objects_without_status(run, tmp_path):
    """`kubectl get nodes -o yaml` prints a List whose items say their kind; a NodeList's items may not. An object
    without status is judged as far as it can be, and what was not judged is said (info), not called a failure."""
    snap = snapshots.healthy(MPS.read_text())
    nodes = [dict(i) for i in snap["items"] if i["kind"] == "Node"]
    for n in nodes:
        n.pop("kind")
        n.pop("apiVersion")
    nodes[0].pop("status")
    result = check(run, tmp_path, MPS, {"apiVersion": "v1", "kind": "NodeList", "items": nodes})
    assert (result.exit_code, [f[2:] for f in found(result)]) == (0, [(
        "snapshot-object-partial", f"node {nodes[0]['metadata']['name']} (pool l4-mps): has no status in the snapshot: "
        "whether it is Ready and the GPUs it offers not judged")])


def test_two_profiles_that_claim_the_nodes_alike_must_be_named(run, tmp_path):
    (tmp_path / "profiles").mkdir()
    for name in ("one", "two"):
        (tmp_path / "profiles" / f"{name}.yaml").write_text(MPS.read_text().replace("name: eks-l4-mps", f"name: {name}"))
    (tmp_path / "snap.yaml").write_text(snapshots.dump(snapshots.healthy(MPS.read_text())))
    result = run("check", "--snapshot", "snap.yaml", cwd=tmp_path)
    assert (result.exit_code, result.output) == (2, "gengpu: error: snap.yaml: its nodes belong to pools of one and two "
                                                    "alike; name the profile of this cluster (gengpu check PROFILE ...)\n")


@pytest.mark.parametrize("fmt", ["sarif", "junit", "github"])
def test_findings_in_every_report_format(run, tmp_path, fmt):
    snap = snapshots.healthy(MPS.read_text())
    snapshots.find(snap, "l4-mps-0")["metadata"]["labels"]["nvidia.com/mig.config"] = "all-1g.5gb"
    (tmp_path / "snap.yaml").write_text(snapshots.dump(snap))
    shutil.copy(MPS, tmp_path / MPS.name)
    out = run("check", MPS.name, "--snapshot", "snap.yaml", "--output", fmt, cwd=tmp_path)
    assert out.exit_code == 1 and "node-stale-label" in out.stdout


def test_a_node_without_the_config_label_runs_the_default_config(run, tmp_path):
    """No nvidia.com/device-plugin.config label: the device plugin takes the ConfigMap's default key. For a pool
    without time-slicing or MPS that is the pool's own config (kind clusters and node groups made by hand carry no
    label: tests/live-corpus #503); for a shared pool it is sharing that never applied."""
    plain = REPO / "profiles" / "eks-spot-ondemand.yaml"
    for profile, expected in ((plain, []), (MPS, ["node-sharing-config-mismatch"] * 2)):
        snap = snapshots.healthy(profile.read_text())
        for item in snap["items"]:
            if item["kind"] == "Node":
                item["metadata"]["labels"].pop("nvidia.com/device-plugin.config", None)
        result = check(run, tmp_path, profile, snap)
        assert [f[2] for f in found(result)] == expected, profile.name


def test_the_readme_example_is_what_check_prints(run, tmp_path):
    """README's "Check a running cluster" output, from a snapshot of eks-l4-mps with one node's GPUs unhealthy and
    another left on the default config."""
    shutil.copytree(REPO / "profiles", tmp_path / "profiles")
    snap = snapshots.healthy(MPS.read_text(), per_pool=3)
    snapshots.find(snap, "l4-mps-0")["status"]["allocatable"]["nvidia.com/gpu"] = "2"
    other = snapshots.find(snap, "l4-mps-1")
    other["metadata"]["labels"]["nvidia.com/device-plugin.config"] = "default"
    other["status"]["allocatable"]["nvidia.com/gpu"] = other["status"]["capacity"]["nvidia.com/gpu"] = "1"
    (tmp_path / "snap.yaml").write_text(snapshots.dump(snap))
    result = run("check", "--snapshot", "snap.yaml", cwd=tmp_path)
    readme = (REPO / "README.md").read_text().split("## Check a running cluster", 1)[1]
    shown = readme.split("\n```\n", 3)[2]  # the block after the commands: the output
    printed = [line for line in (result.stdout + result.stderr).splitlines() if not line.startswith("  fix:")]
    assert (result.exit_code, "\n".join(printed)) == (1, shown)


def test_fields_of_another_shape_read_as_absent(run, tmp_path):
    """A snapshot is input like any other: a status that is a string, conditions that are not a list, a pod whose
    containers are a number (the surfaces fuzzer's case 48 stopped on the first) are judged as absent, never a
    traceback."""
    snap = snapshots.healthy(DRA.read_text())
    nodes = [i for i in snap["items"] if i["kind"] == "Node" and i["metadata"]["name"] != "system-0"]
    nodes[0]["status"]["allocatable"] = "lots"
    nodes[1]["status"]["conditions"] = {"type": "Ready"}
    nodes[2]["status"] = ["Ready"]
    slices = [i for i in snap["items"] if i["kind"] == "ResourceSlice"]
    slices[0]["spec"]["devices"] = 5
    snap["items"].append({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": 7},
                          "spec": {"containers": 3}, "status": {"phase": ["Pending"]}})
    snap["items"].append({"apiVersion": "nvidia.com/v1", "kind": "ClusterPolicy", "metadata": {"name": "odd"},
                          "status": [{"state": "ready"}]})
    result = check(run, tmp_path, DRA, snap)
    assert result.exit_code in (0, 1) and "internal error" not in result.output
    rules = sorted({f[2] for f in found(result)})
    assert rules == ["node-gpus-not-advertised", "snapshot-object-partial"]


def test_gfd_labels_of_a_renamed_shared_resource(run, tmp_path):
    """GFD labels nvidia.com/gpu.replicas, .sharing-strategy and .product whatever the advertised name; the product
    says -SHARED only when the shared resource keeps the name nvidia.com/gpu (k8s-device-plugin resource.go). A
    renameByDefault pool whose node shows -SHARED runs a config that does not rename: pods asking for
    nvidia.com/gpu.shared wait."""
    profile = REPO / "tests" / "fixtures" / "profiles" / "eks-shared-paths.yaml"
    data = yaml.safe_load(profile.read_text())
    pool = next(p for p in data["spec"]["nodePools"] if (p.get("sharing") or {}).get("renameByDefault"))
    snap = snapshots.healthy(profile.read_text(), per_pool=2)
    first, second = (snapshots.find(snap, f"{pool['name']}-{i}") for i in range(2))
    first["metadata"]["labels"]["nvidia.com/gpu.replicas"] = "2"
    second["metadata"]["labels"]["nvidia.com/gpu.product"] += "-SHARED"
    result = check(run, tmp_path, profile, snap)
    assert [(f[2], f[3]) for f in found(result)] == [
        ("node-sharing-config-mismatch", f"node {pool['name']}-0 (pool {pool['name']}): GPU Feature Discovery reports "
         f"nvidia.com/gpu.replicas=2, the pool shares each GPU {pool['sharing']['replicas']} ways: the node runs an "
         "older or another sharing config"),
        ("node-sharing-config-mismatch", f"node {pool['name']}-1 (pool {pool['name']}): GPU Feature Discovery reports "
         "nvidia.com/gpu.product=NVIDIA-L4-SHARED: the device plugin does not rename the shared GPUs, the pool "
         "promises nvidia.com/gpu.shared")]


def test_a_large_json_snapshot_is_read_fast_and_judged_as_the_yaml_one(run, tmp_path):
    """A cluster's JSON snapshot is read by the json module (positions only for a finding that needs one), and a
    snapshot may be larger than the 16 MiB meant for hand-written files; the verdicts are the YAML form's."""
    import json as json_module

    import snapshots

    profile = REPO / "profiles" / "eks-h100-mig.yaml"
    snap = snapshots.healthy(profile.read_text(), per_pool=300)
    snap["items"] += snapshots.gpu_pods(snap, 3)
    node = next(i for i in snap["items"] if i["kind"] == "Node")
    node["metadata"]["labels"]["nvidia.com/mig.config.state"] = "failed"
    (tmp_path / "snap.json").write_text(json_module.dumps(snap, indent=2))
    (tmp_path / "snap.yaml").write_text(snapshots.dump(snap))
    reports = [json_module.loads(run("check", str(profile), "--snapshot", name, "--output", "json",
                                     cwd=tmp_path).stdout)["findings"] for name in ("snap.json", "snap.yaml")]
    assert reports[0] == reports[1] and [f["rule"] for f in reports[0]] == ["node-mig-not-applied"]
    # past the 16 MiB limit of other files: a snapshot is read up to 512 MiB
    pad = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "padding", "namespace": "other"},
           "data": {"x": "y" * (17 * 1024 * 1024)}}
    snap["items"].append(pad)
    (tmp_path / "big.json").write_text(json_module.dumps(snap))
    result = run("check", str(profile), "--snapshot", "big.json", "--output", "json", cwd=tmp_path)
    assert result.exit_code == 1 and [f["rule"] for f in json_module.loads(result.stdout)["findings"]] == [
        "node-mig-not-applied"]


def test_nodes_a_profiles_labels_claim_outrank_nodes_anothers_gpus_fit(run, tmp_path):
    """Two profiles and one snapshot: eks-h100-mig's pool label is on one of the two p5 nodes, eks-spot-ondemand's
    catch-all pool fits all four GPU nodes by type. The cluster is the one a label names (gengpu wrote it): its
    findings are told against eks-h100-mig, not lost to the profile that merely fits more nodes."""
    def node(name, instance, labels=()):
        product, count = {"p5.48xlarge": ("NVIDIA-H100-80GB-HBM3", "8"), "g5.xlarge": ("NVIDIA-A10G", "1")}[instance]
        return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {
            "node.kubernetes.io/instance-type": instance, "nvidia.com/gpu.product": product,
            "nvidia.com/gpu.count": count, **dict(labels)}},
            "status": {"capacity": {"nvidia.com/gpu": count}, "allocatable": {"nvidia.com/gpu": count}}}
    items = [node("h1", "p5.48xlarge", [("karpenter.sh/nodepool", "h100-mig")]), node("h2", "p5.48xlarge"),
             node("a1", "g5.xlarge"), node("a2", "g5.xlarge")]
    (tmp_path / "snap.yaml").write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items}))
    for name in ("eks-h100-mig.yaml", "eks-spot-ondemand.yaml"):
        shutil.copy(REPO / "profiles" / name, tmp_path / name)
    result = run("check", "eks-h100-mig.yaml", "eks-spot-ondemand.yaml", "--snapshot", "snap.yaml", "--output", "json",
                 cwd=tmp_path)
    assert result.exit_code == 1, result.output
    got = {(f[0], f[2]) for f in found(result)}
    assert got == {("eks-h100-mig.yaml", "node-gpus-not-advertised"), ("eks-h100-mig.yaml", "snapshot-object-partial"),
                   ("snap.yaml", "node-unclaimed")}
    assert [f[3] for f in found(result) if f[2] == "node-gpus-not-advertised"][0].startswith("node h1 (pool h100-mig)")
