"""gengpu import karpenter-provisioner: every field of a v1alpha5 Provisioner goes where the Karpenter v1beta1/v1
migration guide puts it (requirements on instance family and type, capacity type and zone; taints; labels;
limits.resources; ttlSecondsAfterEmpty or consolidation; weight; kubeletConfiguration), and what has no place in a
profile is named in a note, never dropped. (Written for the import group's mutation survivors, issue 51.)"""

from __future__ import annotations

import pytest
import yaml

FULL = """\
apiVersion: karpenter.sh/v1alpha5
kind: Provisioner
metadata:
  name: GPU Pool
spec:
  requirements:
    - key: karpenter.k8s.aws/instance-family
      operator: In
      values: [g5]
    - key: node.kubernetes.io/instance-type
      operator: In
      values: [p4d.24xlarge, x9.weird]
    - key: karpenter.sh/capacity-type
      operator: In
      values: [spot]
    - key: topology.kubernetes.io/zone
      operator: In
      values: [us-east-1a, 7]
    - key: kubernetes.io/arch
      operator: In
      values: [amd64]
    - key: team
      operator: In
      values: [ml]
    - key: karpenter.k8s.aws/instance-size
      operator: NotIn
      values: [metal]
  taints:
    - key: nvidia.com/gpu
      value: "true"
      effect: NoSchedule
    - key: dedicated
      effect: NoExecute
  labels:
    team: ml
    karpenter.sh/discovery: x
  limits:
    resources:
      cpu: "1000"
      memory: 4000Gi
      nvidia.com/gpu: 2.5
  consolidation:
    enabled: true
  weight: 10
  ttlSecondsUntilExpired: 2592000
  startupTaints: []
  kubeletConfiguration:
    maxPods: 58
"""


def _import(run, tmp_path, text: str):
    (tmp_path / "p.yaml").write_text(text)
    result = run("import", "karpenter-provisioner", "p.yaml", cwd=tmp_path)
    notes = [line.removeprefix("# not imported: ") for line in result.output.splitlines()
             if line.startswith("# not imported: ")]
    return result, notes


def test_every_field_goes_where_the_migration_guide_puts_it(run, tmp_path):
    result, notes = _import(run, tmp_path, FULL)
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0] == "# Imported by gengpu from p.yaml (karpenter.sh/v1alpha5 Provisioner)."
    assert yaml.safe_load(result.output) == {
        "zones": ["us-east-1a", "7"],
        "nodePools": [{
            "name": "gpu-pool", "gpu": ["A10G", "A100-40GB"], "instanceTypes": ["g5", "p4d.24xlarge", "x9.weird"],
            "capacityTypes": ["spot"], "provisioner": "karpenter",
            "taints": [{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"},
                       {"key": "dedicated", "effect": "NoExecute"}],
            "labels": {"team": "ml"}, "limits": {"cpu": 1000, "memoryGiB": 4000},
            "consolidationPolicy": "WhenEmptyOrUnderutilized", "consolidateAfter": "0s", "weight": 10,
            "kubelet": {"maxPods": 58}}]}
    assert notes == [
        "requirement team In ['ml'] has no profile field",
        "requirement karpenter.k8s.aws/instance-size NotIn ['metal'] has no profile field; add it to the NodePool "
        "by hand",
        "instance type x9.weird is not in gengpu's EKS table; set the pool's gpu by hand",
        "limits.resources.nvidia.com/gpu: 2.5 is not a whole number; set limits by hand",
        "spec.ttlSecondsUntilExpired is not imported: gengpu writes its own EC2NodeClass and expireAfter 720h",
        "spec.startupTaints is not imported: gengpu writes its own EC2NodeClass and expireAfter 720h"]


def test_the_defaults_of_a_bare_provisioner(run, tmp_path):
    """One instance type, nothing else: on-demand, no zones, no taints, no limits, no consolidation, no notes."""
    result, notes = _import(run, tmp_path, "apiVersion: karpenter.sh/v1alpha5\nkind: Provisioner\nspec:\n"
                            "  requirements:\n    - {key: node.kubernetes.io/instance-type, operator: In, "
                            "values: [g6.xlarge]}\n")
    assert (result.exit_code, notes) == (0, [])
    assert yaml.safe_load(result.output) == {"zones": [], "nodePools": [{
        "name": "gpu", "gpu": "L4", "instanceTypes": ["g6.xlarge"], "capacityTypes": ["on-demand"],
        "provisioner": "karpenter", "taints": []}]}


@pytest.mark.parametrize("limits, imported, note", [
    ({"cpu": 64, "memory": "256G", "nvidia.com/gpu": "8"}, {"cpu": 64, "memoryGiB": 256, "gpus": 8}, None),
    ({"memory": "1Ti"}, None, "limits.resources.memory: '1Ti' is not a whole number; set limits by hand"),
    ({"cpu": "500m"}, None, "limits.resources.cpu: '500m' is not a whole number; set limits by hand"),
    ({"cpu": True}, None, "limits.resources.cpu: True is not a whole number; set limits by hand"),
    ({"nvidia.com/gpu": "8Gi"}, None, "limits.resources.nvidia.com/gpu: '8Gi' is not a whole number; set limits by "
                                      "hand"),
])
def test_limits_are_whole_numbers_in_their_units(run, tmp_path, limits, imported, note):
    text = FULL.split("  limits:")[0] + "  limits:\n    resources: " + yaml.safe_dump(limits, default_flow_style=True)
    result, notes = _import(run, tmp_path, text)
    assert result.exit_code == 0, result.output
    pool = yaml.safe_load(result.output)["nodePools"][0]
    assert pool.get("limits") == imported
    assert [n for n in notes if n.startswith("limits")] == ([note] if note else [])


@pytest.mark.parametrize("tail, policy", [
    ("  ttlSecondsAfterEmpty: 0\n", {"consolidationPolicy": "WhenEmpty", "consolidateAfter": "0s"}),
    ("  ttlSecondsAfterEmpty: 45\n  consolidation: {enabled: true}\n",
     {"consolidationPolicy": "WhenEmpty", "consolidateAfter": "45s"}),
    ("  consolidation: {enabled: false}\n", {}),
    ("  consolidation: {enabled: \"true\"}\n", {}),
])
def test_emptiness_and_consolidation(run, tmp_path, tail, policy):
    """ttlSecondsAfterEmpty is WhenEmpty after that long, and wins over consolidation (v1alpha5 refuses both, the
    first is kept); consolidation.enabled true (the boolean) is WhenEmptyOrUnderutilized."""
    base = "apiVersion: karpenter.sh/v1alpha5\nkind: Provisioner\nspec:\n  requirements:\n" \
           "    - {key: node.kubernetes.io/instance-type, operator: In, values: [g6.xlarge]}\n"
    result, _ = _import(run, tmp_path, base + tail)
    assert result.exit_code == 0, result.output
    pool = yaml.safe_load(result.output)["nodePools"][0]
    assert {k: pool[k] for k in ("consolidationPolicy", "consolidateAfter") if k in pool} == policy


@pytest.mark.parametrize("replace, message", [
    (("    - key: team\n      operator: In\n", "    - key: team\n"),
     "p.yaml:22:7: spec.requirements[5]: a requirement needs a key and an operator; give key: <label> and operator: "
     "In (or NotIn, Exists, DoesNotExist, Gt, Lt)"),
    (("      values: [ml]\n", "      values: [{a: 1}]\n"),
     "p.yaml:24:7: spec.requirements[5].values: holds a mapping or a list; list plain values"),
    (("      values: [ml]\n", "      values: ml\n"),
     "p.yaml:24:15: spec.requirements[5].values: is str, not a list; write it as a list (- item per line)"),
    (("  weight: 10\n", "  weight: 101\n"), "p.yaml:44:11: spec.weight: 101 is not a whole number from 1 to 100; fix "
                                            "the weight"),
    (("  weight: 10\n", "  weight: 0\n"), "p.yaml:44:11: spec.weight: 0 is not a whole number from 1 to 100; fix the "
                                          "weight"),
    (("  weight: 10\n", "  weight: true\n"), "p.yaml:44:11: spec.weight: true is not a whole number from 1 to 100; "
                                             "fix the weight"),
    (("  labels:\n    team: ml\n    karpenter.sh/discovery: x\n", "  labels: [team]\n"),
     "p.yaml:34:3: spec.labels: is list, not a mapping; write it as key: value pairs"),
    (("    maxPods: 58\n", "    - maxPods\n"),
     "p.yaml:47:3: spec.kubeletConfiguration: is list, not a mapping; write it as key: value pairs"),
    (("apiVersion: karpenter.sh/v1alpha5\n", "apiVersion: karpenter.sh/v1beta1\n"),
     "p.yaml: apiVersion is \"karpenter.sh/v1beta1\", not karpenter.sh/v1alpha5"),
    (("    - key: karpenter.k8s.aws/instance-family\n      operator: In\n      values: [g5]\n"
      "    - key: node.kubernetes.io/instance-type\n      operator: In\n      values: [p4d.24xlarge, x9.weird]\n", ""),
     "p.yaml: the Provisioner names no instance family or type; gengpu needs them for a GPU pool"),
])
def test_a_field_of_another_shape_is_refused_at_its_line(run, tmp_path, replace, message):
    old, new = replace
    assert old in FULL
    result, _ = _import(run, tmp_path, FULL.replace(old, new))
    assert (result.exit_code, result.output) == (2, f"gengpu: error: {message}\n")


BARE = "apiVersion: karpenter.sh/v1alpha5\nkind: Provisioner\nspec:\n  requirements:\n" \
       "    - {key: node.kubernetes.io/instance-type, operator: In, values: [g6.xlarge]}\n"


@pytest.mark.parametrize("tail, field, value", [
    ("    - {key: karpenter.k8s.aws/instance-family, operator: In, values: [g5]}\n"
     "    - {key: karpenter.k8s.aws/instance-family, operator: In, values: [g6e]}\n",
     "instanceTypes", ["g5", "g6e", "g6.xlarge"]),
    ("    - {key: node.kubernetes.io/instance-type, operator: In, values: [g5.xlarge]}\n",
     "instanceTypes", ["g6.xlarge", "g5.xlarge"]),
    ("    - {key: karpenter.sh/capacity-type, operator: In, values: [spot]}\n"
     "    - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}\n",
     "capacityTypes", ["spot", "on-demand"]),
])
def test_requirements_of_one_key_add_up(run, tmp_path, tail, field, value):
    result, _ = _import(run, tmp_path, BARE + tail)
    assert yaml.safe_load(result.output)["nodePools"][0][field] == value


def test_zones_of_two_requirements_add_up(run, tmp_path):
    result, _ = _import(run, tmp_path, BARE + "    - {key: topology.kubernetes.io/zone, operator: In, values: [a]}\n"
                                              "    - {key: topology.kubernetes.io/zone, operator: In, values: [b]}\n")
    assert yaml.safe_load(result.output)["zones"] == ["a", "b"]


def test_instance_types_gengpu_does_not_know_leave_the_gpu_to_set(run, tmp_path):
    result, notes = _import(run, tmp_path, BARE.replace("g6.xlarge", "x9.weird"))
    assert yaml.safe_load(result.output)["nodePools"][0]["gpu"] == ["SET-ME"]
    assert notes == ["instance type x9.weird is not in gengpu's EKS table; set the pool's gpu by hand"]


@pytest.mark.parametrize("tail, key, value", [
    ("  weight: 1\n", "weight", 1), ("  weight: 100\n", "weight", 100),
    ("  taints: [{key: a, effect: PreferNoSchedule}]\n", "taints", [{"key": "a", "effect": "PreferNoSchedule"}]),
    ("  limits: {resources: {cpu: 64G}}\n", "limits", None),
    ("  limits: {resources: {memory: 64G}}\n", "limits", {"memoryGiB": 64}),
])
def test_values_at_their_bounds(run, tmp_path, tail, key, value):
    result, _ = _import(run, tmp_path, BARE + tail)
    assert result.exit_code == 0, result.output
    assert yaml.safe_load(result.output)["nodePools"][0].get(key) == value


@pytest.mark.parametrize("tail, note", [
    ("  provider: {subnetSelector: {a: b}}\n",
     "spec.provider is not imported: gengpu writes its own EC2NodeClass and expireAfter 720h"),
    ("  annotations: {a: b}\n", "spec.annotations is not imported: gengpu writes its own EC2NodeClass and expireAfter "
                               "720h"),
    ("  \"é\": 1\n", "spec.\"é\" is not imported: the profile has no field for it"),
    ("    - {key: \"é\", operator: In, values: [x]}\n", "requirement \"é\" In ['x'] has no profile field"),
])
def test_what_is_not_imported_is_named_as_written(run, tmp_path, tail, note):
    result, notes = _import(run, tmp_path, BARE + tail)
    assert result.exit_code == 0, result.output
    assert notes == [note]


@pytest.mark.parametrize("tail, message", [
    ("  taints: {key: a}\n", "p.yaml:6:3: spec.taints: is dict, not a list; write it as a list (- item per line)"),
    ("  limits: [cpu]\n", "p.yaml:6:3: spec.limits: is list, not a mapping; write it as key: value pairs"),
    ("  limits: {resources: [cpu]}\n",
     "p.yaml:6:12: spec.limits.resources: is list, not a mapping; write it as key: value pairs"),
    ("  consolidation: [true]\n",
     "p.yaml:6:3: spec.consolidation: is list, not a mapping; write it as key: value pairs"),
    ("metadata: [gpu]\n", "p.yaml:6:1: metadata: is list, not a mapping; write it as key: value pairs"),
])
def test_each_misshapen_section_is_named_at_its_line(run, tmp_path, tail, message):
    result, _ = _import(run, tmp_path, BARE + tail)
    assert (result.exit_code, result.output) == (2, f"gengpu: error: {message}\n")
