"""MIG laid out per GPU (issue 47: an intent a profile could not state): sharing.mig.layouts. mig-parted applies a
config entry by entry to the GPUs its devices list names (NVIDIA/mig-parted v0.13.1 api/spec/v1 MigConfigSpec:
"all" or GPU indices); under the mixed strategy the device plugin advertises each MIG profile's devices and the GPUs
left whole as nvidia.com/gpu, and GFD counts every GPU in nvidia.com/gpu.count (k8s-device-plugin v0.19.1
internal/lm/mig-strategy.go newGPULabelers). The node states below are written from those sources."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from gengpu.loading import load_file

REPO = Path(__file__).resolve().parent.parent
FIXTURE_PROFILE = "eks-mig-per-gpu.yaml"
OVERLAY = Path("overlays") / "eks-mig-per-gpu"


def _build(run, repo: Path) -> Path:
    result = run("build", f"profiles/{FIXTURE_PROFILE}", "-o", "overlays", cwd=repo)
    assert result.exit_code == 0, result.output
    return repo / OVERLAY


def test_the_mig_parted_config_names_each_gpu_and_nvidia_accepts_it(profile_repo, run, harness):
    overlay = _build(run, profile_repo)
    docs, _ = load_file(overlay / "mig-parted-config.yaml")
    text = docs[0].data["data"]["config.yaml"]
    assert yaml.safe_load(text)["mig-configs"]["h100-split"] == [
        {"devices": [0, 1, 2, 3], "mig-enabled": True, "mig-devices": {"1g.10gb": 7}},
        {"devices": [4, 5], "mig-enabled": True, "mig-devices": {"3g.40gb": 2}},
        {"devices": [6, 7], "mig-enabled": False}]
    (profile_repo / "config.yaml").write_text(text)
    verdict = harness("mig-parted", [profile_repo / "config.yaml"])["config.yaml"]
    assert verdict["valid"] is True, verdict


def test_karpenter_the_components_and_the_verification_count_a_node_gpu_by_gpu(profile_repo, run):
    """One node offers 4 x 7 1g.10gb, 2 x 2 3g.40gb and 2 whole GPUs; limits.gpus 16 is two nodes' worth."""
    overlay = _build(run, profile_repo)
    docs = list(yaml.safe_load_all((overlay / "nodepool-h100-split.yaml").read_text()))
    node_overlay, = [d for d in docs if d["kind"] == "NodeOverlay"]
    pool, = [d for d in docs if d["kind"] == "NodePool"]
    assert node_overlay["spec"]["capacity"] == {"nvidia.com/mig-1g.10gb": "28", "nvidia.com/mig-3g.40gb": "4",
                                                "nvidia.com/gpu": "2"}
    assert pool["spec"]["limits"] == {"nvidia.com/gpu": "4", "nvidia.com/mig-1g.10gb": "56",
                                      "nvidia.com/mig-3g.40gb": "8"}
    assert sorted(p.name for p in (overlay / "components").iterdir()) == [
        "h100-split-1g.10gb", "h100-split-3g.40gb", "h100-split-gpu"]
    placement = yaml.safe_load((overlay / "components" / "h100-split-gpu" / "placement.yaml").read_text())
    assert "nvidia.com/gpu" in json.dumps(placement)
    verify = yaml.safe_load((overlay / "verify" / "h100-split" / "deployment.yaml").read_text())
    assert verify["spec"]["replicas"] == 28


def test_plan_prices_each_kind_of_device(profile_repo, run):
    result = run("plan", f"profiles/{FIXTURE_PROFILE}", cwd=profile_repo)
    assert result.exit_code == 0, result.output
    assert "  per slice-hour: on-demand 1g.10gb $0.98, 3g.40gb $3.44, GPU $6.88 (3.5 x 1g.10gb + 0.5 x 3g.40gb + " \
           "0.25 x GPU/GPU)\n" in result.output


def _node(name: str, config: str = "h100-split", offered: dict | None = None, counts: dict | None = None) -> dict:
    offered = offered if offered is not None else {"nvidia.com/mig-1g.10gb": 28, "nvidia.com/mig-3g.40gb": 4,
                                                   "nvidia.com/gpu": 2}
    counts = counts if counts is not None else {"1g.10gb": 28, "3g.40gb": 4}
    labels = {"karpenter.sh/nodepool": "h100-split", "node.kubernetes.io/instance-type": "p5.48xlarge",
              "topology.kubernetes.io/region": "us-east-1", "nvidia.com/gpu.present": "true",
              "nvidia.com/gpu.count": "8", "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3",
              "nvidia.com/mig.strategy": "mixed", "nvidia.com/mig.capable": "true", "nvidia.com/mig.config": config,
              "nvidia.com/mig.config.state": "success", "nvidia.com/device-plugin.config": "h100-split",
              **{f"nvidia.com/mig-{p}.count": str(n) for p, n in counts.items()}}
    capacity = {"cpu": "192", **{k: str(v) for k, v in offered.items()}}
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels},
            "status": {"capacity": capacity, "allocatable": capacity,
                       "conditions": [{"type": "Ready", "status": "True"}]}}


def _check(run, repo: Path, nodes: list[dict], profile: str = f"profiles/{FIXTURE_PROFILE}"):
    overlay = _build(run, repo)
    docs, _ = load_file(overlay / "device-plugin-config.yaml")
    cm = docs[0].data
    policy = {"apiVersion": "nvidia.com/v1", "kind": "ClusterPolicy", "metadata": {"name": "cluster-policy"},
              "spec": {"devicePlugin": {"config": {"name": cm["metadata"]["name"], "default": "default"}}},
              "status": {"state": "ready"}}
    (repo / "snap.json").write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [*nodes, cm, policy]}))
    result = run("check", profile, "--snapshot", "snap.json", "--output", "json", cwd=repo)
    return result.exit_code, [(f["rule"], f["message"]) for f in json.loads(result.stdout)["findings"]
                              if f["severity"] != "info"]


def test_a_node_laid_out_as_its_pool_checks_clean(profile_repo, run):
    # (before: its two whole GPUs read as MIG that failed on them, node-mig-whole-gpus)
    assert _check(run, profile_repo, [_node("n1")]) == (0, [])


def test_a_node_running_a_stock_layout_or_more_whole_gpus_is_found(profile_repo, run):
    stock = _node("n1", "all-1g.10gb", {"nvidia.com/mig-1g.10gb": 56}, {"1g.10gb": 56})
    whole = _node("n2", offered={"nvidia.com/mig-1g.10gb": 28, "nvidia.com/gpu": 4}, counts={"1g.10gb": 28})
    code, found = _check(run, profile_repo, [stock, whole])
    assert code == 1
    assert found == [
        ("node-gpus-not-advertised", "node n1 (pool h100-split): nvidia.com/mig-3g.40gb is 0, the profile promises 4 "
         "(4 3g.40gb on the GPUs the pool's per-GPU layouts give it): the node runs another MIG layout"),
        ("node-mig-not-applied", "node n1 (pool h100-split): nvidia.com/mig.config is all-1g.10gb (7 x 1g.10gb per "
         "GPU), the pool's layout is per GPU (sharing.mig.layouts): the MIG manager applies another layout"),
        ("node-mig-whole-gpus", "node n2 (pool h100-split): advertises 4 whole nvidia.com/gpu beside its MIG devices "
         "(28 nvidia.com/mig-1g.10gb): the profile promises 2 (2 GPU(s) the per-GPU layouts leave whole), and 2 "
         "more run without MIG")]


def test_import_does_not_guess_a_layout_for_gpus_laid_out_apart(profile_repo, run):
    """The node's counts cannot say which GPU holds what: import writes no MIG layout (before: {1g.10gb: 3}, 28
    devices over 8 GPUs rounded down) and says what to write."""
    _check(run, profile_repo, [_node("n1")])
    result = run("import", "--snapshot", "snap.json", "--name", "adopted", "-o", "adopted.yaml", cwd=profile_repo)
    pool, = yaml.safe_load((profile_repo / "adopted.yaml").read_text())["spec"]["nodePools"]
    assert "sharing" not in pool
    assert result.exit_code == 0, result.output
    assert "# check: pool h100-split: its MIG devices (28 1g.10gb, 4 3g.40gb and 2 whole GPU(s) on 8 GPUs) differ " \
           "GPU by GPU: no sharing is written; write sharing.mig.layouts (GPU indices with their layout, or whole: " \
           "true) from the MIG manager's config h100-split\n" in (profile_repo / "adopted.yaml").read_text()
