"""Rules beyond their examples: the explanation every rule carries, suppressions, and behaviour a single failing
example and near miss cannot show. Each rule's own failing example and near miss live beside it, in
gengpu/checking/rules/examples/ (tests/test_rule_examples.py runs them)."""

import json
import textwrap

import pytest

from gengpu import catalog
from gengpu.checking.rules import RULES
from gengpu.checking.rules.base import examples

BASE = """\
apiVersion: gengpu.dev/v1alpha1
kind: GPUProfile
metadata:
  name: rules
spec:
  platform: eks
  region: us-east-1
  zones: [us-east-1a]
  kubernetesVersion: "1.33"
  operator:
    version: v26.7.0
  nodePools:
    - name: pool
      gpu: A100-40GB
      gpusPerNode: 8
      instanceTypes: [p4d.24xlarge]
      capacityTypes: [on-demand]
      provisioner: karpenter
      sharing:
        mode: time-slicing
        replicas: 4
        failRequestsGreaterThanOne: true
  argocd:
    repoURL: https://github.com/example/gitops.git
"""
SECOND_POOL = """\
    - name: second
      gpu: T4
      gpusPerNode: 1
      instanceTypes: [g4dn.xlarge]
      provisioner: karpenter
"""
TS = "      sharing:\n        mode: time-slicing\n        replicas: 4\n        failRequestsGreaterThanOne: true\n"


def edit(*changes):
    text = BASE
    for old, new in changes:
        assert old in text, old
        text = text.replace(old, new, 1)
    return text


def add_pool(extra=""):
    return edit(("  argocd:\n", SECOND_POOL + extra + "  argocd:\n"))


DP = """\
version: v1
flags:
  migStrategy: none
sharing:
  timeSlicing:
    resources:
      - name: nvidia.com/gpu
        replicas: 4
"""
POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  tolerations:
    - key: nvidia.com/gpu
      operator: Exists
  containers:
    - name: c
      image: cuda
      resources:
        limits:
          nvidia.com/gpu: 1
"""
CM_HEAD = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dp\ndata:\n  pool: |\n"
CM = CM_HEAD + textwrap.indent(DP, "    ")
NODEPOOL = "---\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: gpu\nspec:\n  template:\n    metadata:\n" \
           "      labels:\n        nvidia.com/device-plugin.config: pool\n    spec:\n      nodeClassRef: {group: " \
           "karpenter.k8s.aws, kind: EC2NodeClass, name: gpu}\n      requirements: []\n"


def r(text, *changes):
    for old, new in changes:
        assert old in text, old
        text = text.replace(old, new, 1)
    return text


PLACED = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: any
  annotations:
    gengpu.dev/pool: second
spec:
  selector: {matchLabels: {app: any}}
  template:
    metadata: {labels: {app: any}}
    spec:
      nodeSelector: {gengpu.dev/pool: second}
      containers:
        - name: c
          image: cuda
          resources:
            limits:
              nvidia.com/gpu: 1
"""
# the second pool, time-sliced 4 ways on a 16 GB T4: 4 GB a slice
SLICED = "      sharing:\n        mode: time-slicing\n        replicas: 4\n        failRequestsGreaterThanOne: true\n"


def findings(run, tmp_path, text, name="case.yaml", kind=None, context=False):
    (tmp_path / name).write_text(text)
    args = ["validate", name, "--output", "json"]
    if kind:
        args += ["--kind", kind]
    if context:
        (tmp_path / "cluster.yaml").write_text(context if isinstance(context, str) else BASE)
        args += ["--profile", "cluster.yaml"]
    result = run(*args, cwd=tmp_path)
    assert result.exit_code in (0, 1), result.output
    return [(f["rule"], f"{f['line']}:{f['column']}") for f in json.loads(result.output)["findings"]]


def test_the_base_profile_is_clean(run, tmp_path):
    # but for its Karpenter pool without limits, which the cases leave so (see pool-unbounded)
    assert findings(run, tmp_path, BASE) == [("pool-unbounded", "18:20")]


@pytest.mark.parametrize("rule", sorted(RULES))
def test_every_rule_is_explained(run, rule):
    r = RULES[rule]
    assert r.severity in ("error", "warning", "info")
    assert len(r.summary) > 10 and len(r.fix) > 10 and len(r.explanation) > 40 and r.source
    out = run("explain", rule).output
    assert out.startswith(f"{rule} ({r.severity}, checks {r.applies_to})\n")


def test_rules_json_lists_them_all(run):
    listed = json.loads(run("rules", "--output", "json").output)
    assert [r["id"] for r in listed] == sorted(RULES)
    assert set(listed[0]) == {"id", "severity", "appliesTo", "summary", "fix", "explanation", "source"}


def test_annotation_suppresses_a_workload_rule_only_with_a_reason(run, tmp_path):
    bad = r(POD, ("nvidia.com/gpu: 1", "nvidia.com/gpu: 500m"))
    with_reason = r(bad, ("  name: p\n", "  name: p\n  annotations:\n    gengpu.dev/suppress.gpu-quantity-not-integer: "
                                         "\"vendor webhook rewrites it\"\n"))
    assert [f for f in findings(run, tmp_path, with_reason) if f[0] == "gpu-quantity-not-integer"] == []
    without = r(bad, ("  name: p\n", "  name: p\n  annotations:\n    gengpu.dev/suppress.gpu-quantity-not-integer: \"\"\n"))
    got = findings(run, tmp_path, without)
    assert ("gpu-quantity-not-integer", "16:27") in got
    assert ("suppression-without-reason", "6:5") in got


def test_profile_suppression_is_limited_to_its_pools(run, tmp_path):
    text = edit(("failRequestsGreaterThanOne: true", "failRequestsGreaterThanOne: false"))
    text = text.replace("  argocd:", SECOND_POOL + TS.replace("        failRequestsGreaterThanOne: true\n", "")
                        + "  suppress:\n    - rule: shared-gpu-multi-request\n      reason: one GPU per pod here\n"
                          "      pools: [pool]\n  argocd:")
    got = [f for f in findings(run, tmp_path, text) if f[0] == "shared-gpu-multi-request"]
    assert got == [("shared-gpu-multi-request", "29:15")]


def test_a_profile_suppression_without_a_reason_silences_nothing(run, tmp_path):
    """The README: a suppression without a reason is a finding, and the rule it names still fires."""
    text = edit(("failRequestsGreaterThanOne: true", "failRequestsGreaterThanOne: false"),
                ("  argocd:", "  suppress:\n    - rule: shared-gpu-multi-request\n  argocd:"))
    got = findings(run, tmp_path, text)
    assert sorted(f[0] for f in got) == ["pool-unbounded", "shared-gpu-multi-request", "suppression-without-reason"]
    with_reason = text.replace("    - rule: shared-gpu-multi-request\n",
                               "    - rule: shared-gpu-multi-request\n      reason: one GPU per pod here\n")
    assert findings(run, tmp_path, with_reason) == [("pool-unbounded", "18:20")]


def test_a_config_label_is_not_judged_without_any_config(run, tmp_path):
    """A NodePool naming a device-plugin config key, validated without the ConfigMap: nothing to compare with."""
    got = findings(run, tmp_path, NODEPOOL.lstrip("-\n").replace("config: pool", "config: missing"))
    assert [f for f in got if f[0] == "config-label-unknown"] == []
    assert ("config-label-unknown", "24:42") in findings(run, tmp_path, CM + NODEPOOL.replace("config: pool",
                                                                                                "config: missing"))


def test_a_workload_on_a_dra_pool_must_use_its_claim_and_no_extended_resource(run, tmp_path):
    """On a DRA pool, nvidia.com/gpu is advertised by nothing, and a container must list the pod's claim."""
    cluster = add_pool("      allocation: dra\n").replace('kubernetesVersion: "1.33"', 'kubernetesVersion: "1.34"')
    claimed = r(PLACED, ("      containers:", "      resourceClaims: [{name: gpu, resourceClaimTemplateName: second}]\n"
                                             "      containers:"))
    asks_resource = findings(run, tmp_path, claimed, context=cluster)
    assert [f for f in asks_resource if f[0].startswith("placement")] == [
        ("placement-without-gpu-request", "14:7"), ("placement-request-unfit", "19:15")]
    uses_claim = r(claimed, ("            limits:\n              nvidia.com/gpu: 1\n", "            claims: [{name: gpu}]\n"))
    assert [f for f in findings(run, tmp_path, uses_claim, context=cluster) if f[0].startswith("placement")] == []


def test_kai_schedulers_gpu_memory_annotation_counts_too(run, tmp_path):
    """KAI's gpu-memory (MiB) on the pod template: 6000 MiB do not fit a 4 GB slice; 3000 do."""
    def workload(mib):
        return r(PLACED, ("    metadata: {labels: {app: any}}\n",
                          f"    metadata: {{labels: {{app: any}}, annotations: {{gpu-memory: '{mib}'}}}}\n"))
    got = findings(run, tmp_path, workload(6000), context=add_pool(SLICED))
    assert [f for f in got if f[0] == "shared-slice-too-small"] == [("shared-slice-too-small", "10:62")]
    assert [f for f in findings(run, tmp_path, workload(3000), context=add_pool(SLICED))
            if f[0] == "shared-slice-too-small"] == []


def messages(run, tmp_path, text, context=False):
    (tmp_path / "case.yaml").write_text(text)
    args = ["validate", "case.yaml", "--output", "json"]
    if context:
        (tmp_path / "cluster.yaml").write_text(context)
        args += ["--profile", "cluster.yaml"]
    return {f["rule"]: (f["message"], f["fix"]) for f in json.loads(run(*args, cwd=tmp_path).output)["findings"]}


def test_replica_limits_name_the_limit_its_source_and_the_fix_from_the_data(run, tmp_path):
    mps = messages(run, tmp_path, examples("mps-replicas-over-limit")["fails"].files["case.yaml"])["mps-replicas-over-limit"]
    assert mps == ("nodePools[0].sharing.replicas is 49; MPS on A100-40GB allows at most 48 clients per GPU",
                   "Lower replicas to the limit (48 from compute capability 7.5, 16 below), or use time-slicing.")
    gke = messages(run, tmp_path, examples("gke-shared-clients-over-limit")["fails"].files["case.yaml"])["gke-shared-clients-over-limit"]
    assert gke == ("nodePools[0].sharing.replicas is 49; GKE shares a GPU between at most 48 clients per GPU",
                   "Lower replicas (sharing.replicas, or sharing.mig.replicas for time-shared MIG partitions) to 48 "
                   "or fewer.")


def test_a_gpu_memory_annotation_that_is_no_quantity_is_not_judged(run, tmp_path):
    for value in ("lots", "12 Gi", "-3Gi"):
        workload = r(PLACED, ("    gengpu.dev/pool: second\n", f"    gengpu.dev/pool: second\n    gengpu.dev/gpu-memory: '{value}'\n"))
        assert "shared-slice-too-small" not in messages(run, tmp_path, workload, context=add_pool(SLICED))
    big = r(PLACED, ("    gengpu.dev/pool: second\n", "    gengpu.dev/pool: second\n    gengpu.dev/gpu-memory: 4.5G\n"))
    assert messages(run, tmp_path, big, context=add_pool(SLICED))["shared-slice-too-small"][0] == (
        "Deployment any needs 4.5G of GPU memory, but a slice of pool second has 4.0 GB (16 GB T4 / 4 replicas)")


def test_platform_features_and_their_reasons_come_from_the_platform_table(run, tmp_path, monkeypatch):
    """mps-on-autopilot, operator-unsupported-platform and dra-platform-unsupported are one template over
    platforms.yaml `lacks:`: a platform that gains a lack there is judged by it, with the table's reason."""
    from gengpu import catalog

    platforms = {name: dict(p) for name, p in catalog.platforms().items()}
    platforms["eks"]["lacks"] = {"mps": "no MPS here (a test's table)"}
    monkeypatch.setattr(catalog, "platforms", lambda: platforms)
    found = messages(run, tmp_path, edit(("mode: time-slicing", "mode: mps")))
    assert found["mps-on-autopilot"][0] == "nodePools[0].sharing.mode is mps on eks: no MPS here (a test's table)"
    assert "operator-unsupported-platform" not in found and "dra-platform-unsupported" not in found



def test_spot_capacity_on_a_platform_without_spot_comes_from_the_platform_table(run, tmp_path, monkeypatch):
    """Every platform gengpu knows offers Spot today; one whose table says spot: false gets its title in the
    finding, at the pool's capacityTypes."""
    platforms = {name: dict(p) for name, p in catalog.platforms().items()}
    platforms["eks"]["spot"] = False
    monkeypatch.setattr(catalog, "platforms", lambda: platforms)
    (tmp_path / "case.yaml").write_text(edit(("capacityTypes: [on-demand]", "capacityTypes: [spot]")))
    found = json.loads(run("validate", "case.yaml", "--output", "json", cwd=tmp_path).output)["findings"]
    assert [(f["line"], f["message"]) for f in found if f["rule"] == "spot-not-offered"] == [
        (17, f"nodePools[0].capacityTypes has spot, which {platforms['eks']['title']} does not offer")]


@pytest.mark.parametrize("platform, mode, fires", [
    ("eks", "gke-managed", True), ("aks", "gke-managed", True), ("gke", "gke-managed", False),
    ("gke-autopilot", "gke-managed", False), ("gke-autopilot", "none", False),
    ("gke-autopilot", "service-monitor", True), ("gke", "service-monitor", False), ("eks", "none", False),
])
def test_monitoring_modes_by_platform(run, tmp_path, platform, mode, fires):
    """Managed Service for Prometheus exists on GKE only; on Autopilot the privileged dcgm-exporter cannot run."""
    text = edit(("platform: eks", f"platform: {platform}"),
                ("  argocd:\n", f"  monitoring:\n    mode: {mode}\n  argocd:\n"))
    assert ("monitoring-platform-mismatch" in messages(run, tmp_path, text)) == fires


@pytest.mark.parametrize("platform, operator, found", [
    # AKS nodes can skip their image's driver (gengpu then labels the pools so), and with it the toolkit
    ("aks", "driver: operator\n    toolkit: operator", []),
    ("aks", "toolkit: operator", ["spec.operator.toolkit is operator, but Azure Kubernetes Service nodes already "
                                  "ship the NVIDIA toolkit"]),
    ("eks", "driver: operator\n    toolkit: operator", [
        "spec.operator.driver is operator, but Amazon EKS nodes already ship the NVIDIA driver",
        "spec.operator.toolkit is operator, but Amazon EKS nodes already ship the NVIDIA toolkit"]),
])
def test_a_driver_or_toolkit_the_node_image_already_ships(run, tmp_path, platform, operator, found):
    text = edit(("platform: eks", f"platform: {platform}"), ("version: v26.7.0", f"version: v26.7.0\n    {operator}"))
    (tmp_path / "case.yaml").write_text(text)
    report = json.loads(run("validate", "case.yaml", "--output", "json", cwd=tmp_path).output)["findings"]
    assert [f["message"] for f in report if f["rule"] == "driver-already-preinstalled"] == found

def test_discovery_finds_one_rule_per_module_and_no_helper():
    """The catalogue is every rule module's RULE (or RULES), sorted by id; helpers (_*.py) and base.py add none."""
    from gengpu.checking import rules
    from gengpu.checking.rules.base import EXAMPLES_DIR

    found = rules._discover()
    assert list(found) == sorted(p.stem for p in EXAMPLES_DIR.glob("*.yaml"))
    assert dict(rules.RULES) == found
    assert found["mps-on-autopilot"] is rules.mps_on_autopilot.RULE
    assert found["yaml-syntax"] is rules.structural.RULES[0]


def test_the_catalogue_index_is_what_the_modules_hold_and_a_lookup_imports_one_module():
    """index.json (scripts/gen-rules-doc) names each rule's module and target: the catalogue imports a module only
    when one of its rules is asked for, so the index must never fall behind the modules."""
    import json
    import subprocess
    import sys

    from gengpu.checking import rules

    assert json.loads(rules.INDEX.read_text()) == rules.discover_index()
    probe = ("import sys; from gengpu.checking.rules import RULES; RULES['mps-on-autopilot']; "
             "print(sorted(m for m in sys.modules if m.startswith('gengpu.checking.rules.')))")
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert eval(loaded) == ["gengpu.checking.rules._platform_feature", "gengpu.checking.rules.base",
                            "gengpu.checking.rules.mps_on_autopilot"]


def _profile(text):
    import yaml

    from gengpu.model import build_profile

    return build_profile(yaml.safe_load(text), "case.yaml")


def test_the_templates_build_whole_rules_whose_checks_use_their_parameters():
    from gengpu.checking.rules._limits import replicas_limit
    from gengpu.checking.rules._platform_feature import platform_feature

    texts = dict(severity="warning", summary="a summary", fix="a fix", explanation="an explanation", source="a source")
    limited = replicas_limit(id="a-limit", limit=lambda profile, pool: (3, "a table allows"), **texts)
    assert (limited.id, limited.severity, limited.summary, limited.fix, limited.explanation, limited.source,
            limited.applies_to, limited.suppressible) == ("a-limit", "warning", "a summary", "a fix", "an explanation",
                                                          "a source", "profile", True)
    hits = list(limited.check(_profile(BASE), None))
    assert [(h.path, h.message) for h in hits] == [
        (("spec", "nodePools", 0, "sharing", "replicas"),
         "nodePools[0].sharing.replicas is 4; a table allows at most 3 clients per GPU")]
    assert list(replicas_limit(id="b", limit=lambda profile, pool: (4, "x"), **texts).check(_profile(BASE), None)) == []
    assert list(replicas_limit(id="c", limit=lambda profile, pool: None, **texts).check(_profile(BASE), None)) == []

    def uses(profile):
        yield ("spec", "platform"), "the platform"

    lacking = platform_feature(id="a-feature", feature="mps", uses=uses, **texts)
    assert (lacking.id, lacking.severity, lacking.summary, lacking.fix, lacking.explanation, lacking.source,
            lacking.applies_to, lacking.suppressible) == ("a-feature", "warning", "a summary", "a fix",
                                                          "an explanation", "a source", "profile", True)
    assert platform_feature(id="e", feature="mps", uses=uses, summary="s", fix="f", explanation="e",
                            source="s").severity == "error"
    with pytest.raises(AssertionError):  # a feature no platform lacks is a typo in the rule
        platform_feature(id="f", feature="mpss", uses=uses, **texts)
    assert list(lacking.check(_profile(BASE), None)) == []  # EKS lacks no MPS
    autopilot = _profile(BASE.replace("platform: eks", "platform: gke-autopilot"))
    assert [(h.path, h.message) for h in lacking.check(autopilot, None)] == [
        (("spec", "platform"), "the platform on gke-autopilot: GKE offers MPS on Standard clusters only (GKE 'About "
                               "GPUs in GKE', GPU sharing strategies)")]


@pytest.mark.parametrize("toleration, taint, tolerated", [
    # Kubernetes' ToleratesTaint (k8s.io/api core/v1 toleration.go): an empty effect matches every effect, Exists
    # with no key matches every taint, the operator defaults to Equal and Exists ignores the value.
    ({"key": "nvidia.com/gpu", "operator": "Exists"}, ("nvidia.com/gpu", "NoSchedule", None), True),
    ({"operator": "Exists"}, ("nvidia.com/gpu", "NoSchedule", None), True),
    ({"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoExecute"}, ("nvidia.com/gpu", "NoSchedule", None),
     False),
    ({"key": "nvidia.com/gpu", "operator": "Exists", "effect": ""}, ("nvidia.com/gpu", "NoExecute", None), True),
    ({"key": "nvidia.com/gpu", "value": "present"}, ("nvidia.com/gpu", "NoSchedule", "present"), True),
    ({"key": "nvidia.com/gpu", "value": "present"}, ("nvidia.com/gpu", "NoSchedule", None), False),
    ({"key": "nvidia.com/gpu", "operator": "Equal"}, ("nvidia.com/gpu", "NoSchedule", None), True),
    ({"key": "nvidia.com/gpu", "operator": "Equal", "value": "a"}, ("nvidia.com/gpu", "NoSchedule", "b"), False),
    ({"key": "other", "operator": "Exists"}, ("nvidia.com/gpu", "NoSchedule", None), False),
    ({"key": "nvidia.com/gpu", "operator": "In"}, ("nvidia.com/gpu", "NoSchedule", None), False),
])
def test_tolerations_match_taints_as_kubernetes_matches_them(toleration, taint, tolerated):
    from gengpu.checking.rules._pods import tolerates
    from gengpu.model import Taint

    assert tolerates(["not a toleration", toleration], Taint(*taint)) is tolerated
    assert tolerates([], Taint(*taint)) is False


@pytest.mark.parametrize("quantity, count", [
    (2, 2), ("2", 2), ("+2", 2), ("-1", -1), ("1.5", None), ("500m", None), (True, None), (None, None), ("", None)])
def test_a_gpu_quantity_is_whole_only_when_kubernetes_would_count_it_so(quantity, count):
    from gengpu.checking.rules._pods import whole

    assert whole(quantity) == count


@pytest.mark.parametrize("requirements, gpus_only", [
    ([{"key": "karpenter.k8s.aws/instance-gpu-count", "operator": "Exists"}], True),
    ([{"key": "karpenter.k8s.aws/instance-gpu-count", "operator": "In", "values": ["1"]}], True),
    ([{"key": "karpenter.k8s.aws/instance-gpu-count", "operator": "In", "values": ["0"]}], False),
    ([{"key": "karpenter.k8s.aws/instance-gpu-count", "operator": "Gt", "values": ["0"]}], True),
    # NotIn also matches instance types without the label, which CPU instances are
    ([{"key": "karpenter.k8s.aws/instance-gpu-count", "operator": "NotIn", "values": ["0"]}], False),
    ([{"key": "karpenter.azure.com/sku-gpu-name", "operator": "In", "values": ["T4"]}], True),
    ([{"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["g6.xlarge"]}], True),
    ([{"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["g6.xlarge", "m5.large"]}], False),
    ([{"key": "node.kubernetes.io/instance-type", "operator": "NotIn", "values": ["g6.xlarge"]}], False),
    ([{"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": ["g6"]}], True),
    ([{"key": "karpenter.azure.com/sku-name", "operator": "In", "values": ["Standard_NC4as_T4_v3"]}], True),
    ([{"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot"]}, "not a requirement"], False),
    ([], False),
])
def test_a_nodepool_launches_only_gpu_instances_when_its_requirements_say_so(requirements, gpus_only):
    from gengpu.checking.rules._karpenter import launches_gpus

    nodepool = {"spec": {"template": {"spec": {"requirements": requirements}}}}
    assert launches_gpus(nodepool) is gpus_only


def _limits(**resources):
    return {"name": "c", "resources": {"limits": resources}}


@pytest.mark.parametrize("spec, held", [
    # the scheduler's effective request: the sum over regular containers, or the largest init container if more
    ({"containers": [_limits(**{"nvidia.com/gpu": 1}), _limits(**{"nvidia.com/gpu": "1"})]}, {"nvidia.com/gpu": 2}),
    ({"initContainers": [_limits(**{"nvidia.com/gpu": 3})],
      "containers": [_limits(**{"nvidia.com/gpu": 1}), _limits(**{"nvidia.com/gpu": 1})]}, {"nvidia.com/gpu": 3}),
    ({"initContainers": [_limits(**{"nvidia.com/gpu": 1}), _limits(**{"nvidia.com/gpu": 2})],
      "containers": [_limits(**{"nvidia.com/gpu": 1})]}, {"nvidia.com/gpu": 2}),
    ({"containers": [_limits(**{"nvidia.com/gpu": "500m", "nvidia.com/mig-1g.10gb": 2, "amd.com/gpu": 1})]},
     {"nvidia.com/mig-1g.10gb": 2}),
    ({"initContainers": [_limits(**{"nvidia.com/mig-1g.10gb": 1})], "containers": [_limits(**{"nvidia.com/gpu": 1})]},
     {"nvidia.com/gpu": 1, "nvidia.com/mig-1g.10gb": 1}),
    ({"containers": [{"name": "c"}]}, {}),
])
def test_one_pod_holds_what_the_scheduler_counts(spec, held):
    from gengpu.checking.rules._placed import pod_requests

    assert pod_requests(spec) == held
    assert list(pod_requests(spec)) == sorted(held)


def _regions(cloud, key):
    return catalog.data_file("regions.yaml")[cloud]["types"][key]


@pytest.mark.parametrize("cloud, name, accelerator, key", [
    ("eks", "p5.48xlarge", None, "p5.48xlarge"),  # the type itself, where the table lists it
    ("eks", "p4d.24xlarge", None, "p4d"),  # else its family
    ("gke", "a2-highgpu-1g", None, "a2-highgpu"),  # a machine type by its series
    ("gke", "n1-standard-8", "nvidia-tesla-t4", "nvidia-tesla-t4"),  # an N1 machine by its attached accelerator
    ("gke", "n1-standard-8", None, None),  # an N1 machine without one: unknown
    ("eks", "x9.large", None, None),  # a type the table does not know: unknown, never "not offered"
    ("aks", "Standard_NC4as_T4_v3", None, "Standard_NC4as_T4_v3"),
])
def test_where_an_instance_type_is_offered_comes_from_the_region_table(cloud, name, accelerator, key):
    from gengpu.checking.rules.instance_type_not_in_region import _offered

    offered = _offered(catalog.data_file("regions.yaml")[cloud], name, accelerator)
    assert offered == (_regions(cloud, key) if key else None)


@pytest.mark.parametrize("platform, region, geography", [
    ("eks", "eu-west-2", "eu"), ("eks", "us-east-1", "us"), ("gke", "northamerica-northeast1", "northamerica"),
    ("eks", "EU", None), ("aks", "northeurope", "Europe"), ("aks", "uksouth", "United Kingdom"), ("aks", "mars", None),
])
def test_a_region_belongs_to_its_geography(platform, region, geography):
    from gengpu.checking.rules.instance_type_not_in_region import _geography

    assert _geography(platform, region) == geography


def test_the_nearest_regions_are_the_own_geography_then_its_neighbours_then_the_rest():
    from gengpu.checking.rules.instance_type_not_in_region import nearest

    # eks: eu's neighbours are il and me (gengpu/data/geographies.yaml); us comes after them, alphabetically
    offered = ["us-east-1", "me-south-1", "eu-west-1", "ap-south-1", "il-central-1", "eu-central-1"]
    assert nearest("eks", "eu-north-1", offered) == ["eu-central-1", "eu-west-1", "il-central-1", "me-south-1"]
    assert nearest("eks", "eu-north-1", offered, limit=6)[4:] == ["ap-south-1", "us-east-1"]


@pytest.mark.parametrize("karpenter, kubernetes, sharing, said", [
    # Karpenter v1.15 with settings.enableDRA on Kubernetes 1.34: whole GPUs through DRA are provisioned
    ("    karpenter: {version: v1.15.2, dra: true}\n", "1.34", None, None),
    # ... and gengpu's DRA time-slicing, whose claim takes a whole GPU (the docs' 1.36 is for consumable-capacity
    # shares, which gengpu does not write)
    ("    karpenter: {version: v1.15.2, dra: true}\n", "1.34", "time-slicing", None),
    ("    karpenter: {version: v1.15.2, dra: true}\n", "1.36", "time-slicing", None),
    ("    karpenter: {version: v1.14.1, dra: true}\n", "1.34", None,
     "Karpenter v1.14.1 does not provision for pods with ResourceClaims (the AWS provider does from v1.15.0, behind "
     "settings.enableDRA)"),
    ("    karpenter: {dra: true}\n", "1.34", None, "spec.eks.karpenter says DRA is on but not the version: Karpenter "
     "provisions for DRA pools from v1.15.0; give spec.eks.karpenter.version"),
    # DRA not turned on: the table's reason
    ("    karpenter: {version: v1.15.2}\n", "1.34", None, "Karpenter skips pods with ResourceClaims unless DRA is turned on"),
])
def test_karpenter_provisions_for_dra_pools_from_v1_15_with_dra_on(run, tmp_path, karpenter, kubernetes, sharing,
                                                                      said):
    case = examples("dra-provisioner-unsupported")["fails"].files["case.yaml"]
    case = case.replace('kubernetesVersion: "1.34"', f'kubernetesVersion: "{kubernetes}"')
    case = case.replace("  nodePools:\n", "  eks:\n" + karpenter + "  nodePools:\n", 1)
    if sharing is None:
        whole = case.replace("      sharing:\n        mode: time-slicing\n        replicas: 4\n"
                             "        failRequestsGreaterThanOne: true\n", "")
        assert whole != case
        case = whole
    found = messages(run, tmp_path, case).get("dra-provisioner-unsupported")
    if said is None:
        assert found is None
    else:
        assert found[0].startswith("nodePools[0] uses DRA with provisioner karpenter: " + said)
