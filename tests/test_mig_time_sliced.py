"""MIG devices time-sliced (issue 47: an intent a profile could not state). The device plugin's timeSlicing
resources take nvidia.com/mig-* names under the mixed strategy and nvidia.com/gpu under single (k8s-device-plugin
v0.19.1 api/config/v1 replicas.go); GFD then labels each MIG resource with its replicas and a -SHARED product
(internal/lm/resource.go baseLabeler), and the kubelet is offered each device once per replica. MPS refuses MIG
devices (internal/plugin/mps.go), so only time-slicing is offered. The node states below are written from those
sources, not from gengpu's output."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import yaml

from gengpu.loading import load_embedded, load_file

REPO = Path(__file__).resolve().parent.parent
FIXTURE_PROFILE = "eks-mig-time-sliced.yaml"
PROFILE = REPO / "tests" / "fixtures" / "profiles" / FIXTURE_PROFILE


def _config(overlay: Path) -> dict:
    docs, _ = load_file(overlay / "device-plugin-config.yaml")
    inner, _ = load_embedded(docs[0], ("data", "h100-sliced"))
    return inner[0].data


def test_the_pool_config_time_slices_each_mig_profile_and_nvidia_accepts_it(profile_repo, run, harness):
    result = run("build", "profiles/eks-mig-time-sliced.yaml", "-o", "overlays", cwd=profile_repo)
    assert result.exit_code == 0, result.output
    overlay = profile_repo / "overlays" / "eks-mig-time-sliced"
    assert _config(overlay) == {
        "version": "v1", "flags": {"migStrategy": "mixed"},
        "sharing": {"timeSlicing": {"renameByDefault": False, "failRequestsGreaterThanOne": False, "resources": [
            {"name": "nvidia.com/mig-3g.40gb", "replicas": 4}, {"name": "nvidia.com/mig-1g.10gb", "replicas": 4}]}}}
    docs, _ = load_file(overlay / "device-plugin-config.yaml")
    key = profile_repo / "h100-sliced.yaml"
    key.write_text(docs[0].data["data"]["h100-sliced"])
    assert harness("device-plugin", [key])["h100-sliced.yaml"]["valid"] is True
    # the MIG manager's layout is the same as without time-slicing: slicing is the device plugin's
    migs, _ = load_file(overlay / "mig-parted-config.yaml")
    parted = yaml.safe_load(migs[0].data["data"]["config.yaml"])
    assert parted["mig-configs"]["h100-sliced"] == [
        {"devices": "all", "mig-enabled": True, "mig-devices": {"3g.40gb": 1, "1g.10gb": 4}}]


def test_single_strategy_slices_nvidia_com_gpu(profile_repo, run):
    profile = yaml.safe_load(PROFILE.read_text())
    profile["spec"]["nodePools"][0]["sharing"]["mig"] = {"strategy": "single", "layout": {"1g.10gb": 7}, "replicas": 2}
    (profile_repo / "profiles" / FIXTURE_PROFILE).write_text(yaml.safe_dump(profile, sort_keys=False))
    result = run("build", "profiles/eks-mig-time-sliced.yaml", "-o", "overlays", cwd=profile_repo)
    assert result.exit_code == 0, result.output
    config = _config(profile_repo / "overlays" / "eks-mig-time-sliced")
    assert config["flags"] == {"migStrategy": "single"}
    assert config["sharing"]["timeSlicing"]["resources"] == [{"name": "nvidia.com/gpu", "replicas": 2}]


def test_one_replica_and_mps_on_mig_are_refused_by_the_schema(run, tmp_path):
    profile = yaml.safe_load(PROFILE.read_text())
    profile["spec"]["nodePools"][0]["sharing"]["mig"]["replicas"] = 1
    (tmp_path / "one.yaml").write_text(yaml.safe_dump(profile, sort_keys=False))
    profile["spec"]["nodePools"][0]["sharing"]["mig"]["replicas"] = 4
    profile["spec"]["nodePools"][0]["sharing"]["mode"] = "mps"
    (tmp_path / "mps.yaml").write_text(yaml.safe_dump(profile, sort_keys=False))
    result = run("validate", "one.yaml", "mps.yaml", "--output", "json", cwd=tmp_path)
    errors = sorted((Path(f["file"]).name, f["line"], f["message"], f["fix"])
                    for f in json.loads(result.output)["findings"] if f["severity"] == "error")
    assert result.exit_code == 1
    assert errors == [
        ("mps.yaml", 23, "'spec.nodePools[0].sharing.mig' is not allowed with sharing mode mps",
         "a MIG layout goes with mode: mig; to share MIG devices between pods set mode: mig and mig.replicas "
         "(time-slicing on each MIG device: NVIDIA's device plugin runs no MPS on MIG devices)"),
        ("mps.yaml", 23, "missing required field 'replicas' in 'spec.nodePools[0].sharing'", "add the missing field"),
        ("one.yaml", 30, "'spec.nodePools[0].sharing.mig.replicas': 1 is less than the minimum of 2",
         "use 2 or more to time-slice each MIG device; for one pod per MIG device, remove mig.replicas")]


# A node of the pool as the stack leaves it, written from the sources above: 8 GPUs x (1 x 3g.40gb + 4 x 1g.10gb),
# each device offered 4 times; GFD counts the devices and labels their replicas and strategy
def _node(name: str, replicas: int) -> dict:
    labels = {"karpenter.sh/nodepool": "h100-sliced", "node.kubernetes.io/instance-type": "p5.48xlarge",
              "topology.kubernetes.io/region": "us-east-1", "topology.kubernetes.io/zone": "us-east-1a",
              "nvidia.com/gpu.present": "true", "nvidia.com/gpu.count": "8", "nvidia.com/mig.strategy": "mixed",
              "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3", "nvidia.com/mig.capable": "true",
              "nvidia.com/mig.config": "h100-sliced", "nvidia.com/mig.config.state": "success",
              "nvidia.com/device-plugin.config": "h100-sliced"}
    for profile, count in (("3g.40gb", 8), ("1g.10gb", 32)):
        labels.update({f"nvidia.com/mig-{profile}.count": str(count),
                       f"nvidia.com/mig-{profile}.replicas": str(replicas),
                       f"nvidia.com/mig-{profile}.sharing-strategy": "time-slicing" if replicas > 1 else "none",
                       f"nvidia.com/mig-{profile}.product": f"NVIDIA-H100-80GB-HBM3-MIG-{profile}"
                                                           + ("-SHARED" if replicas > 1 else "")})
    offered = {"cpu": "192", "nvidia.com/mig-3g.40gb": str(8 * replicas), "nvidia.com/mig-1g.10gb": str(32 * replicas)}
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels},
            "status": {"capacity": offered, "allocatable": offered,
                       "conditions": [{"type": "Ready", "status": "True"}]}}


def _snapshot(profile_repo, run, nodes: list[dict]) -> Path:
    """The nodes with the ConfigMap and ClusterPolicy the overlay installs."""
    assert run("build", "profiles/eks-mig-time-sliced.yaml", "-o", "overlays", cwd=profile_repo).exit_code == 0
    docs, _ = load_file(profile_repo / "overlays" / "eks-mig-time-sliced" / "device-plugin-config.yaml")
    cm = docs[0].data
    policy = {"apiVersion": "nvidia.com/v1", "kind": "ClusterPolicy", "metadata": {"name": "cluster-policy"},
              "spec": {"devicePlugin": {"config": {"name": cm["metadata"]["name"], "default": "default"}}},
              "status": {"state": "ready"}}
    path = profile_repo / "snap.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [*nodes, cm, policy]}))
    return path


def _findings(run, profile_repo, snapshot: Path, profile: str = "profiles/eks-mig-time-sliced.yaml"):
    result = run("check", profile, "--snapshot", str(snapshot), "--output", "json", cwd=profile_repo)
    found = [(f["rule"], f["message"]) for f in json.loads(result.stdout)["findings"] if f["severity"] != "info"]
    return result.exit_code, found


def test_a_healthy_time_sliced_mig_node_checks_clean(profile_repo, run):
    # (before, GFD's count x its replicas read as a count that disagrees with what is offered)
    assert _findings(run, profile_repo, _snapshot(profile_repo, run, [_node("n1", 4)])) == (0, [])


def test_a_node_whose_mig_devices_are_not_time_sliced_is_found(profile_repo, run):
    code, found = _findings(run, profile_repo, _snapshot(profile_repo, run, [_node("n1", 1)]))
    assert code == 1
    assert found == [
        ("node-gpus-not-advertised", "node n1 (pool h100-sliced): nvidia.com/mig-3g.40gb is 8, the profile "
         "promises 32 (8 GPU(s) x 1 3g.40gb x 4 time-slicing replicas); nvidia.com/mig-1g.10gb is 32, the profile "
         "promises 128 (8 GPU(s) x 4 1g.10gb x 4 time-slicing replicas): the node runs another MIG layout"),
        ("node-sharing-config-mismatch", "node n1 (pool h100-sliced): GPU Feature Discovery reports "
         "nvidia.com/mig-1g.10gb.replicas=1, the pool time-slices each MIG device 4 ways: the node runs an older "
         "or another sharing config"),
        ("node-sharing-config-mismatch", "node n1 (pool h100-sliced): GPU Feature Discovery reports "
         "nvidia.com/mig-3g.40gb.replicas=1, the pool time-slices each MIG device 4 ways: the node runs an older "
         "or another sharing config")]


def test_a_config_that_does_not_slice_the_mig_devices_is_named(profile_repo, run):
    snapshot = _snapshot(profile_repo, run, [_node("n1", 4)])
    state = json.loads(snapshot.read_text())
    cm = next(o for o in state["items"] if o["kind"] == "ConfigMap")
    cm["data"]["h100-sliced"] = "version: v1\nflags:\n  migStrategy: mixed\n"
    snapshot.write_text(json.dumps(state))
    code, found = _findings(run, profile_repo, snapshot)
    assert (code, found) == (1, [("node-sharing-config-mismatch", "node n1 (pool h100-sliced): runs config "
                                  "h100-sliced of ConfigMap gengpu-device-plugin-config (MIG devices not "
                                  "time-sliced), the pool promises nvidia.com/mig-1g.10gb x 4, nvidia.com/mig-3g.40gb "
                                  "x 4 time-sliced")])


def test_import_states_the_time_slicing_and_the_profile_checks_clean(profile_repo, run):
    snapshot = _snapshot(profile_repo, run, [_node("n1", 4), _node("n2", 4)])
    result = run("import", "--snapshot", str(snapshot), "--name", "adopted", "-o", "adopted.yaml", cwd=profile_repo)
    assert result.exit_code == 0, result.output
    pool, = yaml.safe_load((profile_repo / "adopted.yaml").read_text())["spec"]["nodePools"]
    assert (pool["gpu"], pool["gpusPerNode"], pool["sharing"]) == ("H100-80GB", 8, {
        "mode": "mig", "mig": {"strategy": "mixed", "layout": {"1g.10gb": 4, "3g.40gb": 1}, "replicas": 4}})
    shutil.copy(profile_repo / "adopted.yaml", profile_repo / "profiles" / "adopted.yaml")
    code, found = _findings(run, profile_repo, snapshot, "profiles/adopted.yaml")
    assert [f for f in found if f[0] != "node-sharing-config-mismatch"] == [] and code in (0, 1)


def test_gke_time_shares_its_own_mig_partitions(run, tmp_path):
    """GKE Standard without the operator: GKE's device plugin time-shares a partition size ("Share GPUs with
    multiple workloads using time-sharing": gpu-partition-size with gpu-sharing-strategy=time-sharing and
    max-shared-clients-per-gpu), and pods select all three labels."""
    profile = yaml.safe_load((REPO / "tests" / "fixtures" / "profiles" / "gke-native-sharing.yaml").read_text())
    pool = profile["spec"]["nodePools"][0]
    pool.update({"name": "a100-sliced", "gpu": "A100-40GB", "instanceTypes": ["a2-highgpu-1g"],
                 "sharing": {"mode": "mig", "mig": {"strategy": "single", "layout": {"1g.5gb": 7}, "replicas": 3}}})
    (tmp_path / "profiles").mkdir()
    (tmp_path / "profiles" / "g.yaml").write_text(yaml.safe_dump(profile, sort_keys=False))
    assert run("build", "profiles/g.yaml", "-o", "overlays", cwd=tmp_path).exit_code == 0
    overlay = tmp_path / "overlays" / "gke-native-sharing"
    script = (overlay / "gke-nodepool-a100-sliced.sh").read_text()
    assert "--accelerator type=nvidia-tesla-a100,count=1,gpu-driver-version=default,gpu-sharing-strategy=time-sharing," \
           "max-shared-clients-per-gpu=3,gpu-partition-size=1g.5gb \\\n" in script
    placement = yaml.safe_load((overlay / "components" / "a100-sliced" / "placement.yaml").read_text())
    selector = json.dumps(placement)
    for label in ('"cloud.google.com/gke-gpu-partition-size": "1g.5gb"',
                  '"cloud.google.com/gke-gpu-sharing-strategy": "time-sharing"',
                  '"cloud.google.com/gke-max-shared-clients-per-gpu": "3"'):
        assert label in selector


def test_gke_refuses_more_than_48_clients_of_a_mig_partition(run, tmp_path):
    """GKE's max-shared-clients-per-gpu (ComputeClass maxSharedClientsPerGPU: 2-48) is the same setting when it
    time-shares MIG partitions: 49 is refused at sharing.mig.replicas, 48 is not; under the GPU Operator GKE's limit
    does not apply (NVIDIA's device plugin slices)."""
    profile = yaml.safe_load((REPO / "tests" / "fixtures" / "profiles" / "gke-native-sharing.yaml").read_text())
    profile["spec"]["nodePools"][0].update({
        "name": "a100-sliced", "gpu": "A100-40GB", "instanceTypes": ["a2-highgpu-1g"],
        "sharing": {"mode": "mig", "mig": {"strategy": "single", "layout": {"1g.5gb": 7}, "replicas": 49}}})
    path = tmp_path / "g.yaml"

    def found(data):
        path.write_text(yaml.safe_dump(data, sort_keys=False))
        out = json.loads(run("validate", "g.yaml", "--output", "json", cwd=tmp_path).stdout)["findings"]
        return [(f["line"], f["message"]) for f in out if f["rule"] == "gke-shared-clients-over-limit"]

    line = yaml.safe_dump(profile, sort_keys=False).splitlines().index("        replicas: 49") + 1
    assert found(profile) == [(line, "nodePools[0].sharing.mig.replicas is 49; GKE time-shares a MIG partition "
                                     "between at most 48 clients per GPU")]
    profile["spec"]["nodePools"][0]["sharing"]["mig"]["replicas"] = 48
    assert found(profile) == []
    profile["spec"]["nodePools"][0]["sharing"]["mig"]["replicas"] = 49
    profile["spec"]["operator"] = {"enabled": True}
    assert found(profile) == []


def test_karpenter_and_the_verification_are_told_what_a_node_offers_once_time_sliced(profile_repo, run):
    """The NodeOverlay's capacity is what a started node offers (8 GPUs x 1 3g.40gb x 4 replicas, 8 x 4 1g.10gb x 4):
    told the devices alone, Karpenter launches four nodes where one holds the pods. The NodePool's limits are the
    16 GPUs' worth."""
    assert run("build", "profiles/eks-mig-time-sliced.yaml", "-o", "overlays", cwd=profile_repo).exit_code == 0
    docs = list(yaml.safe_load_all((profile_repo / "overlays" / "eks-mig-time-sliced" /
                                    "nodepool-h100-sliced.yaml").read_text()))
    overlay, = [d for d in docs if d["kind"] == "NodeOverlay"]
    pool, = [d for d in docs if d["kind"] == "NodePool"]
    assert overlay["spec"]["capacity"] == {"nvidia.com/mig-3g.40gb": "32", "nvidia.com/mig-1g.10gb": "128"}
    assert pool["spec"]["limits"] == {"nvidia.com/gpu": "16", "nvidia.com/mig-3g.40gb": "64",
                                      "nvidia.com/mig-1g.10gb": "256"}
    # the verification workload fills one node's 3g.40gb devices: 8 x 1 x 4 pods
    verify = yaml.safe_load((profile_repo / "overlays" / "eks-mig-time-sliced" / "verify" / "h100-sliced" /
                             "deployment.yaml").read_text())
    assert verify["spec"]["replicas"] == 32


def test_a_sharing_that_is_not_a_mapping_is_one_error_not_a_crash(run, tmp_path):
    """scripts/fuzz case 198 (after the new fixtures): `sharing: aks` reached the message for MPS with a MIG block,
    which read the string as a mapping (exit 3), and was told twice."""
    profile = yaml.safe_load(PROFILE.read_text())
    profile["spec"]["nodePools"][0]["sharing"] = "aks"
    (tmp_path / "p.yaml").write_text(yaml.safe_dump(profile, sort_keys=False))
    result = run("validate", "p.yaml", "--output", "json", cwd=tmp_path)
    assert result.exit_code == 1
    assert [(f["rule"], f["message"]) for f in json.loads(result.output)["findings"] if f["severity"] == "error"] == [
        ("profile-schema", "'spec.nodePools[0].sharing': 'aks' is not of type 'object'")]
