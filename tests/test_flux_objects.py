"""Every Flux object gengpu writes, field by field, in process (the flux group's survivors, issue 51): what each field
is for is Flux's (fluxcd.io/flux/components: kustomize-controller's Kustomization, helm-controller's HelmRelease,
source-controller's HelmRepository and GitRepository); tests/test_flux.py holds them to the Flux CRDs and the flux
CLI's build.

- A Kustomization: `interval` and `retryInterval` from the profile (a failed one retries sooner than it resyncs),
  `prune` so an object removed from git is removed from the cluster, `wait` so what depends on it waits for what it
  applied to be ready, `timeout` that bounds the wait, `dependsOn` the stage before (Argo CD's sync waves).
- A HelmRelease: helm-controller installs the chart's CRDs and replaces them on upgrade only with `crds:
  CreateReplace` (the operator's ClusterPolicy and NVIDIADriver change between versions); `remediation.retries`
  retries a failed install or upgrade; `releaseName` and `storageNamespace` keep Helm's own release where a chart
  installed by hand keeps it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from gengpu.compiling import dra, flux, operator_app
from gengpu.model import build_profile

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "profiles"
LABELS = {"app.kubernetes.io/managed-by": "gengpu", "gengpu.dev/cluster": "eks-l4-flux"}


def _profile(**flux_options):
    data = yaml.safe_load((FIXTURES / "eks-l4-flux.yaml").read_text())
    data["spec"]["flux"].update(flux_options)
    return build_profile(data, "eks-l4-flux.yaml")


def _kustomization(name: str, stage: str, depends: list[dict], extra: dict | None = None) -> dict:
    spec = {"interval": "5m", "retryInterval": "1m", "path": f"./overlays/eks-l4-flux/flux/{stage}", "prune": True,
            "sourceRef": {"kind": "GitRepository", "name": "flux-system"}, "wait": True, "timeout": "10m",
            **({"dependsOn": depends} if depends else {}), **(extra or {})}
    return {"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
            "metadata": {"name": name, "namespace": "flux-system", "labels": LABELS}, "spec": spec}


def test_every_flux_object_of_a_cluster_field_by_field():
    profile = _profile()
    written = flux.files(profile, {"configs": ["namespace.yaml", "mps.yaml"], "addons": ["nodepool.yaml"]}, True)
    assert list(written) == ["flux/kustomization.yaml", "flux/sources.yaml", "flux/kustomizations.yaml",
                             "flux/configs/kustomization.yaml", "flux/addons/kustomization.yaml",
                             "flux/operator/kustomization.yaml", "flux/operator/gpu-operator.yaml"]
    assert written["flux/kustomization.yaml"] == {"apiVersion": "kustomize.config.k8s.io/v1beta1",
                                                  "kind": "Kustomization",
                                                  "resources": ["sources.yaml", "kustomizations.yaml"]}
    assert written["flux/sources.yaml"] == [
        {"apiVersion": "source.toolkit.fluxcd.io/v1", "kind": "HelmRepository",
         "metadata": {"name": "nvidia", "namespace": "flux-system", "labels": LABELS},
         "spec": {"url": "https://helm.ngc.nvidia.com/nvidia", "interval": "1h"}}]
    assert written["flux/kustomizations.yaml"] == [
        _kustomization("gpu-eks-l4-flux", "configs", []),
        _kustomization("gpu-eks-l4-flux-operator", "operator", [{"name": "gpu-eks-l4-flux"}]),
        _kustomization("gpu-eks-l4-flux-addons", "addons", [{"name": "gpu-eks-l4-flux-operator"}])]
    stage_labels = [{"pairs": {"app.kubernetes.io/managed-by": "gengpu"}, "includeSelectors": False}]
    # the user's local/ Component joins the first stage only
    assert written["flux/configs/kustomization.yaml"] == {
        "apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization", "labels": stage_labels,
        "resources": ["../../namespace.yaml", "../../mps.yaml"], "components": ["../../local"]}
    assert written["flux/addons/kustomization.yaml"] == {
        "apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization", "labels": stage_labels,
        "resources": ["../../nodepool.yaml"]}
    assert written["flux/operator/kustomization.yaml"] == {
        "apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization", "resources": ["gpu-operator.yaml"]}
    assert written["flux/operator/gpu-operator.yaml"] == {
        "apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": "HelmRelease",
        "metadata": {"name": "gpu-operator", "namespace": "flux-system", "labels": LABELS},
        "spec": {"interval": "5m", "releaseName": "gpu-operator", "targetNamespace": "gpu-operator",
                 "storageNamespace": "gpu-operator",
                 "chart": {"spec": {"chart": "gpu-operator", "version": "v26.7.0", "interval": "1h",
                                    "sourceRef": {"kind": "HelmRepository", "name": "nvidia"}}},
                 "install": {"crds": "CreateReplace", "remediation": {"retries": 3}},
                 "upgrade": {"crds": "CreateReplace", "remediation": {"retries": 3}},
                 "values": operator_app.helm_values(profile)}}


def test_flux_options_reach_each_object_as_flux_names_them():
    profile = _profile(driftDetection="enabled", serviceAccountName="gpu-reconciler", retryInterval="30s",
                       namespace="gitops", gitRepository="platform",
                       dependsOn=[{"name": "karpenter"}, {"name": "prometheus", "namespace": "monitoring"}])
    written = flux.files(profile, {"configs": ["a.yaml"], "addons": ["b.yaml"]})
    kustomizations = {k["metadata"]["name"]: k for k in written["flux/kustomizations.yaml"]}
    for k in kustomizations.values():
        assert k["metadata"]["namespace"] == "gitops"
        assert (k["spec"]["retryInterval"], k["spec"]["serviceAccountName"], k["spec"]["sourceRef"]) == (
            "30s", "gpu-reconciler", {"kind": "GitRepository", "name": "platform"})
    assert kustomizations["gpu-eks-l4-flux-addons"]["spec"]["dependsOn"] == [
        {"name": "gpu-eks-l4-flux-operator"}, {"name": "karpenter"}, {"name": "prometheus", "namespace": "monitoring"}]
    release = written["flux/operator/gpu-operator.yaml"]
    assert release["metadata"]["namespace"] == "gitops"
    assert (release["spec"]["driftDetection"], release["spec"]["serviceAccountName"]) == (
        {"mode": "enabled"}, "gpu-reconciler")
    assert "components" not in written["flux/configs/kustomization.yaml"]
    plain = flux.files(_profile(), {"configs": ["a.yaml"]})
    release = plain["flux/operator/gpu-operator.yaml"]["spec"]
    assert "driftDetection" not in release and "serviceAccountName" not in release and "dependsOn" not in release


@pytest.mark.parametrize("stages, folders", [
    ({"configs": ["a.yaml"], "addons": ["b.yaml"]}, {"configs": ["a.yaml"], "addons": ["b.yaml"]}),
    ({"configs": [], "addons": ["b.yaml"]}, {"addons": ["b.yaml"]}),
    ({"addons": []}, {"configs": []}),  # (nothing yet: one stage, for the local/ Component)
    ({}, {"configs": []}),
])
def test_a_stage_with_no_files_gets_no_folder(stages, folders):
    assert flux.stage_folders(stages, False) == folders


def test_addons_alone_wait_for_the_operator_and_a_cluster_without_it_starts_with_its_addons():
    data = yaml.safe_load((FIXTURES / "eks-l4-flux.yaml").read_text())
    data["spec"]["operator"] = {"enabled": False}
    profile = build_profile(data, "eks-l4-flux.yaml")
    written = flux.files(profile, {"addons": ["b.yaml"]})
    assert [(k["metadata"]["name"], k["spec"].get("dependsOn")) for k in written["flux/kustomizations.yaml"]] == [
        ("gpu-eks-l4-flux-addons", None)]
    assert "flux/sources.yaml" not in written and written["flux/kustomization.yaml"]["resources"] == [
        "kustomizations.yaml"]
    assert not any(p.startswith("flux/operator/") for p in written)


def test_the_dra_driver_is_released_after_the_operator_and_gke_gets_its_driver_installer():
    data = yaml.safe_load((FIXTURES / "gke-dra-flux.yaml").read_text())
    profile = build_profile(data, "gke-dra-flux.yaml")
    written = flux.files(profile, {"configs": ["a.yaml"]})
    assert written["flux/operator/kustomization.yaml"]["resources"] == ["gpu-operator.yaml", "dra-driver.yaml"]
    release = written["flux/operator/dra-driver.yaml"]["spec"]
    assert (release["releaseName"], release["chart"]["spec"]["chart"], release["chart"]["spec"]["version"],
            release["dependsOn"], release["values"]) == (
        dra.RELEASE, dra.chart_name(profile), dra.chart_version(profile), [{"name": "gpu-operator"}],
        dra.helm_values(profile))
    installer = [k for k in written["flux/kustomizations.yaml"] if k["metadata"]["name"].endswith("-installer")]
    (source,) = [s for s in written["flux/sources.yaml"] if s["kind"] == "GitRepository"]
    assert installer[0]["spec"]["sourceRef"] == {"kind": "GitRepository", "name": "gke-nvidia-driver-installer"}
    # Google's manifests are applied as they are: nothing to wait for, nothing before them
    assert "wait" not in installer[0]["spec"] and "dependsOn" not in installer[0]["spec"]
    assert source["metadata"]["name"] == "gke-nvidia-driver-installer" and source["spec"]["interval"] == "1h"
    assert set(source["spec"]["ref"]) == {"commit"}
