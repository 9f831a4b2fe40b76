"""How import counts a node's GPUs and builds its pool, case by case (the import group's survivors, issue 51): each
source of the count on its own, with the neighbouring case that must not count.

The figures are NVIDIA's: on an A100 40GB a GPU holds 7 x 1g.5gb, 3 x 2g.10gb or 2 x 3g.20gb of its 7 compute
slices, and all-balanced is 2 x 1g.5gb + 1 x 2g.10gb + 1 x 3g.20gb (MIG User Guide; mig-parted's stock config);
a time-sliced GPU registers once per replica and GFD says the replicas in nvidia.com/gpu.replicas (k8s-device-plugin
README); an A10 has 24 GB, so 3 vGPUs of type A10-8Q (8 GB each) per GPU (NVIDIA vGPU user guide); a p4d.24xlarge
is 8 A100 40GB (AWS's accelerated instance table)."""

from __future__ import annotations

import pytest

from gengpu import adopting
from gengpu.live.snapshot import Item, Snapshot
from snapshots import node_item as _node

A100_MIG = "NVIDIA-A100-SXM4-40GB-MIG-3g.20gb"


@pytest.mark.parametrize("capacity, labels, spec, gpu, counted", [
    # GFD's count, unless the product is a MIG device's (single strategy: GFD counts MIG devices then)
    ({}, {"nvidia.com/gpu.count": "8", "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"}, None, "H100-80GB", (8, "")),
    ({}, {"nvidia.com/gpu.count": "1"}, None, None, (1, "")),
    ({}, {"nvidia.com/gpu.count": "0"}, None, None, (None, "")),
    ({}, {"nvidia.com/gpu.count": "eight"}, None, None, (None, "")),
    ({}, {"nvidia.com/gpu.count": "8"}, {"gpus": 4}, None, (8, "")),  # (the label over the table)
    # the instance type's table
    ({}, {}, {"gpus": 4}, None, (4, "")),
    ({}, {}, {"gpus": 0}, None, (None, "")),
    # MIG devices over the layout NVIDIA's all-<profile> config gives each GPU
    ({"nvidia.com/mig-1g.5gb": "16", "nvidia.com/mig-2g.10gb": "8", "nvidia.com/mig-3g.20gb": "8"},
     {"nvidia.com/mig.config": "all-balanced"}, None, "A100-40GB",
     (8, "its MIG devices over all-balanced's layout per GPU")),
    ({"nvidia.com/mig-1g.5gb": "2", "nvidia.com/mig-2g.10gb": "1", "nvidia.com/mig-3g.20gb": "1"},
     {"nvidia.com/mig.config": "all-balanced"}, None, "A100-40GB",
     (1, "its MIG devices over all-balanced's layout per GPU")),
    # 3 + 1 + 1: not whole GPUs of all-balanced, and not counted otherwise
    ({"nvidia.com/mig-1g.5gb": "3", "nvidia.com/mig-2g.10gb": "1", "nvidia.com/mig-3g.20gb": "1"},
     {"nvidia.com/mig.config": "all-balanced"}, None, "A100-40GB", (None, "")),
    # a device the layout does not have: not this layout
    ({"nvidia.com/mig-1g.5gb": "2", "nvidia.com/mig-2g.10gb": "1", "nvidia.com/mig-3g.20gb": "1",
      "nvidia.com/mig-7g.40gb": "1"}, {"nvidia.com/mig.config": "all-balanced"}, None, "A100-40GB", (None, "")),
    ({"nvidia.com/mig-3g.20gb": "4"}, {"nvidia.com/mig.config": "all-3g.20gb"}, None, "A100-40GB",
     (2, "its MIG devices over all-3g.20gb's layout per GPU")),
    # the single strategy: GFD's count is of MIG devices, over the layout's per GPU
    ({}, {"nvidia.com/gpu.count": "16", "nvidia.com/gpu.product": A100_MIG, "nvidia.com/mig.config": "all-3g.20gb"},
     None, "A100-40GB", (8, "GFD's 16 MIG devices over all-3g.20gb's layout per GPU")),
    ({}, {"nvidia.com/gpu.count": "2", "nvidia.com/gpu.product": A100_MIG + "-SHARED",
          "nvidia.com/mig.config": "all-3g.20gb"}, None, "A100-40GB",
     (1, "GFD's 2 MIG devices over all-3g.20gb's layout per GPU")),
    ({}, {"nvidia.com/gpu.count": "15", "nvidia.com/gpu.product": A100_MIG, "nvidia.com/mig.config": "all-3g.20gb"},
     None, "A100-40GB", (None, "")),
    ({}, {"nvidia.com/gpu.count": "16", "nvidia.com/gpu.product": A100_MIG, "nvidia.com/mig.config": "custom"},
     None, "A100-40GB", (None, "")),
    ({}, {"nvidia.com/gpu.count": "16", "nvidia.com/gpu.product": A100_MIG, "nvidia.com/mig.config": "all-3g.20gb"},
     None, None, (None, "")),
    # MIG devices of no stock config: one profile as many as a GPU holds, else the compute slices they fill
    ({"nvidia.com/mig-1g.5gb": "14"}, {}, None, "A100-40GB", (2, "its 14 1g.5gb devices over the 7 a GPU holds")),
    ({"nvidia.com/mig-2g.10gb": "3"}, {}, None, "A100-40GB", (1, "its 3 2g.10gb devices over the 3 a GPU holds")),
    ({"nvidia.com/mig-2g.10gb": "4"}, {}, None, "A100-40GB", (None, "")),  # (8 slices: not whole GPUs)
    ({"nvidia.com/mig-1g.5gb": "2", "nvidia.com/mig-2g.10gb": "1", "nvidia.com/mig-3g.20gb": "1"},
     {"nvidia.com/mig.config": "custom-config"}, None, "A100-40GB",
     (1, "the GPUs its MIG devices fill (their compute slices over a GPU's); a layout that leaves slices free "
         "would mean more")),
    ({"nvidia.com/mig-1g.5gb": "4", "nvidia.com/mig-2g.10gb": "2", "nvidia.com/mig-3g.20gb": "2"}, {}, None,
     "A100-40GB", (2, "the GPUs its MIG devices fill (their compute slices over a GPU's); a layout that leaves "
                      "slices free would mean more")),
    ({"nvidia.com/mig-1g.5gb": "2", "nvidia.com/mig-9g.99gb": "1"}, {}, None, "A100-40GB", (None, "")),
    ({"nvidia.com/mig-1g.5gb": "14"}, {}, None, None, (None, "")),
    ({"nvidia.com/mig-1g.5gb": "14"}, {}, None, "T4", (None, "")),  # (a GPU without MIG)
    # what the sandbox device plugin offers: vGPUs over the type's share of a GPU, passed-through GPUs one each
    ({"nvidia.com/NVIDIA_A10-8Q": "6"}, {}, None, "A10",
     (2, "what the sandbox device plugin offers over 3 A10-8Q per GPU")),
    ({"nvidia.com/NVIDIA_A10-8Q": "5"}, {}, None, "A10", (None, "")),
    ({"nvidia.com/NVIDIA_A10-8Q": "6"}, {}, None, None, (None, "")),
    ({"nvidia.com/GA102GL_A10": "2"}, {}, None, "A10", (2, "what the sandbox device plugin offers")),
    ({"nvidia.com/GA102GL_A10": "0"}, {}, None, "A10", (None, "")),
    ({"nvidia.com/pgpu": "4"}, {}, None, None, (4, "what the sandbox device plugin offers")),
    # time-slicing and MPS: the registered GPUs over GFD's replicas
    ({"nvidia.com/gpu": "16"}, {"nvidia.com/gpu.replicas": "4"}, None, None,
     (4, "the 16 GPUs it registers over GFD's 4 replicas")),
    ({"nvidia.com/gpu": "10"}, {"nvidia.com/gpu.replicas": "4"}, None, None, (None, "")),
    ({"nvidia.com/gpu.shared": "8"}, {"nvidia.com/gpu.replicas": "4"}, None, None,
     (2, "the 8 GPUs it registers over GFD's 4 replicas")),
    ({"nvidia.com/gpu.shared": "8"}, {}, None, None, (None, "")),
    ({"nvidia.com/gpu": "8"}, {"nvidia.com/gpu.replicas": "1"}, None, None,
     (8, "the nvidia.com/gpu it registers (no label says whether they are shared: a time-sliced GPU registers once "
         "per replica)")),
    ({"nvidia.com/gpu": "16"}, {}, None, None,
     (16, "the nvidia.com/gpu it registers (no label says whether they are shared: a time-sliced GPU registers once "
          "per replica)")),
    ({"nvidia.com/gpu": "17"}, {}, None, None, (None, "")),  # (more than a node holds: shares)
    ({"nvidia.com/gpu": "0"}, {}, None, None, (None, "")),
    ({"nvidia.com/gpu": "16"}, {"nvidia.com/gpu.replicas": "x"}, None, None,
     (16, "the nvidia.com/gpu it registers (no label says whether they are shared: a time-sliced GPU registers once "
          "per replica)")),
])
def test_the_gpus_of_a_node(capacity, labels, spec, gpu, counted):
    assert adopting._gpus_per_node(_node(capacity, labels), spec, gpu) == counted


@pytest.mark.parametrize("capacity, labels, workload", [
    ({"nvidia.com/NVIDIA_A10-8Q": "3"}, {}, {"workload": "vm-vgpu", "vgpuType": "A10-8Q"}),
    ({}, {"nvidia.com/gpu.workload.config": "vm-vgpu", "nvidia.com/vgpu.config": "A10-4Q"},
     {"workload": "vm-vgpu", "vgpuType": "A10-4Q"}),
    ({}, {"nvidia.com/gpu.workload.config": "vm-vgpu"}, {"workload": "vm-vgpu"}),
    ({"nvidia.com/NVIDIA_A10-8Q": "0"}, {}, {}),
    ({"nvidia.com/GA102GL_A10": "1"}, {}, {"workload": "vm-passthrough"}),
    ({}, {"nvidia.com/gpu.workload.config": "vm-passthrough"}, {"workload": "vm-passthrough"}),
    ({}, {"nvidia.com/cc.mode": "on"}, {"workload": "vm-passthrough"}),
    ({}, {"nvidia.com/cc.mode": "devtools"}, {"workload": "vm-passthrough"}),
    ({}, {"nvidia.com/cc.mode": "ppcie"}, {"workload": "vm-passthrough"}),
    ({}, {"nvidia.com/cc.mode": "off"}, {}),
    ({}, {"nvidia.com/gpu.workload.config": "container"}, {}),
    ({"nvidia.com/gpu": "8"}, {}, {}),
])
def test_a_node_whose_gpus_go_to_vms(capacity, labels, workload):
    assert adopting._for_vms(_node(capacity, labels), "A10") == workload


@pytest.mark.parametrize("versions, found", [
    (["v1.30.2-eks-1de2ab1"], "1.30"), (["1.29.4"], "1.29"), (["v1.8.0"], "1.8"),
    ([None, "v1.31.1+k3s1"], "1.31"), (["", "v1.28.0"], "1.28"), (["v2.0.0"], None), ([None], None), ([], None),
])
def test_the_kubernetes_version_of_the_first_node_that_states_it(versions, found):
    nodes = [_node(name=f"n{i}", version=v) for i, v in enumerate(versions)]
    assert adopting.kubernetes_version(Snapshot("s", nodes=nodes)) == found


def _pool(nodes: list[Item], platform: str, key: str = "gpu", selector: dict | None = None,
          distinct: bool = False, dra: bool = False):
    return adopting.pool_of(adopting.Group(key, selector or {}, nodes, distinct, dra), platform)


def test_nodes_you_bring_on_a_cloud_machine_get_the_gpu_and_count_from_its_table():
    """kubeadm or OpenShift on a p4d.24xlarge: no GFD labels, yet the cloud's table names 8 A100 40GB; nodes you
    bring have no instance types or provisioner in the profile, and a selector only when the group needs one."""
    node = _node({}, {"node.kubernetes.io/instance-type": "p4d.24xlarge", "pool": "a"})
    assert _pool([node], "kubernetes", selector={"pool": "a"}) == (
        {"name": "gpu", "gpu": "A100-40GB", "gpusPerNode": 8, "nodeSelector": {"pool": "a"}}, [])
    assert _pool([node], "kubernetes", selector={"pool": "a"}, distinct=True)[0] == {
        "name": "gpu", "gpu": "A100-40GB", "gpusPerNode": 8}


def test_a_cloud_pool_names_its_instance_types_and_provisioner():
    a = _node({}, {"node.kubernetes.io/instance-type": "p4d.24xlarge", "karpenter.sh/nodepool": "gpu"}, name="a")
    b = _node({}, {"beta.kubernetes.io/instance-type": "p4de.24xlarge", "karpenter.sh/nodepool": "gpu"}, name="b")
    pool, notes = _pool([a, b], "eks", selector={"karpenter.sh/nodepool": "gpu"})
    assert (pool, notes) == ({"name": "gpu", "gpu": "A100-40GB", "gpusPerNode": 8,
                              "instanceTypes": ["p4d.24xlarge", "p4de.24xlarge"], "provisioner": "karpenter"}, [])
    pool, notes = _pool([_node({}, {"eks.amazonaws.com/nodegroup": "ng"})], "eks",
                        selector={"eks.amazonaws.com/nodegroup": "ng"})
    assert pool == {"name": "gpu", "gpu": "UNKNOWN", "instanceTypes": ["UNKNOWN"], "provisioner": "managed"}
    assert notes == ["pool gpu: no label names its GPU model (no GPU Feature Discovery product); set gpu",
                     "pool gpu: no label counts its GPUs; set gpusPerNode",
                     "pool gpu: its nodes carry no node.kubernetes.io/instance-type; set instanceTypes"]
    pool, _ = _pool([_node({}, {"node.kubernetes.io/instance-type": "a2-highgpu-2g"})], "gke-autopilot")
    assert pool == {"name": "gpu", "gpu": "A100-40GB", "gpusPerNode": 2, "instanceTypes": ["a2-highgpu-2g"],
                    "provisioner": "autopilot"}


def test_a_pool_says_how_its_count_was_worked_out_and_reads_its_model_from_resources():
    node = _node({"nvidia.com/GA102GL_A10": "2"})
    pool, notes = _pool([node], "kubernetes")
    assert pool == {"name": "gpu", "gpu": "A10", "gpusPerNode": 2, "workload": "vm-passthrough"}
    assert notes == ["pool gpu: gpusPerNode 2 is what the sandbox device plugin offers"]


def test_a_dra_group_allocates_by_dra():
    labels = {"nvidia.com/gpu.count": "1", "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"}
    assert _pool([_node({}, labels)], "kubernetes", dra=True)[0]["allocation"] == "dra"
    assert "allocation" not in _pool([_node({}, labels)], "kubernetes")[0]


H100 = {"nvidia.com/gpu.count": "8", "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"}


def _profile(*nodes: Item, clusterpolicies: list | None = None):
    return adopting.profile_of(Snapshot("s", nodes=list(nodes), clusterpolicies=clusterpolicies or []), "p")


def test_a_cloud_profile_takes_its_region_and_version_from_the_nodes():
    node = _node({"nvidia.com/gpu": "8"}, {**H100, "eks.amazonaws.com/nodegroup": "ng",
                                           "node.kubernetes.io/instance-type": "p5.48xlarge",
                                           "topology.kubernetes.io/region": "us-east-2",
                                           "nvidia.com/gpu.deploy.device-plugin": "true"}, version="v1.32.1-eks-1")
    profile, notes = _profile(node)
    spec = profile["spec"]
    assert (spec["platform"], spec["region"], spec["kubernetesVersion"], spec["operator"]) == (
        "eks", "us-east-2", "1.32", {"enabled": True})
    assert "suppress" not in spec and not any("region" in n or "kubelet" in n for n in notes)


def test_a_profile_says_what_the_nodes_leave_open():
    profile, notes = _profile(_node({"nvidia.com/gpu": "8"}, {**H100, "eks.amazonaws.com/nodegroup": "ng"}))
    spec = profile["spec"]
    assert (spec["region"], spec["kubernetesVersion"], spec["operator"]) == ("UNKNOWN", "1.33", {"enabled": False})
    assert notes[:2] == ["no node carries topology.kubernetes.io/region; set spec.region",
                         "no node states its kubelet version; spec.kubernetesVersion is a guess"]
    # the cluster's own device plugin (it registers GPUs, and no operator labels the node): suppressed, with why
    assert spec["suppress"][0]["rule"] == "no-device-plugin" and spec["suppress"][0]["pools"] == ["ng"]
    assert notes[-3] == ("no GPU Operator on the nodes: the cluster's own device plugin stays yours to run "
                         "(no-device-plugin is suppressed for that reason)")


def test_nodes_you_bring_have_no_region_and_the_operator_from_its_clusterpolicy():
    profile, notes = _profile(_node({"nvidia.com/gpu": "8"}, H100), clusterpolicies=[Item({"kind": "ClusterPolicy"})])
    spec = profile["spec"]
    assert "region" not in spec and spec["operator"] == {"enabled": True} and "suppress" not in spec
    assert not any("region" in n for n in notes)


def test_no_plugin_seen_means_nothing_to_suppress():
    """A GPU node by NFD's PCI label alone (no nvidia.com resource, no GFD label): no device plugin of its own."""
    profile, notes = _profile(_node({}, {"feature.node.kubernetes.io/pci-10de.present": "true"}))
    assert [p["name"] for p in profile["spec"]["nodePools"]] == ["gpu"] and "suppress" not in profile["spec"]
    assert not any("no GPU Operator" in n for n in notes)


def test_autopilot_has_no_operator_and_aks_managed_gpu_is_read_from_its_label():
    autopilot = _node({"nvidia.com/gpu": "1"}, {"cloud.google.com/compute-class": "autopilot",
                                                "cloud.google.com/gke-accelerator": "nvidia-l4",
                                                "topology.kubernetes.io/region": "us-central1"})
    profile, _ = _profile(autopilot)
    assert "operator" not in profile["spec"] and "suppress" not in profile["spec"]
    aks = _node({"nvidia.com/gpu": "1"}, {"kubernetes.azure.com/agentpool": "gpu",
                                          "kubernetes.azure.com/dcgm-exporter": "enabled",
                                          "node.kubernetes.io/instance-type": "Standard_NC24ads_A100_v4"})
    profile, _ = _profile(aks)
    assert profile["spec"]["aks"] == {"managedGpu": True} and "suppress" not in profile["spec"]
    aks_operated = _node({"nvidia.com/gpu": "1"}, {**aks.labels, "nvidia.com/gpu.deploy.driver": "true"})
    profile, _ = _profile(aks_operated)
    assert "aks" not in profile["spec"] and profile["spec"]["operator"] == {"enabled": True}
    aks_own = _node({"nvidia.com/gpu": "1"}, {"kubernetes.azure.com/agentpool": "gpu"})
    assert _profile(aks_own)[0]["spec"]["suppress"][0]["pools"] == ["gpu"]


NODE_LIST = """apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: a, labels: {eks.amazonaws.com/nodegroup: ng}}
  status: {capacity: {nvidia.com/gpu: "8"}}
"""


def _adopt(tmp_path, monkeypatch, snapshot: str, output: str | None = None):
    from gengpu.pipeline.adopt import adopt

    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.yaml").write_text(snapshot)
    return adopt("s.yaml", None, "team", output, False)


def test_adopting_reports_the_placeholders_of_the_profile_where_it_will_be_written(tmp_path, monkeypatch):
    """The imported profile is checked as any profile: a region no node states is left UNKNOWN, an error at its line
    in the file named after the profile (or the file given), and the file is written whole, readable by the team."""
    adopted = _adopt(tmp_path, monkeypatch, NODE_LIST)
    line = adopted.text.splitlines().index("  region: UNKNOWN") + 1
    assert [(f.file, f.line, f.column, f.rule) for f in adopted.findings] == [("team.yaml", line, 11, "profile-schema")]
    assert not (tmp_path / "team.yaml").exists()
    (tmp_path / "s.yaml").unlink()
    adopted = _adopt(tmp_path, monkeypatch, NODE_LIST, "out.yaml")
    assert [(f.file, f.line) for f in adopted.findings] == [("out.yaml", line)]
    assert (tmp_path / "out.yaml").read_text() == adopted.text
    assert (tmp_path / "out.yaml").stat().st_mode & 0o777 == 0o644


@pytest.mark.parametrize("make", ["file", "dangling-link"])
def test_adopting_never_writes_over_a_path_that_exists(tmp_path, monkeypatch, make):
    from gengpu.findings import UsageError

    if make == "file":
        (tmp_path / "out.yaml").write_text("mine\n")
    else:
        (tmp_path / "out.yaml").symlink_to(tmp_path / "elsewhere.yaml")
    with pytest.raises(UsageError, match="^out.yaml exists; gengpu import writes only a new file"):
        _adopt(tmp_path, monkeypatch, NODE_LIST, "out.yaml")
    assert not (tmp_path / "elsewhere.yaml").exists()
    assert make != "file" or (tmp_path / "out.yaml").read_text() == "mine\n"


@pytest.mark.parametrize("snapshot, said", [
    ("apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Node, metadata: {name: a}}\n"
     "- {apiVersion: v1, kind: Node, metadata: {name: b}}\n", "holds 2 node(s) and none with NVIDIA GPUs"),
    ("apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Pod, metadata: {name: a, namespace: x}}\n",
     "holds no Node"),
])
def test_adopting_nothing_says_why(tmp_path, monkeypatch, snapshot, said):
    adopted = _adopt(tmp_path, monkeypatch, snapshot, "out.yaml")
    assert adopted.text is None and not (tmp_path / "out.yaml").exists()
    ours = [(f.file, f.line, f.severity, f.rule, f.message) for f in adopted.findings
            if f.message.endswith("nothing to import a profile from")]
    assert ours == [("s.yaml", 1, "error", "snapshot-incomplete",
                     f"the snapshot {said}: nothing to import a profile from")]
    assert sum(f.rule == "snapshot-incomplete" for f in adopted.findings) == 1


def test_a_snapshot_that_cannot_be_read_is_its_findings_and_no_profile(tmp_path, monkeypatch):
    adopted = _adopt(tmp_path, monkeypatch, "items: [\n", "out.yaml")
    assert adopted.text is None and adopted.findings and all(f.file == "s.yaml" for f in adopted.findings)
    assert not (tmp_path / "out.yaml").exists()


@pytest.mark.parametrize("capacity, allocatable, registered", [
    ({"nvidia.com/gpu": "8"}, {"nvidia.com/gpu": "7"}, {"nvidia.com/gpu": 8}),  # (capacity: what it has)
    (None, {"nvidia.com/gpu": "4"}, {"nvidia.com/gpu": 4}),
    ({"nvidia.com/gpu": "8"}, None, {"nvidia.com/gpu": 8}),
    # MPS renamed: the kubelet keeps the old name's capacity at allocatable 0 beside the name now offered
    ({"nvidia.com/gpu": "8", "nvidia.com/gpu.shared": "8"}, {"nvidia.com/gpu": "0", "nvidia.com/gpu.shared": "8"},
     {"nvidia.com/gpu.shared": 8}),
    # nothing offered at all (the plugin down): what it had stays
    ({"nvidia.com/gpu": "8"}, {"nvidia.com/gpu": "0"}, {"nvidia.com/gpu": 8}),
    # a name in capacity only is kept beside one offered
    ({"nvidia.com/mig-1g.10gb": "7"}, {"nvidia.com/gpu": "1"}, {"nvidia.com/mig-1g.10gb": 7, "nvidia.com/gpu": 1}),
    ({"nvidia.com/gpu": "8Ki", "nvidia.com/pgpu": "2", "cpu": "8", "nvidia.com/mig-1g.5gb": "7"}, None,
     {"nvidia.com/mig-1g.5gb": 7}),
])
def test_what_a_node_registers(capacity, allocatable, registered):
    from gengpu.adopting_sharing import counts

    assert counts(_node(capacity, allocatable=allocatable)) == registered


@pytest.mark.parametrize("capacity, labels, found", [
    ({"nvidia.com/mig-1g.10gb": "56"}, {"nvidia.com/mig-1g.10gb.replicas": "2"}, ({"1g.10gb": 28}, 2)),
    ({"nvidia.com/mig-1g.10gb": "56"}, {"nvidia.com/mig-1g.10gb.replicas": "3"}, ({"1g.10gb": 56}, 1)),
    ({"nvidia.com/mig-1g.10gb": "56"}, {"nvidia.com/mig-1g.10gb.replicas": "1"}, ({"1g.10gb": 56}, 1)),
    ({"nvidia.com/mig-1g.10gb": "56"}, {"nvidia.com/mig-1g.10gb.replicas": "two"}, ({"1g.10gb": 56}, 1)),
    # sliced alike or not: one profile sliced, the other not, is not "the MIG devices time-sliced 2 ways"
    ({"nvidia.com/mig-1g.10gb": "56", "nvidia.com/mig-3g.40gb": "8"}, {"nvidia.com/mig-1g.10gb.replicas": "2"},
     ({"1g.10gb": 28, "3g.40gb": 8}, 1)),
    ({"nvidia.com/mig-1g.10gb": "56", "nvidia.com/mig-3g.40gb": "16"},
     {"nvidia.com/mig-1g.10gb.replicas": "2", "nvidia.com/mig-3g.40gb.replicas": "2"},
     ({"1g.10gb": 28, "3g.40gb": 8}, 2)),
    ({"nvidia.com/mig-1g.10gb": "0", "nvidia.com/gpu": "8"}, {}, ({}, 1)),
])
def test_the_mig_devices_a_node_has_and_how_many_ways_each_is_sliced(capacity, labels, found):
    from gengpu.adopting_sharing import mig_devices

    assert mig_devices(_node(capacity, labels)) == found


@pytest.mark.parametrize("capacity, labels, gpus, sharing", [
    # GFD's per-profile counts under the mixed strategy, where the paste has no capacity
    (None, {"nvidia.com/mig-1g.10gb.count": "28", "nvidia.com/mig-3g.40gb.count": "0",
            "nvidia.com/mig-2g.20gb.count": "x"}, 4,
     {"mode": "mig", "mig": {"strategy": "mixed", "layout": {"1g.10gb": 7}}}),
    (None, {"nvidia.com/mig-1g.10gb.count": "28", "nvidia.com/mig.config": "all-1g.10gb"}, 4,
     {"mode": "mig", "mig": {"strategy": "mixed", "preset": "all-1g.10gb"}}),
    (None, {"nvidia.com/mig-1g.10gb.count": "28"}, None, None),
    # MPS by GFD's strategy label, its replicas what the plugin registered per GPU
    ({"nvidia.com/gpu": "8"}, {"nvidia.com/gpu.sharing-strategy": "mps"}, 4, {"mode": "mps", "replicas": 2}),
    ({"nvidia.com/gpu": "8"}, {"nvidia.com/gpu.sharing-strategy": "mps"}, None, None),
    # the single strategy time-sliced, GFD's count where the paste has no capacity
    (None, {"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3-MIG-3g.40gb-SHARED", "nvidia.com/gpu.count": "16",
            "nvidia.com/gpu.replicas": "2"}, 8,
     {"mode": "mig", "mig": {"strategy": "single", "layout": {"3g.40gb": 2}, "replicas": 2}}),
    (None, {"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3-MIG-3g.40gb", "nvidia.com/gpu.count": "16"}, None, None),
    (None, {"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3-MIG-3g.40gb"}, 8, None),
])
def test_the_sharing_of_a_node_from_labels_alone(capacity, labels, gpus, sharing):
    from gengpu.adopting_sharing import sharing_of

    assert sharing_of(_node(capacity, labels), gpus, "H100-80GB") == sharing


@pytest.mark.parametrize("kubelet,written,said", [
    ("v1.16.2", "1.25", True),  # (the OpenShift 4.3 p3 node of the live corpus, 2020)
    ("v1.40.0", "1.37", True),
    ("v1.25.0", "1.25", False),
    ("v1.37.1", "1.37", False),
    ("v1.30.4+k3s1", "1.30", False),
])
def test_a_kubernetes_version_gengpu_does_not_validate_against_is_the_nearest_it_does_and_said(kubelet, written,
                                                                                              said):
    profile, notes = _profile(_node({"nvidia.com/gpu": "8"}, H100, version=kubelet))
    assert profile["spec"]["kubernetesVersion"] == written
    told = [n for n in notes if "which gengpu does not validate against" in n]
    assert told == ([f"the nodes run Kubernetes {kubelet[1:5]}, which gengpu does not validate against (the profile "
                     f"schema's spec.kubernetesVersion); spec.kubernetesVersion says {written}, the nearest it does"]
                    if said else [])
