"""The edges of the late-2026 features (issue 49), each a minimal reproduction of what upstream does: chart versions
written as semver ranges, Karpenter's DRA simulation (whole GPUs only), Kueue without its DRA accounting, node
selector operators as the scheduler evaluates them, component-base's meta feature gates, GKE's gpuSharing field and
its client range."""

import json
import textwrap

import pytest

from gengpu import versions
from gengpu.checking import nodeselect


def _validate(run, tmp_path, text: str, name: str = "case.yaml") -> list[tuple[str, str]]:
    (tmp_path / name).write_text(textwrap.dedent(text))
    result = run("validate", name, "--output", "json", cwd=tmp_path)
    return [(f["rule"], f["message"]) for f in json.loads(result.stdout)["findings"]]


def _rules(found) -> list[str]:
    return sorted(rule for rule, _ in found)


OPERATOR = """\
    apiVersion: helm.toolkit.fluxcd.io/v2
    kind: HelmRelease
    metadata: {name: gpu-operator, namespace: gpu-operator}
    spec:
      interval: 10m
      chart:
        spec:
          chart: gpu-operator
          version: "%s"
          sourceRef: {kind: HelmRepository, name: nvidia}
    ---
    apiVersion: apps/v1
    kind: DaemonSet
    metadata: {name: gpu-agent, namespace: monitoring}
    spec:
      selector: {matchLabels: {app: gpu-agent}}
      template:
        metadata: {labels: {app: gpu-agent}}
        spec:
          nodeSelector:
            nvidia.com/gpu.deploy.client: "true"
          containers:
          - {name: agent, image: example.com/gpu-agent:1.0}
    """


@pytest.mark.parametrize("pin", ["*", ">=v26.7.0", "v26.x", ">=v26.3.0, <v27.0.0", "^26.7"])
def test_a_chart_range_is_the_newest_release_it_admits(run, tmp_path, pin):
    """Flux's chart.spec.version is a semver constraint (default *): a range that admits v26.7.0 installs it, and the
    DaemonSet NVIDIA documents for GPU clients runs."""
    assert "gpu-client-label-unset" not in _rules(_validate(run, tmp_path, OPERATOR % pin))


def test_a_range_that_admits_only_older_releases_says_which_it_took(run, tmp_path):
    found = dict(_validate(run, tmp_path, OPERATOR % "~25.10"))
    assert found["gpu-client-label-unset"] == (
        "DaemonSet gpu-agent selects nvidia.com/gpu.deploy.client, but gpu-operator v25.10.0 (HelmRelease gpu-operator, "
        "~25.10 (taken as v25.10.0, the newest gpu-operator release gengpu knows that it admits)) never sets it: the "
        "label is new in v26.7.0; its pods run on no node")


def test_versions_are_never_the_digits_of_a_range():
    assert versions.release("v26.7.0", "gpu-operator") == versions.Release("v26.7.0")
    assert versions.release(">=v27.0.0", "gpu-operator").version is None
    assert versions.release("not a version", "gpu-operator").version is None
    assert versions.release("v25.x", "gpu-operator").version == "v25.10.0"


def test_node_affinity_not_in_the_paused_values_runs_on_every_gpu_node(run, tmp_path):
    """nodeSelector "true" plus NotIn [paused-for-driver-upgrade, paused-for-mig-change]: the scheduler places the pod
    on every node whose label is "true"."""
    text = (OPERATOR % "v26.7.0").replace('''          containers:''', '''          affinity:
            nodeAffinity:
              requiredDuringSchedulingIgnoredDuringExecution:
                nodeSelectorTerms:
                - matchExpressions:
                  - key: nvidia.com/gpu.deploy.client
                    operator: NotIn
                    values: [paused-for-driver-upgrade, paused-for-mig-change]
          containers:''')
    assert "gpu-client-label-unset" not in _rules(_validate(run, tmp_path, text))


@pytest.mark.parametrize("operator,values,have,holds", [
    ("In", ["true"], {"true"}, True), ("In", ["false"], {"true"}, False),
    ("NotIn", ["paused-for-driver-upgrade"], {"true"}, True), ("NotIn", ["true"], {"true"}, False),
    ("NotIn", ["true"], set(), True), ("Exists", [], {"true"}, True), ("Exists", [], set(), False),
    ("DoesNotExist", [], set(), True), ("DoesNotExist", [], {"true"}, False),
    ("Gt", ["4"], {"8"}, True), ("Gt", ["8"], {"8"}, False), ("Lt", ["8"], {"4"}, True), ("Gt", ["x"], {"8"}, False),
    ("Gt", ["4"], {"true"}, False), ("Bogus", ["true"], {"true"}, False)])
def test_node_selector_requirements_as_the_scheduler_evaluates_them(operator, values, have, holds):
    assert nodeselect.matches(operator, values, have) is holds


EKS = """\
    apiVersion: gengpu.dev/v1alpha1
    kind: GPUProfile
    metadata: {name: rules}
    spec:
      platform: eks
      region: us-east-1
      kubernetesVersion: "1.34"
      eks:
        karpenter: {version: v1.15.2, dra: true}
      operator: {version: v26.7.0}
      nodePools:
        - name: pool
          gpu: %s
          gpusPerNode: 8
          instanceTypes: [%s]
          provisioner: karpenter
          allocation: dra
          limits: {gpus: 16}
          sharing:
            %s
      quotas: {L-417A185B: 1000}
      argocd: {repoURL: https://github.com/example/gitops.git}
    """


def test_karpenter_simulates_whole_gpus_so_dra_mig_never_launches_a_node(run, tmp_path):
    found = dict(_validate(run, tmp_path, EKS % ("A100-40GB", "p4d.24xlarge",
                                                 "mode: mig\n            mig: {strategy: mixed, preset: all-1g.5gb}")))
    assert "one device per physical GPU" in found["dra-provisioner-unsupported"]


def test_karpenter_provisions_dra_time_slicing_from_kubernetes_1_34(run, tmp_path):
    """gengpu's DRA time-slicing claim takes a whole GPU with the sharing in its config: Karpenter's simulation
    matches it on 1.34; the 1.36 of the docs is for consumable-capacity shares."""
    found = _validate(run, tmp_path, EKS % ("A100-40GB", "p4d.24xlarge",
                                            "mode: time-slicing\n            replicas: 4\n"
                                            "            failRequestsGreaterThanOne: true"))
    assert "dra-provisioner-unsupported" not in _rules(found)


KUEUE = """\
    apiVersion: resource.k8s.io/v1
    kind: ResourceClaimTemplate
    metadata: {name: one-gpu, namespace: ml}
    spec:
      spec:
        devices:
          requests:
          - name: gpu
            exactly: {deviceClassName: gpu.nvidia.com}
    ---
    apiVersion: batch/v1
    kind: Job
    metadata:
      name: train
      namespace: ml
      labels: {kueue.x-k8s.io/queue-name: team-a}
    spec:
      template:
        spec:
          restartPolicy: Never
          resourceClaims:
          - {name: gpu, resourceClaimTemplateName: one-gpu}
          containers:
          - name: train
            image: nvcr.io/nvidia/pytorch:25.01-py3
            resources: {claims: [{name: gpu}]}
    ---
    """


@pytest.mark.parametrize("kueue,refused", [
    ("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nresources: {}\n", True),
    ("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nfeatureGates: {KueueDRAIntegration: false}\n"
     "resources: {}\n", False),
    ("apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: kueue}\nspec:\n  interval: 10m\n"
     "  chart:\n    spec:\n      chart: kueue\n      sourceRef: {kind: HelmRepository, name: kueue}\n      version: v0.19.2\n  values:\n    controllerManager:\n      featureGates:\n"
     "      - {name: KueueDRAIntegration, enabled: false}\n    managerConfig:\n      controllerManagerConfigYaml: |\n"
     "        apiVersion: config.kueue.x-k8s.io/v1beta2\n        kind: Configuration\n", False),
    ("apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: kueue}\nspec:\n  interval: 10m\n"
     "  chart:\n    spec:\n      chart: kueue\n      sourceRef: {kind: HelmRepository, name: kueue}\n      version: v0.17.1\n  values:\n    managerConfig:\n      controllerManagerConfigYaml: |\n"
     "        apiVersion: config.kueue.x-k8s.io/v1beta2\n        kind: Configuration\n", False)])
def test_kueue_refuses_unmapped_claims_only_where_it_accounts_dra(run, tmp_path, kueue, refused):
    """KueueDRAIntegration (on by default from v0.18) off, or a Kueue before it: claims are not charged, nothing is
    refused."""
    text = textwrap.dedent(KUEUE) + kueue
    (tmp_path / "case.yaml").write_text(text)
    result = run("validate", "case.yaml", "--output", "json", cwd=tmp_path)
    rules = [f["rule"] for f in json.loads(result.stdout)["findings"]]
    assert ("kueue-dra-claim-inadmissible" in rules) is refused


def test_a_kueue_configuration_in_a_helmreleases_values_is_read(run, tmp_path):
    """The kueue chart's managerConfig.controllerManagerConfigYaml in a HelmRelease is Kueue's Configuration: a class
    it does not map is refused, one it maps is not."""
    release = ("apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: kueue}\nspec:\n"
               "  interval: 10m\n  chart:\n    spec:\n      chart: kueue\n      version: v0.19.2\n"
               "      sourceRef: {kind: HelmRepository, name: kueue}\n  values:\n    managerConfig:\n"
               "      controllerManagerConfigYaml: |\n        apiVersion: config.kueue.x-k8s.io/v1beta2\n"
               "        kind: Configuration\n        resources:\n          deviceClassMappings:\n"
               "          - name: nvidia.com/gpu\n            deviceClassNames: [%s]\n")
    for mapped, refused in (("mig.nvidia.com", True), ("gpu.nvidia.com", False)):
        (tmp_path / "case.yaml").write_text(textwrap.dedent(KUEUE) + release % mapped)
        result = run("validate", "case.yaml", "--output", "json", cwd=tmp_path)
        assert ("kueue-dra-claim-inadmissible" in [f["rule"] for f in json.loads(result.stdout)["findings"]]) is refused


DRA_VALUES = """\
    apiVersion: helm.toolkit.fluxcd.io/v2
    kind: HelmRelease
    metadata: {name: dra, namespace: dra-driver-nvidia-gpu}
    spec:
      interval: 10m
      chart:
        spec:
          chart: dra-driver-nvidia-gpu
          version: 0.5.0
          sourceRef: {kind: HelmRepository, name: dra}
      values:
        gpuResourcesEnabledOverride: true
        featureGates:
          %s
    ---
    apiVersion: resource.k8s.io/v1
    kind: ResourceClaimTemplate
    metadata: {name: shared, namespace: ml}
    spec:
      spec:
        devices:
          requests:
          - name: gpu
            exactly: {deviceClassName: gpu.nvidia.com}
          config:
          - requests: [gpu]
            opaque:
              driver: gpu.nvidia.com
              parameters:
                apiVersion: resource.nvidia.com/v1beta1
                kind: GpuConfig
                sharing:
                  strategy: TimeSlicing
    """


def test_the_meta_feature_gates_every_gate_set_knows(run, tmp_path):
    """AllAlpha and AllBeta are known to every component-base feature gate set. AllAlpha=true turns every alpha gate
    on: TimeSlicingSettings, and also the pairs the driver refuses together unless some are set off again."""
    found = _validate(run, tmp_path, DRA_VALUES % "AllAlpha: true\n          DynamicMIG: false\n"
                      "          PassthroughSupport: false\n          DeviceMetadata: false")
    assert _rules(found) == []
    every = [m for rule, m in _validate(run, tmp_path, DRA_VALUES % "AllAlpha: true") if rule == "dra-feature-gates-refused"]
    assert "feature gate DynamicMIG is mutually exclusive with PassthroughSupport, so the driver's components exit at " \
        "start" in " ".join(every)
    off = _rules(_validate(run, tmp_path, DRA_VALUES % "AllBeta: true"))
    assert off == ["dra-sharing-feature-gate"]


GKE = """\
    apiVersion: gengpu.dev/v1alpha1
    kind: GPUProfile
    metadata: {name: rules}
    spec:
      platform: gke
      region: us-central1
      zones: [us-central1-a]
      kubernetesVersion: "%s"
      operator: {enabled: false}
      nodePools:
        - name: l4
          gpu: L4
          gpusPerNode: 1
          instanceTypes: [g2-standard-4]
          provisioner: %s
          limits: {gpus: 8}
          sharing: {mode: mps, replicas: %d}
      argocd: {repoURL: https://github.com/example/gitops.git}
    """


def test_gke_standard_shares_a_gpu_between_48_clients_at_most(run, tmp_path):
    assert "gke-shared-clients-over-limit" in _rules(_validate(run, tmp_path, GKE % ("1.35", "managed", 64)))
    assert "gke-shared-clients-over-limit" not in _rules(_validate(run, tmp_path, GKE % ("1.35", "managed", 48)))


def test_gke_serves_computeclass_gpu_sharing_from_1_35(run, tmp_path):
    assert "gke-computeclass-sharing-too-old" in _rules(
        _validate(run, tmp_path, GKE % ("1.34", "node-auto-provisioning", 4)))
    assert "gke-computeclass-sharing-too-old" not in _rules(
        _validate(run, tmp_path, GKE % ("1.35", "node-auto-provisioning", 4)))


def test_aks_auto_provisioned_nodes_follow_the_kubernetes_version_for_ubuntu():
    """AKS: Ubuntu 22.04 up to Kubernetes 1.34, 24.04 from 1.35 (AKS docs, 'Upgrade the OS version'); the AKSNodeClass's
    imageFamily Ubuntu follows that, a pinned Ubuntu2204 would not."""
    from gengpu.compiling.provisioning import aks_node_auto_provisioning
    from gengpu.model import build_profile

    profile = build_profile({"apiVersion": "gengpu.dev/v1alpha1", "kind": "GPUProfile", "metadata": {"name": "a"},
                             "spec": {"platform": "aks", "region": "eastus", "kubernetesVersion": "1.36",
                                      "nodePools": [{"name": "t4", "gpu": "T4", "gpusPerNode": 1,
                                                     "instanceTypes": ["Standard_NC4as_T4_v3"],
                                                     "provisioner": "node-auto-provisioning", "limits": {"gpus": 4}}],
                                      "argocd": {"repoURL": "https://github.com/example/gitops.git"}}}, "a.yaml")
    nodeclass = next(o for o in aks_node_auto_provisioning(profile, profile.node_pools[0]) if o["kind"] == "AKSNodeClass")
    assert nodeclass["spec"]["imageFamily"] == "Ubuntu"


def test_an_object_whose_name_is_not_a_string_names_no_device_class(run, tmp_path):
    """scripts/fuzz case 7118: an object of a kind gengpu has no schema for, its metadata.name a list, made
    dra-extended-resource-gate-off look the list up among DeviceClass names (exit 3). Names are read as text where
    rules look them up (podspecs.text), so it names nothing; the file is judged as any other."""
    (tmp_path / "w.yaml").write_text(
        "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: []\n---\napiVersion: v1\nkind: Pod\n"
        "metadata:\n  name: p\nspec:\n  containers:\n  - name: c\n    image: x\n"
        "    resources: {limits: {nvidia.com/gpu: 1}}\n")
    result = run("validate", "w.yaml", "--output", "json", cwd=tmp_path)
    assert result.exit_code == 0, result.output
    assert [(f["rule"], f["line"]) for f in json.loads(result.stdout)["findings"]] == [("object-no-schema", 2)]


def test_a_claim_template_whose_name_is_not_a_string_is_its_schema_finding_only(run, tmp_path):
    """scripts/fuzz case 4179: a ResourceClaimTemplate whose metadata.name is a mapping, beside a queued Job, made
    kueue-dra-claim-inadmissible key a dict by a dict (exit 3); the object's schema finding says what is wrong."""
    (tmp_path / "job.yaml").write_text(
        "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata:\n  name: {a: b}\nspec:\n  spec:\n"
        "    devices:\n      requests:\n      - name: gpu\n        exactly: {deviceClassName: gpu.nvidia.com}\n---\n"
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: train\n  labels: {kueue.x-k8s.io/queue-name: q}\n"
        "spec:\n  template:\n    spec:\n      restartPolicy: Never\n      resourceClaims:\n      - name: gpu\n"
        "        resourceClaimTemplateName: {a: b}\n      containers:\n      - name: c\n        image: x\n"
        "        resources: {claims: [{name: gpu}]}\n")
    result = run("validate", "job.yaml", "--output", "json", cwd=tmp_path)
    assert result.exit_code == 1, result.output
    assert {f["rule"] for f in json.loads(result.stdout)["findings"]} == {"object-schema"}



@pytest.mark.parametrize("case,text,found", [
    # scripts/fuzz case 10169: a DeviceClass whose spec is a string (dra-extended-resource-gate-off read it as a
    # mapping, exit 3)
    ("10169", 'apiVersion: resource.k8s.io/v1alpha3\nkind: DeviceClass\nmetadata:\n  name: gpu.nvidia.com\nspec: time-slicing\n', [("api-version-removed", 1), ("object-no-schema", 2)]),
    # scripts/fuzz case 10914: a GpuConfig whose sharing.strategy is a mapping (dra-sharing-feature-gate looked it up
    # among the gates, exit 3); the config's own rule says what is wrong
    ("10914", "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata:\n  name: l4-shared\nspec:\n  spec:\n    devices:\n      requests:\n      - name: gpu\n        exactly:\n          deviceClassName: gpu.nvidia.com\n      config:\n      - requests:\n        - gpu\n        opaque:\n          driver: gpu.nvidia.com\n          parameters:\n            apiVersion: resource.nvidia.com/v1beta1\n            kind: GpuConfig\n            sharing:\n              strategy:\n                '<<': a b\n              timeSlicingConfig:\n                interval: Default\n", [("dra-gpu-config-invalid", 21)]),
])
def test_a_value_of_another_type_where_a_rule_looks_up_a_string_is_its_finding_only(run, tmp_path, case, text, found):
    """Rules look strings up through podspecs.text: a spec or strategy of another type names nothing."""
    (tmp_path / "w.yaml").write_text(text)
    result = run("validate", "w.yaml", "--output", "json", cwd=tmp_path)
    assert result.exit_code == 1, result.output
    assert [(f["rule"], f["line"]) for f in json.loads(result.stdout)["findings"]] == found
