"""EKS Auto Mode GPU pools beside NVIDIA's stack, and DRA claims bound to Auto Mode nodes.

Upstream: awsdocs/amazon-eks-user-guide latest/ug/automode/auto-accelerated.adoc at 031299c7 (the GPU NodePool; Auto
Mode "includes the drivers and device plugins", the NVIDIA plugin "not visible as a daemon set"),
automode/associate-workload.adoc and create-node-pool.adoc at 4d52b4d0 (eks.amazonaws.com/compute-type=auto on Auto
Mode nodes; the NotIn [auto] affinity that keeps a workload off them; the eks.amazonaws.com/instance-* labels); EKS
User Guide "Manage hardware devices on Amazon EKS" (Auto Mode's NVIDIA DRA driver, Kubernetes 1.36 or later).
NVIDIA's static device plugin DaemonSet is k8s-device-plugin v0.20.0 deployments/static/nvidia-device-plugin.yml
(tests/corpus/nvidia/device-plugin-nvidia-device-plugin.yml, byte for byte)."""

import json
from pathlib import Path

import pytest

from gengpu.checking.rules._auto_mode import AutoPool, may_land, requires_auto
from gengpu.model import Taint

CORPUS = Path(__file__).resolve().parent / "corpus"
RULE = "eks-auto-mode-gpu-stack-duplicate"

# auto-accelerated.adoc's nodepool-gpu.yaml, verbatim
AWS_GPU_POOL = """\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: gpu
spec:
  disruption:
    budgets:
    - nodes: 10%
    consolidateAfter: 1h
    consolidationPolicy: WhenEmpty
  template:
    metadata: {}
    spec:
      nodeClassRef:
        group: eks.amazonaws.com
        kind: NodeClass
        name: default
      requirements:
        - key: "karpenter.sh/capacity-type"
          operator: In
          values: ["on-demand"]
        - key: "kubernetes.io/arch"
          operator: In
          values: ["amd64"]
        - key: "eks.amazonaws.com/instance-family"
          operator: In
          values:
          - g6e
          - g6
      terminationGracePeriod: 24h0m0s
"""
PLUGIN = (CORPUS / "nvidia" / "device-plugin-nvidia-device-plugin.yml").read_text()
# associate-workload.adoc, "Require a workload is not deployed to EKS Auto Mode nodes"
NOT_AUTO = """\
      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms:
            - matchExpressions:
              - key: eks.amazonaws.com/compute-type
                operator: NotIn
                values:
                - auto
"""


def _spec_line(text: str) -> int:
    """The line of the DaemonSet's pod spec (spec.template.spec), where the rule points."""
    lines = text.splitlines()
    template = lines.index("  template:", lines.index("kind: DaemonSet"))
    return lines.index("    spec:", template) + 1


def _findings(run, tmp_path, text, *args):
    (tmp_path / "case.yaml").write_text(text)
    result = run("validate", *args, "case.yaml", "--output", "json", cwd=tmp_path)
    return [(f["rule"], f["line"]) for f in json.loads(result.output)["findings"]]


def test_aws_tutorial_pool_with_nvidia_static_plugin(run, tmp_path):
    # The tutorial's pool has no taint: Karpenter's GPU-pool warning now knows Auto Mode's instance-family key too.
    text = AWS_GPU_POOL + "---\n" + PLUGIN
    assert _findings(run, tmp_path, text) == [("karpenter-gpu-pool-untainted", 13), (RULE, _spec_line(text))]


def test_plugin_kept_off_auto_mode_nodes_as_aws_documents(run, tmp_path):
    kept = PLUGIN.replace("      tolerations:\n", NOT_AUTO + "      tolerations:\n", 1)
    assert kept != PLUGIN
    assert _findings(run, tmp_path, AWS_GPU_POOL + "---\n" + kept) == [("karpenter-gpu-pool-untainted", 13)]


@pytest.mark.parametrize("placement, lands", [
    ("      nodeSelector:\n        accelerator: nvidia-gpu\n", False),  # a label of the user's the pool never sets
    ("      nodeSelector:\n        karpenter.sh/nodepool: gpu\n", True),
    ("      nodeSelector:\n        karpenter.sh/nodepool: cpu\n", False),
    ("      nodeSelector:\n        eks.amazonaws.com/instance-family: p5\n", False),  # the pool's In [g6e, g6]
    ("      nodeSelector:\n        feature.node.kubernetes.io/pci-10de.present: \"true\"\n", True),  # NFD may add it
])
def test_placement_is_read_against_what_the_pool_fixes(run, tmp_path, placement, lands):
    placed = PLUGIN.replace("      tolerations:\n", placement + "      tolerations:\n", 1)
    text = AWS_GPU_POOL + "---\n" + placed
    found = _findings(run, tmp_path, text)
    assert ((RULE, _spec_line(text)) in found) is lands, found


def test_a_taint_the_daemonset_does_not_tolerate_keeps_it_off():
    pool = AutoPool(None, "gpu", {"eks.amazonaws.com/compute-type": {"auto"}},
                    [Taint("team", "NoSchedule", "ml")])
    assert not may_land({"tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists"}]}, pool)
    assert may_land({"tolerations": [{"key": "team", "operator": "Equal", "value": "ml"}]}, pool)
    assert may_land({"tolerations": [{"operator": "Exists"}]}, pool)


def test_operator_operands_label_keeps_the_gpu_operator_off(run, tmp_path):
    release = ("---\napiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: gpu-operator\n"
               "spec:\n  interval: 1h\n  chart:\n    spec:\n      chart: gpu-operator\n      version: v26.7.0\n"
               "      sourceRef: {kind: HelmRepository, name: nvidia}\n  values:\n    driver:\n      enabled: false\n")
    (tmp_path / "case.yaml").write_text(AWS_GPU_POOL + release)
    result = run("validate", "case.yaml", "--output", "json", cwd=tmp_path)
    [found] = [f for f in json.loads(result.output)["findings"] if f["rule"] == RULE]
    assert found["line"] == (AWS_GPU_POOL + release).splitlines().index("    driver:") + 1  # the values' first key
    # the driver is off; its device plugin still runs
    assert found["message"].startswith("HelmRelease gpu-operator gpu-operator values can run the NVIDIA device plugin "
                                       "on the nodes of NodePool gpu: ")
    labelled = AWS_GPU_POOL.replace("    metadata: {}\n",
                                    "    metadata:\n      labels:\n        nvidia.com/gpu.deploy.operands: \"false\"\n")
    assert RULE not in [r for r, _ in _findings(run, tmp_path, labelled + release)]
    both_off = release + "    devicePlugin:\n      enabled: false\n"
    assert RULE not in [r for r, _ in _findings(run, tmp_path, AWS_GPU_POOL + both_off)]


def test_non_nvidia_and_non_auto_pools_are_left_alone(run, tmp_path):
    ec2 = AWS_GPU_POOL.replace("group: eks.amazonaws.com\n        kind: NodeClass",
                               "group: karpenter.k8s.aws\n        kind: EC2NodeClass")
    assert RULE not in [r for r, _ in _findings(run, tmp_path, ec2 + "---\n" + PLUGIN)]
    amd = AWS_GPU_POOL.replace("          - g6\n", "          - g6\n        - key: eks.amazonaws.com/instance-gpu-"
                               "manufacturer\n          operator: In\n          values: [amd]\n")
    assert RULE not in [r for r, _ in _findings(run, tmp_path, amd + "---\n" + PLUGIN)]


def test_requires_auto_only_when_every_term_binds_to_auto_mode():
    pool = AutoPool(None, "gpu", {}, [])
    auto = {"key": "eks.amazonaws.com/compute-type", "operator": "In", "values": ["auto"]}
    other = {"key": "karpenter.sh/nodepool", "operator": "In", "values": ["gpu", "mng"]}
    spec = {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [auto]}, {"matchExpressions": [other]}]}}}}
    assert not requires_auto(spec, [pool])  # the second term lets it run on NodePool mng
    spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"][1] = {
        "matchExpressions": [dict(other, values=["gpu"])]}
    assert requires_auto(spec, [pool])
    assert not requires_auto({}, [pool])


def test_nvidias_sample_clusterpolicy_beside_the_tutorial_pool(run, tmp_path):
    # gpu-operator v26.7.0 config/samples/v1_clusterpolicy.yaml (from the corpus): devicePlugin enabled, no
    # daemonsets tolerations; the tutorial's pool is untainted and does not label its nodes operands=false.
    sample = (CORPUS / "nvidia" / "gpu-operator-v1_clusterpolicy.yaml").read_text()
    (tmp_path / "case.yaml").write_text(AWS_GPU_POOL + "---\n" + sample)
    result = run("validate", "case.yaml", "--output", "json", cwd=tmp_path)
    [found] = [f for f in json.loads(result.output)["findings"] if f["rule"] == RULE]
    assert found["message"].startswith("ClusterPolicy gpu-cluster-policy can run the NVIDIA driver container and the "
                                       "NVIDIA device plugin on the nodes of NodePool gpu: ")
    tainted = AWS_GPU_POOL.replace("      terminationGracePeriod", "      taints:\n        - key: nvidia.com/gpu\n"
                                   "          effect: NoSchedule\n      terminationGracePeriod")
    assert RULE not in [r for r, _ in _findings(run, tmp_path, tainted + "---\n" + sample)]  # nothing tolerates it
