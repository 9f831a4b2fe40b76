"""How `gengpu check` ties nodes it did not label to pools, and reads node states as people paste them."""

import json
import shutil
from pathlib import Path

import pytest
import yaml

import snapshots

REPO = Path(__file__).resolve().parent.parent

TWO_POOLS = """apiVersion: gengpu.dev/v1alpha1
kind: GPUProfile
metadata:
  name: two
spec:
  platform: eks
  region: us-east-1
  kubernetesVersion: "1.33"
  operator:
    version: v26.7.0
  nodePools:
    - name: l4
      gpu: L4
      gpusPerNode: 1
      instanceTypes: [g6.xlarge]
      limits: {gpus: 8}
      sharing:
        mode: time-slicing
        replicas: 4
    - name: a100
      gpu: A100-40GB
      gpusPerNode: 8
      instanceTypes: [p4d.24xlarge]
      limits: {gpus: 16}
  quotas: {L-DB2E81BA: 100, L-417A185B: 384}
  argocd:
    repoURL: https://github.com/example/gitops.git
"""


def node(name: str, labels: dict, capacity: dict) -> dict:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels},
            "status": {"capacity": capacity, "allocatable": capacity,
                       "conditions": [{"type": "Ready", "status": "True"}]}}


def check(run, tmp_path, profile: str, snapshot: str, *args):
    (tmp_path / "p.yaml").write_text(profile)
    (tmp_path / "snap.txt").write_text(snapshot)
    result = run("check", "p.yaml", "--snapshot", "snap.txt", "--output", "json", *args, cwd=tmp_path)
    return result.exit_code, [(f["rule"], f["message"]) for f in json.loads(result.stdout)["findings"]
                              if f["severity"] != "info"]  # (what a paste lacks: held by the states corpus)


def test_nodes_without_pool_labels_are_tied_by_their_gpus(run, tmp_path):
    """Hand-made node groups: no gengpu or provisioner label. GFD's product (in an older spelling too) and count
    say which pool each node is; the L4 node's sharing that never applied is found at its pool."""
    items = [node("l4-node", {"nvidia.com/gpu.product": "NVIDIA-L4", "nvidia.com/gpu.count": "1"},
                  {"nvidia.com/gpu": "1"}),
             node("a100-node", {"nvidia.com/gpu.product": "A100-SXM4-40GB", "nvidia.com/gpu.count": "8"},
                  {"nvidia.com/gpu": "8"})]
    code, found = check(run, tmp_path, TWO_POOLS, yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items}))
    assert (code, found) == (1, [("node-gpus-not-advertised", "node l4-node (pool l4): nvidia.com/gpu is 1, one per "
                                  "GPU, the profile promises 4 (1 GPU(s) x 4 time-slicing replicas): the sharing "
                                  "config did not apply")])


def test_a_node_no_pool_fits_is_named_with_why(run, tmp_path):
    items = [node("h100-node", {"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3", "nvidia.com/gpu.count": "8"},
                  {"nvidia.com/gpu": "8"})]
    code, found = check(run, tmp_path, TWO_POOLS, yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items}))
    assert (code, found) == (1, [("snapshot-cluster-mismatch", "no node of snap.txt belongs to a pool of two (1 "
                                  "node(s), 1 with GPUs): is it a snapshot of another cluster? (node h100-node: "
                                  "nvidia.com/gpu.product=NVIDIA-H100-80GB-HBM3, pool l4 has L4; "
                                  "nvidia.com/gpu.product=NVIDIA-H100-80GB-HBM3, pool a100 has A100-40GB)")])
    beside = [node("l4-node", {"nvidia.com/gpu.product": "NVIDIA-L4"}, {"nvidia.com/gpu": "4"}),
              node("h100-node", {"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"}, {"nvidia.com/gpu": "8"})]
    code, found = check(run, tmp_path, TWO_POOLS, yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": beside}))
    assert (code, found) == (0, [("node-unclaimed", "node h100-node has GPUs but belongs to no pool of profile two: "
                                  "nvidia.com/gpu.product=NVIDIA-H100-80GB-HBM3, pool l4 has L4; "
                                  "nvidia.com/gpu.product=NVIDIA-H100-80GB-HBM3, pool a100 has A100-40GB")])


def test_a_pool_node_selector_and_pool_option(run, tmp_path):
    """nodeSelector ties nodes of a node group gengpu does not create; --pool puts every GPU node in one pool."""
    profile = TWO_POOLS.replace("      gpu: A100-40GB\n", "      gpu: A100-40GB\n      nodeSelector: {rack: r7}\n")
    bare = node("bare", {"rack": "r7"}, {"nvidia.com/gpu": "7"})  # no GFD: only the selector says what it is
    code, found = check(run, tmp_path, profile, yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": [bare]}))
    assert (code, found) == (1, [("node-gpus-missing", "node bare (pool a100): nvidia.com/gpu is 7, the profile "
                                  "promises 8 (8 GPU(s)): 7 of 8 GPU(s) registered. What the node shows cannot tell "
                                  "apart a GPU the driver does not see (Xid 79, bound to vfio-pci), one the plugin "
                                  "found unhealthy as it started (a critical Xid), or a device discovery that skips "
                                  "it; GPU Feature Discovery's nvidia.com/gpu.count label would tell the first")])
    plain = node("plain", {"nvidia.com/gpu.present": "true"}, {"nvidia.com/gpu": "4"})
    two = [plain, node("other", {"nvidia.com/gpu.present": "true"}, {"nvidia.com/gpu": "4"})]
    code, found = check(run, tmp_path, TWO_POOLS, yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": two}))
    assert [r for r, _ in found] == ["snapshot-cluster-mismatch"]  # both pools fit nodes that say nothing
    assert found[0][1].endswith("(node plain: pools l4 and a100 both fit its GPUs: give the pools a nodeSelector, or "
                                "check with --pool; node other: pools l4 and a100 both fit its GPUs: give the pools a "
                                "nodeSelector, or check with --pool)")
    code, found = check(run, tmp_path, TWO_POOLS, yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": two}),
                        "--pool", "l4")
    assert (code, found) == (0, [])
    result = run("check", "p.yaml", "--snapshot", "snap.txt", "--pool", "h100", cwd=tmp_path)
    assert (result.exit_code, result.output) == (2, "gengpu: error: --pool h100: no profile has a pool of that name "
                                                    "(a100, l4)\n")


DESCRIBE = """$ kubectl describe node gpu-a gpu-b
Name:               gpu-a
Roles:              <none>
Labels:             beta.kubernetes.io/arch=amd64
                    nvidia.com/gpu.product=NVIDIA-L4-SHARED
                    nvidia.com/gpu.replicas=4
Annotations:        node.alpha.kubernetes.io/ttl: 0
Taints:             nvidia.com/gpu=present:NoSchedule
Conditions:
  Type             Status  LastHeartbeatTime                 LastTransitionTime                Reason                       Message
  ----             ------  -----------------                 ------------------                ------                       -------
  MemoryPressure   False   Mon, 01 Jun 2026 10:00:00 +0000   Mon, 01 Jun 2026 10:00:00 +0000   KubeletHasSufficientMemory   kubelet has sufficient memory available
  Ready            True    Mon, 01 Jun 2026 10:00:00 +0000   Mon, 01 Jun 2026 10:00:00 +0000   KubeletReady                 kubelet is posting ready status
Capacity:
  cpu:                4
  nvidia.com/gpu:     4
Allocatable:
  cpu:                3920m
  nvidia.com/gpu:     2
Events:             <none>
Name:               gpu-b
Labels:             nvidia.com/gpu.product=NVIDIA-L4-SHARED
Conditions:
  Type             Status  LastHeartbeatTime                 LastTransitionTime                Reason                       Message
  ----             ------  -----------------                 ------------------                ------                       -------
  Ready            False   Mon, 01 Jun 2026 10:00:00 +0000   Mon, 01 Jun 2026 10:00:00 +0000   KubeletNotReady              container runtime network not ready
Capacity:
  nvidia.com/gpu:     4
Allocatable:
  nvidia.com/gpu:     4
"""


def test_kubectl_describe_output_as_pasted(run, tmp_path):
    """Two nodes of `kubectl describe node`, prompt line and all: their labels, conditions and counts are read, and
    findings point at the pasted text's lines where they are about the paste."""
    code, found = check(run, tmp_path, TWO_POOLS, DESCRIBE)
    assert (code, found) == (1, [
        ("node-gpus-unhealthy", "node gpu-a (pool l4): 2 of 4 nvidia.com/gpu are unhealthy (allocatable 2 < capacity 4)"),
        ("node-not-ready", "node gpu-b (pool l4): is not Ready (Ready is False) (KubeletNotReady: container runtime "
                           "network not ready)")])


def test_show_labels_jq_lines_and_a_conditions_list(run, tmp_path):
    shown = ("NAME    STATUS     ROLES    AGE   VERSION   LABELS\n"
             "gpu-a   NotReady   <none>   3d    v1.33.1   kubernetes.io/hostname=gpu-a,nvidia.com/gpu.product=NVIDIA-L4,"
             "nvidia.com/gpu.replicas=1\n")
    code, found = check(run, tmp_path, TWO_POOLS, shown)
    assert sorted(f for f in found if f[0] != "snapshot-object-partial") == [
        ("node-not-ready", "node gpu-a (pool l4): is not Ready (Ready is False)"),
        ("node-sharing-config-mismatch", "node gpu-a (pool l4): GPU Feature Discovery reports nvidia.com/gpu.replicas=1, "
                                         "the pool shares each GPU 4 ways: the node runs an older or another sharing "
                                         "config")]
    jq = '"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-40GB",\n"nvidia.com/gpu-driver-upgrade-state": "upgrade-failed"\n'
    code, found = check(run, tmp_path, TWO_POOLS, jq)
    assert found == [("node-driver-upgrade-failed", "node (pasted labels) (pool a100): nvidia.com/gpu-driver-upgrade-state "
                      "is upgrade-failed: the GPU Operator's driver upgrade gave up on the node, which stays cordoned or "
                      "on the old driver")]
    conditions = "- type: Ready\n  status: 'True'\n- type: GPUMissing\n  status: 'True'\n  reason: NvidiaGpuMissing\n"
    one = TWO_POOLS[:TWO_POOLS.index("    - name: a100")] + "  argocd:\n    repoURL: https://github.com/example/gitops.git\n"
    code, found = check(run, tmp_path, one.replace("L-DB2E81BA: 100, L-417A185B: 384", "L-DB2E81BA: 100"), conditions)
    assert found == [("node-gpu-condition", "node (pasted node) (pool l4): condition GPUMissing is True (NvidiaGpuMissing)")]


def test_stock_configs_and_the_cluster_wide_default_are_judged_by_what_they_do(run, tmp_path):
    """NVIDIA's stock all-balanced on eks-h100-mig (whose layout it is) and a node with no config label under a
    ClusterPolicy whose default config holds the pool's MPS: both healthy, whatever they are called."""
    mig = REPO / "profiles" / "eks-h100-mig.yaml"
    snap = snapshots.healthy(mig.read_text())
    for item in snap["items"]:
        if item["kind"] == "Node" and item["metadata"]["labels"].get("nvidia.com/mig.config"):
            item["metadata"]["labels"]["nvidia.com/mig.config"] = "all-balanced"
    shutil.copy(mig, tmp_path / mig.name)
    (tmp_path / "snap.yaml").write_text(snapshots.dump(snap))
    result = run("check", mig.name, "--snapshot", "snap.yaml", "--output", "json", cwd=tmp_path)
    assert (result.exit_code, json.loads(result.stdout)["findings"]) == (0, [])
    mps = REPO / "profiles" / "eks-l4-mps.yaml"
    snap = snapshots.healthy(mps.read_text())
    for item in snap["items"]:
        if item["kind"] == "Node":
            item["metadata"]["labels"].pop("nvidia.com/device-plugin.config", None)
        if item["kind"] == "ClusterPolicy":
            item["spec"]["devicePlugin"]["config"]["default"] = "l4-mps"  # one config for every node, no label
    shutil.copy(mps, tmp_path / mps.name)
    (tmp_path / "snap.yaml").write_text(snapshots.dump(snap))
    result = run("check", mps.name, "--snapshot", "snap.yaml", "--output", "json", cwd=tmp_path)
    assert (result.exit_code, json.loads(result.stdout)["findings"]) == (0, [])


def test_the_operator_alone_is_checked(run, tmp_path):
    """`kubectl get clusterpolicy -o yaml` pasted without nodes: its status is judged against the one profile named
    (the status is PR #1541's ReconcileFailed, as the operator writes it); with several profiles, which one is asked."""
    policy = {"apiVersion": "nvidia.com/v1", "kind": "ClusterPolicy", "metadata": {"name": "cluster-policy"},
              "status": {"state": "notReady", "namespace": "gpu-operator", "conditions": [
                  {"type": "Ready", "status": "False", "reason": "Error", "message": ""},
                  {"type": "Error", "status": "True", "reason": "ReconcileFailed",
                   "message": "the device-plugin and DRA driver for GPUs cannot both be enabled in ClusterPolicy"}]}}
    code, found = check(run, tmp_path, TWO_POOLS, yaml.safe_dump(policy))
    assert (code, found) == (1, [("operator-not-ready", "ClusterPolicy cluster-policy is notReady, not ready "
                                  "(ReconcileFailed: the device-plugin and DRA driver for GPUs cannot both be enabled "
                                  "in ClusterPolicy)")])
    (tmp_path / "q.yaml").write_text(TWO_POOLS.replace("name: two", "name: three"))
    result = run("check", "p.yaml", "q.yaml", "--snapshot", "snap.txt", cwd=tmp_path)
    assert (result.exit_code, result.output) == (2, "gengpu: error: snap.txt holds no node, so which profile it "
                                                    "belongs to cannot be told; name the profile (gengpu check "
                                                    "PROFILE ...)\n")


@pytest.mark.parametrize("product,models,same", [
    ("NVIDIA-L4", ("L4",), True),  # GFD's NVIDIA- prefix, a pool without it
    ("L4", ("NVIDIA-L4",), True),
    ("nvidia-l4", ("NVIDIA-L4",), True),  # case apart
    ("Tesla-T4-SHARED", ("Tesla-T4",), True),  # GFD's -SHARED suffix under time-slicing with renameByDefault
    ("NVIDIA-A100-SXM4-80GB-MIG-1g.10gb", ("A100-SXM4-80GB",), True),  # the single strategy's product
    ("NVIDIA-A100-SXM4-80GB-MIG-1g.10gb-SHARED", ("A100-SXM4-80GB",), True),
    ("NVIDIA-H100-80GB-HBM3", ("L4", "A100-SXM4-80GB"), False),
    ("NVIDIA-L40S", ("L4",), False),  # a prefix of the name is another model
    ("", ("L4",), False),
    ("-SHARED", ("",), False),  # nothing left of the product is no evidence
])
def test_a_product_string_is_a_pools_model_as_written(product, models, same):
    from types import SimpleNamespace

    from gengpu.live import pools

    assert pools._same_product(product, SimpleNamespace(gpus=models)) is same


def test_a_cluster_no_profile_claims_is_said_once_with_the_first_three_reasons():
    from gengpu.checking.live import mismatch
    from gengpu.live.snapshot import Item, Snapshot

    nodes = [Item(node(f"n{i}", {"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"}, {"nvidia.com/gpu": "8"}))
             for i in range(5)] + [Item(node("cpu", {}, {"cpu": "8"}))]
    why = [f"node n{i}: not L4" for i in range(5)]
    found = mismatch(Snapshot("snap.yaml", nodes=nodes), ["two", "three"], why)
    assert (found.file, found.line, found.column, found.rule, found.severity, found.message) == (
        "snap.yaml", 1, 1, "snapshot-cluster-mismatch", "error",
        "no node of snap.yaml belongs to a pool of two, three (6 node(s), 5 with GPUs): is it a snapshot of another "
        "cluster? (node n0: not L4; node n1: not L4; node n2: not L4; and 2 more)")
    assert mismatch(Snapshot("s", nodes=nodes[:1]), [], why[:3]).message == (
        "no node of s belongs to a pool of the profiles (1 node(s), 1 with GPUs): is it a snapshot of another "
        "cluster? (node n0: not L4; node n1: not L4; node n2: not L4)")
    assert mismatch(Snapshot("s", nodes=nodes[:1]), [], why[:4]).message.endswith(
        "(node n0: not L4; node n1: not L4; node n2: not L4; and 1 more)")  # (exactly one past three)
    assert mismatch(Snapshot("s", nodes=[]), ["p"]).message == (
        "no node of s belongs to a pool of p (0 node(s), 0 with GPUs): is it a snapshot of another cluster?")


@pytest.mark.parametrize("platform,keys", [
    # the labels each platform's provisioning puts on a node of a pool: Karpenter's NodePool (karpenter.sh/nodepool,
    # also AKS node auto-provisioning's), EKS managed node groups' and eksctl's, AKS agent pools', GKE node pools'
    # and compute classes'; gengpu's own gengpu.dev/pool; and the keys of a pool's nodeSelector (rack here)
    ("eks", ["alpha.eksctl.io/nodegroup-name", "eks.amazonaws.com/nodegroup", "gengpu.dev/pool",
             "karpenter.sh/nodepool", "rack"]),
    ("aks", ["gengpu.dev/pool", "karpenter.sh/nodepool", "kubernetes.azure.com/agentpool", "rack"]),
])
def test_the_labels_that_can_tie_a_node_to_a_pool(platform, keys, tmp_path):
    """pools.pool_label_keys, what rightsize asks kube-state-metrics and Karpenter's metrics for about nodes that
    left: every label of the platform's pools and of a pool's nodeSelector, once each, sorted."""
    from gengpu.live import pools
    from gengpu.pipeline.profiles import load_profiles, profile_files

    text = TWO_POOLS.replace("      gpu: A100-40GB\n", "      gpu: A100-40GB\n      nodeSelector: {rack: r7}\n")
    if platform == "aks":
        text = text.replace("platform: eks\n  region: us-east-1", "platform: aks\n  region: eastus").replace(
            "instanceTypes: [g6.xlarge]", "instanceTypes: [Standard_NC4as_T4_v3]").replace(
            "gpu: L4", "gpu: T4").replace("instanceTypes: [p4d.24xlarge]", "instanceTypes: [Standard_ND96asr_v4]")
    (tmp_path / "two.yaml").write_text(text)
    loaded = load_profiles(profile_files([str(tmp_path / "two.yaml")]), tmp_path / "overlays")
    assert [f for f in loaded.findings if f.is_error] == []
    assert pools.pool_label_keys(loaded.profiles[0].profile) == keys


@pytest.mark.parametrize("labels, status, gpu", [
    # GFD's and the operator's labels, unless the operator says there is no GPU (nvidia.com/gpu.present=false)
    ({"nvidia.com/gpu.product": "NVIDIA-L4"}, {}, True),
    ({"nvidia.com/gpu.present": "false", "nvidia.com/gpu.deploy.driver": "true"}, {}, False),
    # NFD's PCI vendor labels (10de: NVIDIA), true only
    ({"feature.node.kubernetes.io/pci-10de.present": "true"}, {}, True),
    ({"feature.node.kubernetes.io/pci-0302_10de.present": "true"}, {}, True),
    ({"feature.node.kubernetes.io/pci-10de.present": "false"}, {}, False),
    # the clouds' accelerator labels: GKE's names the GPU, AKS's well-known label says nvidia
    ({"cloud.google.com/gke-accelerator": "nvidia-l4"}, {}, True),
    ({"kubernetes.azure.com/accelerator": "nvidia"}, {}, True),
    ({"kubernetes.azure.com/accelerator": "amd"}, {}, False),
    # NVIDIA resources in capacity or allocatable: GPUs, MIG devices, a VM's passed-through GPU or vGPU
    ({}, {"capacity": {"nvidia.com/gpu": "4"}}, True),
    ({}, {"allocatable": {"nvidia.com/mig-1g.10gb": "7"}}, True),
    ({}, {"capacity": {"nvidia.com/GA102GL_A10": "1"}}, True),
    ({}, {"capacity": {"nvidia.com/pgpu": "1"}}, True),
    ({"kubernetes.io/os": "linux"}, {"capacity": {"cpu": "8", "example.com/gpu": "1"}}, False),
])
def test_what_makes_a_node_a_gpu_node(labels, status, gpu):
    from gengpu.live import pools

    node = snapshots.node_item(status.get("capacity"), labels, allocatable=status.get("allocatable"))
    assert pools.is_gpu_node(node) is gpu


@pytest.mark.parametrize("platform, labels, model", [
    ("gke", {"cloud.google.com/gke-accelerator": "nvidia-l4"}, ("L4", "cloud.google.com/gke-accelerator=nvidia-l4")),
    # (AKS's label says only nvidia: the model is the VM size's)
    ("aks", {"kubernetes.azure.com/accelerator": "nvidia",
             "node.kubernetes.io/instance-type": "Standard_NC4as_T4_v3"},
     ("T4", "node.kubernetes.io/instance-type=Standard_NC4as_T4_v3")),
    ("eks", {"beta.kubernetes.io/instance-type": "p4d.24xlarge"},
     ("A100-40GB", "beta.kubernetes.io/instance-type=p4d.24xlarge")),
    # an accelerator the catalog does not know falls through to the instance type; none of them says: nothing
    ("gke", {"cloud.google.com/gke-accelerator": "nvidia-tesla-k9000",
             "node.kubernetes.io/instance-type": "g2-standard-4"}, ("L4", "node.kubernetes.io/instance-type=g2-standard-4")),
    ("eks", {"node.kubernetes.io/instance-type": "m5.xlarge"}, (None, None)),
])
def test_a_nodes_gpu_model_and_the_label_that_says_it(platform, labels, model):
    from gengpu.live import pools

    assert pools.node_gpu_model(platform, snapshots.node_item(labels=labels)) == model


def test_an_aks_gpu_node_before_its_device_plugin_registers_is_imported(run, tmp_path):
    """A node of an AKS GPU pool whose device plugin has not registered shows no NVIDIA resource and no GFD label:
    AKS's well-known kubernetes.azure.com/accelerator=nvidia says it is a GPU node (it was "none with NVIDIA GPUs")."""
    snap = {"apiVersion": "v1", "kind": "List", "items": [node(
        "aks-gpu-12345678-vmss000000", {"kubernetes.azure.com/accelerator": "nvidia",
                                        "kubernetes.azure.com/agentpool": "gpu",
                                        "node.kubernetes.io/instance-type": "Standard_NC4as_T4_v3",
                                        "topology.kubernetes.io/region": "eastus"}, {"cpu": "4"})]}
    (tmp_path / "nodes.yaml").write_text(yaml.safe_dump(snap))
    result = run("import", "--snapshot", "nodes.yaml", "--name", "aks", cwd=tmp_path)
    pools = yaml.safe_load("\n".join(line for line in result.stdout.splitlines() if not line.startswith("#")))
    assert [(p["name"], p["gpu"], p["instanceTypes"]) for p in pools["spec"]["nodePools"]] == \
        [("gpu", "T4", ["Standard_NC4as_T4_v3"])]


def _pool(**pool):
    from gengpu.model import build_profile

    data = yaml.safe_load(TWO_POOLS)
    data["spec"]["nodePools"] = [{"name": "gpu", "gpu": "A100-40GB", "limits": {"gpus": 16}, **pool}]
    profile = build_profile(data, "p.yaml")
    return profile, profile.node_pools[0]


@pytest.mark.parametrize("pool, labels, gpus", [
    # the pool's promise first, then its instance type's, then GFD's count
    ({"gpusPerNode": 8, "instanceTypes": ["p4d.24xlarge"]}, {"nvidia.com/gpu.count": "7"}, 8),
    ({"instanceTypes": ["p4d.24xlarge"]}, {"node.kubernetes.io/instance-type": "p4d.24xlarge",
                                           "nvidia.com/gpu.count": "7"}, 8),
    ({"instanceTypes": ["p4d.24xlarge"]}, {"nvidia.com/gpu.count": "7"}, 7),
    # GFD counts MIG devices, not GPUs, under the single strategy (and names the product -MIG-<profile>): not read
    ({"instanceTypes": ["p4d.24xlarge"], "sharing": {"mode": "mig", "mig": {"strategy": "single",
                                                                               "preset": "all-1g.5gb"}}},
     {"nvidia.com/gpu.count": "56"}, 8),
    ({"instanceTypes": ["p4d.24xlarge"]}, {"nvidia.com/gpu.count": "56",
                                           "nvidia.com/gpu.product": "NVIDIA-A100-SXM4-40GB-MIG-1g.5gb"}, 8),
    # a count that is no number: the pool's instance types, when they agree on one
    ({"instanceTypes": ["p4d.24xlarge"]}, {"nvidia.com/gpu.count": "eight"}, 8),
    ({"instanceTypes": ["g5.xlarge", "g5.12xlarge"]}, {}, None),
])
def test_the_gpus_a_node_should_have(pool, labels, gpus):
    from gengpu.live import pools

    profile, node_pool = _pool(**pool)
    assert pools.physical_gpus(profile, node_pool, snapshots.node_item(labels=labels)) == gpus


@pytest.mark.parametrize("pool, labels, why", [
    # the model as the instance type says it (no GFD label yet), on the profile's platform
    ({}, {"node.kubernetes.io/instance-type": "g6.xlarge"}, "node.kubernetes.io/instance-type=g6.xlarge, pool gpu has "
                                                            "A100-40GB"),
    # a product the catalog does not know is no model of the pool's, unless written as the pool's model
    ({}, {"nvidia.com/gpu.product": "NVIDIA-Mystery-X"}, "nvidia.com/gpu.product=NVIDIA-Mystery-X, pool gpu has "
                                                         "A100-40GB"),
    ({"gpu": "Mystery-X"}, {"nvidia.com/gpu.product": "NVIDIA-Mystery-X"}, None),
    # every model of a pool of several is named
    ({"gpu": ["A100-40GB", "A100-80GB"]}, {"nvidia.com/gpu.product": "NVIDIA-L4"},
     "nvidia.com/gpu.product=NVIDIA-L4, pool gpu has A100-40GB, A100-80GB"),
    # the count GFD labels, against the pool's; not under the single MIG strategy (it counts MIG devices)
    ({"gpusPerNode": 8}, {"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-40GB", "nvidia.com/gpu.count": "4"},
     "nvidia.com/gpu.count=4, pool gpu has 8 GPU(s) per node"),
    ({"gpusPerNode": 8}, {"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-40GB-MIG-1g.5gb", "nvidia.com/gpu.count": "56"},
     None),
])
def test_why_a_node_is_not_one_of_a_pools(pool, labels, why):
    from gengpu.live import pools

    profile, node_pool = _pool(**pool)
    assert pools._misfit(profile, node_pool, snapshots.node_item(labels=labels)) == why
