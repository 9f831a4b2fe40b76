"""What other documents carry: NVIDIA's chart values inside Flux HelmReleases and Argo CD Applications (checked at
the chart version they pin, findings at the wrapper's lines), values a HelmRelease reads from a ConfigMap, PromQL in
dashboards kept as JSON strings, and APIs that are removed or never were (Flux betas, extensions/v1beta1, a Job in
apps/v1)."""

import json

import pytest


def _findings(run, tmp_path, text: str, *args) -> list[str]:
    (tmp_path / "f.yaml").write_text(text)
    result = run("validate", "f.yaml", "--output", "json", *args, cwd=tmp_path)
    assert result.exit_code in (0, 1), result.output
    return [f"{f['line']} {f['rule']}: {f['message']}" for f in json.loads(result.stdout)["findings"]
            if f["rule"] != "object-no-schema"]


APPLICATION = """\
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: gpu-operator
spec:
  project: default
  destination: {server: https://kubernetes.default.svc, namespace: gpu-operator}
  source:
    repoURL: https://helm.ngc.nvidia.com/nvidia
    chart: gpu-operator
    targetRevision: v26.7.0
    helm:
      values: |
        driver:
          enabled: false
        devicePlugins:
          enabled: true
"""


# A Flux HelmRelease of the GPU Operator chart at VERSION; its values follow, indented four spaces.
RELEASE = """\
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: gpu-operator
spec:
  interval: 1h
  chart:
    spec:
      chart: gpu-operator
      version: VERSION
      sourceRef: {kind: HelmRepository, name: nvidia}
  values:
"""


def test_values_in_an_argo_cd_application_are_checked_at_the_wrappers_lines(run, tmp_path):
    assert _findings(run, tmp_path, APPLICATION) == [
        "16 helm-values-unknown-key: Application gpu-operator gpu-operator values: devicePlugins is not a key of the "
        "gpu-operator chart (v24.9.0 to v26.7.0); Helm ignores it - did you mean devicePlugin?"]
    # the same values as an object, and as a HelmRelease's
    as_object = APPLICATION.replace("      values: |\n", "      valuesObject:\n")
    assert _findings(run, tmp_path, as_object)[0].startswith("16 helm-values-unknown-key: ")
    release = RELEASE.replace("VERSION", "v26.7.0") + "    devicePlugins:\n      enabled: true\n"
    assert _findings(run, tmp_path, release) == [
        "13 helm-values-unknown-key: HelmRelease gpu-operator gpu-operator values: devicePlugins is not a key of the "
        "gpu-operator chart (v24.9.0 to v26.7.0); Helm ignores it - did you mean devicePlugin?"]


def test_a_pinned_chart_version_is_the_one_its_keys_are_checked_against(run, tmp_path):
    """A key only newer charts have is ignored by the pinned one (and one only older charts had stays a warning)."""
    from gengpu import charts

    newest, oldest = charts.versions("gpu-operator")[-1], charts.versions("gpu-operator")[0]
    newer_only = sorted(newest.children[()] - oldest.children[()])
    assert newer_only, "the vendored charts gained a top-level key"
    key = newer_only[0]
    text = APPLICATION.replace("v26.7.0", oldest.version).replace("devicePlugins:\n          enabled: true\n",
                                                                   f"{key}: {{}}\n")
    found = _findings(run, tmp_path, text)
    first = next(c.version for c in charts.versions("gpu-operator") if key in c.children[()])
    assert found == [f"16 helm-values-key-removed: Application gpu-operator gpu-operator values: {key} is a key of the "
                     f"gpu-operator chart from {first} on, not of the pinned {oldest.version}; that chart ignores it"]


def test_values_a_helmrelease_reads_from_a_configmap_are_checked(run, tmp_path):
    text = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: gpu-operator-values
data:
  values.yaml: |
    driver:
      enabled: false
    toolkit:
      enabled: true
    migManager:
      enabeld: true
"""
    assert _findings(run, tmp_path, text) == [
        "12 helm-values-unknown-key: ConfigMap gpu-operator-values key values.yaml (gpu-operator values): "
        "migManager.enabeld is not a key of the gpu-operator chart (v24.9.0 to v26.7.0); Helm ignores it - did you "
        "mean enabled?"]


def test_a_dashboard_in_a_one_line_json_string_is_reported_at_that_line(run, tmp_path):
    dashboard = {"title": "GPUs", "panels": [{"targets": [{"expr": "avg(DCGM_FI_DEV_FB_TOTAL)"}]}]}
    text = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: gpu-dashboard\ndata:\n"
            f"  gpus.json: {json.dumps(json.dumps(dashboard, indent=2))}\n")
    assert _findings(run, tmp_path, text) == [
        "6 dcgm-metric-not-exported: ConfigMap gpu-dashboard key gpus.json: DCGM_FI_DEV_FB_TOTAL is not exported by "
        "dcgm-exporter's shipped counter files or any counters file checked with it, so this query finds no series"]


@pytest.mark.parametrize("api, kind, kubernetes, message", [
    ("helm.toolkit.fluxcd.io/v2beta1", "HelmRelease", None,
     "helm.toolkit.fluxcd.io/v2beta1 was removed in Flux 2.7; run `flux migrate` and use helm.toolkit.fluxcd.io/v2"),
    ("helm.toolkit.fluxcd.io/v2beta2", "HelmRelease", None,
     "helm.toolkit.fluxcd.io/v2beta2 was removed in Flux 2.8; run `flux migrate` and use helm.toolkit.fluxcd.io/v2"),
    ("extensions/v1beta1", "DaemonSet", "1.30", "extensions/v1beta1 DaemonSet was removed in Kubernetes 1.16; use "
     "apps/v1 (which also needs spec.selector) (checked for Kubernetes 1.30)"),
    ("apps/v1", "Job", "1.34", "Job is not served in apps/v1; Kubernetes 1.34 serves it as batch/v1"),
    ("batch/v1beta1", "CronJob", "1.34", "batch/v1beta1 CronJob was removed in Kubernetes 1.25; use batch/v1 (checked "
     "for Kubernetes 1.34)"),
])
def test_removed_and_impossible_apis_are_errors(run, tmp_path, api, kind, kubernetes, message):
    text = f"apiVersion: {api}\nkind: {kind}\nmetadata:\n  name: x\nspec: {{}}\n"
    more = ["--kubernetes-version", kubernetes] if kubernetes else []
    found = [f for f in _findings(run, tmp_path, text, *more) if " api-version-removed: " in f]
    assert found == [f"1 api-version-removed: {kind} x: {message}"]


def test_a_kind_in_its_own_group_and_a_crd_group_of_the_same_first_label_are_left_alone(run, tmp_path):
    volcano = "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata:\n  name: x\nspec: {}\n"
    assert not [f for f in _findings(run, tmp_path, volcano) if "api-version-removed" in f]
    job = "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: x\nspec: {template: {spec: {containers: []}}}\n"
    assert not [f for f in _findings(run, tmp_path, job) if "api-version-removed" in f]


def test_a_value_the_pinned_chart_still_reads_is_not_called_ignored(run, tmp_path):
    """operator-value-ignored follows the release a HelmRelease pins: driver.nvidiaDriverCRD.nodeSelector steered the
    default NVIDIADriver up to v26.3.x (templates/nvidiadriver.yaml) and is ignored from v26.7.0 (10ee5b36)."""
    release = RELEASE + """\
    driver:
      nvidiaDriverCRD:
        enabled: true
        nodeSelector: {nvidia.com/gpu.present: "true"}
"""
    assert _findings(run, tmp_path, release.replace("VERSION", "v26.3.0")) == []
    found = _findings(run, tmp_path, release.replace("VERSION", "v26.7.0"))
    assert [f.split(":")[0] for f in found] == ["16 operator-value-ignored"], found
