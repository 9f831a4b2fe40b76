"""What import reads a GPU model and a vGPU share from, case by case (the import group's mutation survivors, issue
51). The MIG profiles each GPU offers are NVIDIA's MIG User Guide table (gengpu/data/gpus.yaml): 2g.10gb and 1g.5gb
only on the A100 40GB; 1g.10gb on the A100 40GB and 80GB and the H100 80GB. A vGPU type's frame buffer is its number
(A10-8Q: 8 GB of the A10's 24)."""

from __future__ import annotations

import pytest

from gengpu import adopting
from gengpu.live.snapshot import Item
from snapshots import node_item as _node




@pytest.mark.parametrize("capacity, allocatable, found", [
    ({"nvidia.com/NVIDIA_A10-8Q": "3"}, None, ("A10", "nvidia.com/NVIDIA_A10-8Q")),
    ({"nvidia.com/GA102GL_A10": "1"}, None, ("A10", "nvidia.com/GA102GL_A10")),
    ({"nvidia.com/mig-2g.10gb": "3"}, None, ("A100-40GB", "nvidia.com/mig-2g.10gb")),
    (None, {"nvidia.com/mig-1g.5gb": "7"}, ("A100-40GB", "nvidia.com/mig-1g.5gb")),
    ({"nvidia.com/mig-1g.10gb": "2"}, {"nvidia.com/mig-2g.10gb": "1"},
     ("A100-40GB", "nvidia.com/mig-1g.10gb, nvidia.com/mig-2g.10gb")),
    ({"nvidia.com/mig-1g.10gb": "7"}, None, None),  # (three GPUs offer it)
    ({"nvidia.com/mig-9g.99gb": "1"}, None, None),  # (no GPU offers it)
    ({"nvidia.com/gpu": "8", "nvidia.com/NVIDIA_A99-8Q": "1"}, None, None),  # (no such GPU)
    ({"cpu": "8"}, None, None),
])
def test_a_gpu_model_from_the_resources_a_node_offers(capacity, allocatable, found):
    assert adopting.model_from_resources(_node(capacity, allocatable=allocatable)) == found


@pytest.mark.parametrize("gpu, vgpu, per_gpu", [
    ("A10", "A10-8Q", 3), ("A10", "A10-24Q", 1), ("A10", "A10-4C", 6), ("A10", "A10-0Q", None), ("A10", "A10-8", None),
    (None, "A10-8Q", None), ("NO-SUCH-GPU", "A10-8Q", None),
])
def test_vgpus_per_gpu_are_its_frame_buffer_over_the_types(gpu, vgpu, per_gpu):
    assert adopting._per_gpu(gpu, vgpu) == per_gpu


@pytest.mark.parametrize("labels, eks", [
    ({"node.kubernetes.io/instance-type": "p5.48xlarge"}, True),
    ({"node.kubernetes.io/instance-type": "a2-highgpu-1g"}, False),
    ({}, False),
])
def test_an_eks_instance_type_is_one_of_the_eks_table(labels, eks):
    assert adopting._eks_type(labels) is eks


def _snapshot(*nodes: tuple[str, dict]):
    from gengpu.live.snapshot import Snapshot

    return Snapshot("test", nodes=[Item({"kind": "Node", "metadata": {"name": name, "labels": labels}})
                                   for name, labels in nodes])


@pytest.mark.parametrize("nodes, platform", [
    # GKE Standard nodes carry cloud.google.com/gke-provisioning too (standard or spot: node auto-provisioning's
    # pools, Spot VMs), so it says nothing of Autopilot; Autopilot's nodes are named gk3-... (GKE's Standard nodes
    # gke-...; ahmet.im/blog/gke-autopilot "Poking at nodes")
    ([("gke-prod-gpu-pool-1a2b3c4d-x1y2", {"cloud.google.com/gke-nodepool": "gpu-pool",
                                          "cloud.google.com/gke-provisioning": "spot"})], "gke"),
    ([("gk3-prod-nap-1xyz-4d5e6f7a-k2j3", {"cloud.google.com/gke-nodepool": "nap-1xyz",
                                          "cloud.google.com/gke-provisioning": "standard"})], "gke-autopilot"),
    ([("node-1", {"cloud.google.com/compute-class": "autopilot"})], "gke-autopilot"),
    ([("node-1", {"cloud.google.com/compute-class": "autopilot-spot"})], "gke-autopilot"),
    ([("gk3-lookalike", {})], "kubernetes"),
    ([("n1", {"karpenter.sh/nodepool": "gpu", "node.kubernetes.io/instance-type": "p5.48xlarge"})], "eks"),
    ([("n1", {"karpenter.sh/nodepool": "gpu", "karpenter.k8s.aws/instance-family": "p5"})], "eks"),
    # Karpenter's label alone: Karpenter runs on AKS too (node auto-provisioning)
    ([("n1", {"karpenter.sh/nodepool": "gpu", "node.kubernetes.io/instance-type": "Standard_NC24ads_A100_v4"})],
     "kubernetes"),
    ([("n1", {"kubernetes.azure.com/agentpool": "gpu"})], "aks"),
    ([("n1", {}), ("n2", {"eks.amazonaws.com/nodegroup": "gpu"})], "eks"),
])
def test_the_platform_from_what_the_nodes_carry(nodes, platform):
    assert adopting.platform_of(_snapshot(*nodes)) == platform


SHARING_CASES = [
    # GFD's labels and what the device plugin registers (k8s-device-plugin v0.19.1 internal/lm/resource.go: replicas
    # and sharing-strategy per resource, a -SHARED product; a time-sliced device registered once per replica)
    ("time-slicing, GFD's labels", {"nvidia.com/gpu": "16"},
     {"nvidia.com/gpu.replicas": "4", "nvidia.com/gpu.sharing-strategy": "time-slicing"}, 4, None,
     {"mode": "time-slicing", "replicas": 4}),
    ("two replicas", {"nvidia.com/gpu": "8"}, {"nvidia.com/gpu.replicas": "2"}, 4, None,
     {"mode": "time-slicing", "replicas": 2}),
    ("mps", {"nvidia.com/gpu": "8"}, {"nvidia.com/gpu.replicas": "2", "nvidia.com/gpu.sharing-strategy": "mps"}, 4,
     None, {"mode": "mps", "replicas": 2}),
    ("renamed", {"nvidia.com/gpu.shared": "16"}, {"nvidia.com/gpu.replicas": "4"}, 4, None,
     {"mode": "time-slicing", "replicas": 4, "renameByDefault": True}),
    ("another strategy", {"nvidia.com/gpu": "8"}, {"nvidia.com/gpu.replicas": "2",
                                                   "nvidia.com/gpu.sharing-strategy": "vendor-x"}, 4, None, None),
    ("one replica", {"nvidia.com/gpu": "4"}, {"nvidia.com/gpu.replicas": "1"}, 4, None, None),
    ("no label: registered per GPU", {"nvidia.com/gpu": "8"}, {}, 4, None, {"mode": "time-slicing", "replicas": 2}),
    ("no label: one per GPU", {"nvidia.com/gpu": "4"}, {}, 4, None, None),
    ("no label: not a multiple", {"nvidia.com/gpu": "6"}, {}, 4, None, None),
    ("single MIG", {"nvidia.com/gpu": "28"}, {"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3-MIG-1g.10gb"}, 4,
     "H100-80GB", {"mode": "mig", "mig": {"strategy": "single", "layout": {"1g.10gb": 7}}}),
    ("single MIG time-sliced", {"nvidia.com/gpu": "56"},
     {"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3-MIG-1g.10gb-SHARED", "nvidia.com/gpu.replicas": "2"}, 4,
     "H100-80GB", {"mode": "mig", "mig": {"strategy": "single", "layout": {"1g.10gb": 7}, "replicas": 2}}),
    ("single MIG, GFD's count alone", None,
     {"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3-MIG-1g.10gb", "nvidia.com/gpu.count": "28"}, 4,
     "H100-80GB", {"mode": "mig", "mig": {"strategy": "single", "layout": {"1g.10gb": 7}}}),
    ("single MIG, a stock config", {"nvidia.com/gpu": "28"},
     {"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3-MIG-1g.10gb", "nvidia.com/mig.config": "all-1g.10gb"}, 4,
     "H100-80GB", {"mode": "mig", "mig": {"strategy": "single", "preset": "all-1g.10gb"}}),
    ("mixed MIG time-sliced", {"nvidia.com/mig-1g.10gb": "56", "nvidia.com/mig-3g.40gb": "8"},
     {"nvidia.com/mig-1g.10gb.replicas": "2", "nvidia.com/mig-3g.40gb.replicas": "2"}, 4, "H100-80GB",
     {"mode": "mig", "mig": {"strategy": "mixed", "layout": {"1g.10gb": 7, "3g.40gb": 1}, "replicas": 2}}),
    ("mixed MIG, a profile fewer than the GPUs", {"nvidia.com/mig-1g.10gb": "28", "nvidia.com/mig-3g.40gb": "3"}, {},
     4, "H100-80GB", {"mode": "mig", "mig": {"strategy": "mixed", "layout": {"1g.10gb": 7}}}),
]


@pytest.mark.parametrize("capacity, labels, gpus, gpu_id, sharing", [c[1:] for c in SHARING_CASES],
                         ids=[c[0] for c in SHARING_CASES])
def test_the_sharing_a_node_shows(capacity, labels, gpus, gpu_id, sharing):
    from gengpu.adopting_sharing import sharing_of

    assert sharing_of(_node(capacity, labels=labels), gpus, gpu_id) == sharing


@pytest.mark.parametrize("capacity, labels, said", [
    ({"nvidia.com/mig-1g.10gb": "28", "nvidia.com/mig-3g.40gb": "4", "nvidia.com/gpu": "2"},
     {"nvidia.com/mig.config": "custom"}, "its MIG devices (28 1g.10gb, 4 3g.40gb and 2 whole GPU(s) on 8 GPUs) "
     "differ GPU by GPU: no sharing is written; write sharing.mig.layouts (GPU indices with their layout, or whole: "
     "true) from the MIG manager's config custom"),
    ({"nvidia.com/mig-1g.10gb": "28"}, {}, "its MIG devices (28 1g.10gb on 8 GPUs) differ GPU by GPU: no sharing is "
     "written; write sharing.mig.layouts (GPU indices with their layout, or whole: true) from the MIG manager's "
     "config"),
    ({"nvidia.com/mig-1g.10gb": "56"}, {}, None),  # (7 on each of 8)
    ({"nvidia.com/mig-1g.10gb": "112"}, {"nvidia.com/mig-1g.10gb.replicas": "2"}, None),  # (time-sliced, 7 each)
    ({"nvidia.com/gpu": "8"}, {}, None),
])
def test_gpus_laid_out_apart_are_said_not_guessed(capacity, labels, said):
    from gengpu.adopting_sharing import laid_out_per_gpu

    assert laid_out_per_gpu(_node(capacity, labels=labels), 8) == said
    assert laid_out_per_gpu(_node(capacity, labels=labels), None) is None


@pytest.mark.parametrize("key, taken, name", [
    ("NVIDIA-H100-80GB-HBM3-x8", set(), "h100-80gb-hbm3-x8"),
    ("Tesla-T4", set(), "t4"),
    ("nvidia-a100", set(), "a100"),
    ("default", set(), "default-pool"),  # (the device plugin's configs use these names)
    ("all-balanced", set(), "all-balanced-pool"), ("all-disabled", set(), "all-disabled-pool"),
    ("all-enabled", set(), "all-enabled-pool"),
    ("l4", {"l4"}, "l4-2"), ("l4", {"l4", "l4-2"}, "l4-3"),
    ("a" * 45, set(), "a" * 40),
    ("a" * 45, {"a" * 40}, "a" * 37 + "-2"),
    ("abc-" + "b" * 35 + "-x", set(), "abc-" + "b" * 35),  # (cut at 40, no dash left at the end)
    ("***", set(), "gpu"),
])
def test_a_pool_name_from_a_node_group(key, taken, name):
    assert adopting._pool_name(key, taken) == name


def _gpu_node(name: str, labels: dict) -> dict:
    return {"kind": "Node", "metadata": {"name": name, "labels": {"nvidia.com/gpu.present": "true", **labels}}}


def test_node_groups_by_their_label_else_by_what_their_gpus_are():
    from gengpu.live.snapshot import Snapshot

    nodes = [_gpu_node("a", {"karpenter.sh/nodepool": "train"}),
             _gpu_node("b", {"karpenter.sh/nodepool": "train"}),
             _gpu_node("c", {"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3", "nvidia.com/gpu.count": "8"}),
             _gpu_node("d", {"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3-SHARED", "nvidia.com/gpu.count": "8"}),
             _gpu_node("e", {"nvidia.com/gpu.product": "NVIDIA-L4", "nvidia.com/gpu.count": "1"}),
             _gpu_node("f", {"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-40GB-MIG-1g.5gb",
                             "nvidia.com/gpu.count": "56"}),
             {"kind": "Node", "metadata": {"name": "cpu", "labels": {"karpenter.sh/nodepool": "system"}}}]
    found = adopting.groups(Snapshot("t", nodes=[Item(n) for n in nodes]), "kubernetes")
    assert [(g.key, [n.name for n in g.nodes], g.selector) for g in found] == [
        ("a100-sxm4-40gb", ["f"], {"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-40GB-MIG-1g.5gb"}),
        # (one group whether its GPUs are shared or not: the key is the product without -SHARED or -MIG-...)
        ("h100-80gb-hbm3-x8", ["c", "d"], {"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"}),
        ("l4", ["e"], {"nvidia.com/gpu.product": "NVIDIA-L4"}),
        ("train", ["a", "b"], {"karpenter.sh/nodepool": "train"})]
    assert [g.dra for g in found] == [False] * 4


def test_groups_of_one_kind_of_node_are_not_told_apart_by_what_they_are():
    """Two node groups (two labels) of the same model and count: a pool cannot select its nodes by model."""
    from gengpu.live.snapshot import Snapshot

    nodes = [_gpu_node("a", {"eks.amazonaws.com/nodegroup": "one", "nvidia.com/gpu.product": "NVIDIA-L4",
                             "nvidia.com/gpu.count": "1"}),
             _gpu_node("b", {"eks.amazonaws.com/nodegroup": "two", "nvidia.com/gpu.product": "NVIDIA-L4",
                             "nvidia.com/gpu.count": "1"}),
             _gpu_node("c", {"eks.amazonaws.com/nodegroup": "three", "nvidia.com/gpu.product": "NVIDIA-L4",
                             "nvidia.com/gpu.count": "4"})]
    found = adopting.groups(Snapshot("t", nodes=[Item(n) for n in nodes]), "eks")
    assert [(g.key, g.distinct) for g in found] == [("one", False), ("three", True), ("two", False)]


def test_a_group_is_dra_when_every_node_publishes_gpus_to_nvidias_driver():
    from gengpu.live.snapshot import Snapshot

    nodes = [_gpu_node("a", {"karpenter.sh/nodepool": "dra"}), _gpu_node("b", {"karpenter.sh/nodepool": "dra"}),
             _gpu_node("c", {"karpenter.sh/nodepool": "half"}),
             _gpu_node("d", {"karpenter.sh/nodepool": "half", "nvidia.com/dra-kubelet-plugin": "true"}),
             _gpu_node("e", {"karpenter.sh/nodepool": "labelled", "nvidia.com/dra-kubelet-plugin": "true"})]
    slices = [Item({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": f"s-{n}"},
                    "spec": {"driver": driver, "nodeName": n}})
              for n, driver in (("a", "gpu.nvidia.com"), ("b", "gpu.nvidia.com"), ("c", "other.example.com"))]
    found = adopting.groups(Snapshot("t", nodes=[Item(n) for n in nodes], resourceslices=slices), "eks")
    assert [(g.key, g.dra) for g in found] == [("dra", True), ("half", False), ("labelled", True)]


def _pool(platform: str, *nodes: dict):
    from gengpu.live.snapshot import Snapshot

    found = adopting.groups(Snapshot("t", nodes=[Item(n) for n in nodes]), platform)
    return [adopting.pool_of(g, platform) for g in found]


H100 = {"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3", "nvidia.com/gpu.count": "8"}


@pytest.mark.parametrize("platform, labels, provisioner", [
    ("eks", {"karpenter.sh/nodepool": "p", "node.kubernetes.io/instance-type": "p5.48xlarge"}, "karpenter"),
    ("eks", {"eks.amazonaws.com/nodegroup": "p", "node.kubernetes.io/instance-type": "p5.48xlarge"}, "managed"),
    ("gke-autopilot", {"cloud.google.com/gke-nodepool": "p", "node.kubernetes.io/instance-type": "a3-highgpu-8g"},
     "autopilot"),
])
def test_the_provisioner_a_pool_is_made_by(platform, labels, provisioner):
    (pool, notes), = _pool(platform, _gpu_node("n", {**H100, **labels}))
    assert (pool["provisioner"], pool["instanceTypes"], pool["gpu"], pool["gpusPerNode"]) == \
        (provisioner, [labels["node.kubernetes.io/instance-type"]], "H100-80GB", 8)
    assert notes == []


def test_a_cloud_pool_without_an_instance_type_says_so():
    (pool, notes), = _pool("eks", _gpu_node("n", {**H100, "eks.amazonaws.com/nodegroup": "p"}))
    assert pool["instanceTypes"] == ["UNKNOWN"]
    assert notes == ["pool p: its nodes carry no node.kubernetes.io/instance-type; set instanceTypes"]


def test_nodes_you_bring_are_selected_only_where_what_they_are_cannot_tell_them_apart():
    one = _pool("kubernetes", _gpu_node("n", H100))
    assert "nodeSelector" not in one[0][0] and "instanceTypes" not in one[0][0] and "provisioner" not in one[0][0]
    two = _pool("kubernetes", _gpu_node("a", {**H100, "kubernetes.azure.com/agentpool": "x"}),
                _gpu_node("b", {**H100, "kubernetes.azure.com/agentpool": "y"}))
    assert [p["nodeSelector"] for p, _ in two] == [{"kubernetes.azure.com/agentpool": "x"},
                                                    {"kubernetes.azure.com/agentpool": "y"}]


@pytest.mark.parametrize("mode, written", [("on", "on"), ("devtools", "devtools"), ("ppcie", "ppcie"), ("off", None),
                                           ("maybe", None)])
def test_confidential_computing_as_the_operator_labels_it(mode, written):
    (pool, _), = _pool("kubernetes", _gpu_node("n", {**H100, "nvidia.com/cc.mode": mode}))
    assert pool.get("confidentialComputing") == written
