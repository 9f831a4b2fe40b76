"""spec.gitops: flux: each cluster's Flux objects in its overlay's flux/ folder (Kustomizations ordered as Argo CD's
sync waves order the Application, HelmReleases of NVIDIA's charts with the values files' values), checked with the
real kustomize and kubeconform -strict against the Flux v2.9 CRDs gengpu ships; Argo CD objects only for the
clusters Argo CD syncs."""

import json
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures" / "profiles"
BIN = REPO / "bin"


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    """A repository with two Flux clusters and one Argo CD cluster, built."""
    from click.testing import CliRunner

    from gengpu.cli import main

    root = tmp_path_factory.mktemp("flux")
    (root / "profiles").mkdir()
    for name in ("eks-l4-flux", "gke-dra-flux"):
        shutil.copy(FIXTURES / f"{name}.yaml", root / "profiles")
    shutil.copy(REPO / "profiles" / "eks-h100-mig.yaml", root / "profiles")
    import os

    old = os.getcwd()
    os.chdir(root)
    try:
        result = CliRunner().invoke(main, ["build"], catch_exceptions=False)
        assert result.exit_code == 0, result.output
        checked = CliRunner().invoke(main, ["validate"], catch_exceptions=False)
        assert checked.exit_code == 0, checked.output
    finally:
        os.chdir(old)
    return root


def _docs(path: Path) -> list[dict]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


def test_argo_cd_objects_only_for_the_clusters_argo_cd_syncs(mixed):
    apps = _docs(mixed / "argocd" / "applications" / "kustomization.yaml")[0]
    assert apps["resources"] == ["eks-h100-mig.yaml"]
    assert sorted(p.name for p in (mixed / "argocd" / "applications").glob("*.yaml")) == [
        "eks-h100-mig.yaml", "kustomization.yaml"]
    # the fleet ApplicationSet finds clusters by their gengpu-cluster.yaml: Flux clusters have none
    assert (mixed / "overlays" / "eks-h100-mig" / "gengpu-cluster.yaml").exists()
    assert not (mixed / "overlays" / "eks-l4-flux" / "gengpu-cluster.yaml").exists()


def test_kustomizations_follow_the_sync_waves_and_releases_carry_the_values(mixed):
    flux = mixed / "overlays" / "gke-dra-flux" / "flux"
    assert _docs(flux / "kustomization.yaml")[0]["resources"] == ["sources.yaml", "kustomizations.yaml"]
    kustomizations = {k["metadata"]["name"]: k["spec"] for k in _docs(flux / "kustomizations.yaml")}
    assert kustomizations["gpu-gke-dra-flux"]["path"] == "./overlays/gke-dra-flux"
    assert "dependsOn" not in kustomizations["gpu-gke-dra-flux"]
    # the overlay's wave -1 (namespace, sharing and MIG ConfigMaps) before the charts (wave 0)
    assert kustomizations["gpu-gke-dra-flux-operator"]["dependsOn"] == [{"name": "gpu-gke-dra-flux"}]
    assert kustomizations["gpu-gke-dra-flux-operator"]["wait"] is True
    assert kustomizations["gpu-gke-dra-flux-driver-installer"]["path"] == "./nvidia-driver-installer/cos"
    releases = {r["metadata"]["name"]: r["spec"] for p in sorted((flux / "operator").glob("*.yaml"))
                for r in _docs(p) if r["kind"] == "HelmRelease"}
    overlay = mixed / "overlays" / "gke-dra-flux"
    assert releases["gpu-operator"]["values"] == _docs(overlay / "gpu-operator-values.yaml")[0]
    assert releases["nvidia-dra-driver-gpu"]["values"] == _docs(overlay / "dra-driver-values.yaml")[0]
    assert releases["nvidia-dra-driver-gpu"]["dependsOn"] == [{"name": "gpu-operator"}]
    assert (releases["gpu-operator"]["chart"]["spec"]["version"], releases["nvidia-dra-driver-gpu"]["chart"]["spec"][
        "version"]) == ("v26.7.0", "25.12.0")
    assert releases["gpu-operator"]["targetNamespace"] == "gpu-operator"


def _kubeconform(stream: str) -> list[tuple[str, str]]:
    from gengpu.rendering import k8s_schemas
    from gengpu.schemas_dir import schemas_path

    local = k8s_schemas.schema_dir("1.33")
    proc = subprocess.run([
        str(BIN / "kubeconform"), "-kubernetes-version", "1.33.0", "-strict", "-summary", "-output", "json",
        "-verbose", "-schema-location", str(local.parent / "{{ .NormalizedKubernetesVersion }}-local"
                                            "{{ .StrictSuffix }}" / "{{ .ResourceKind }}{{ .KindSuffix }}.json"),
        "-schema-location", str(schemas_path() / "crds" / "{{ .ResourceKind }}{{ .KindSuffix }}.json"), "-"],
        input=stream, capture_output=True, text=True)
    return [(r["kind"], r["status"]) for r in json.loads(proc.stdout)["resources"]]


@pytest.mark.parametrize("cluster", ["eks-l4-flux", "gke-dra-flux"])
def test_every_flux_object_passes_kubeconform_strict_against_the_flux_crds(mixed, cluster):
    seen = []
    for folder in ("flux", "flux/operator"):
        stream = subprocess.run([str(BIN / "kustomize"), "build", str(mixed / "overlays" / cluster / folder)],
                                capture_output=True, text=True, check=True).stdout
        seen += _kubeconform(stream)
    kinds = sorted({kind for kind, _ in seen})
    expected = ["HelmRelease", "HelmRepository", "Kustomization"] + (["GitRepository"] if cluster == "gke-dra-flux"
                                                                      else [])
    assert kinds == sorted(expected)
    assert {status for _, status in seen} == {"statusValid"}


def test_the_installer_source_keeps_exactly_the_manifest_argo_cd_includes(mixed, tmp_path):
    """Flux's `ignore` is .gitignore: read here by git itself, over a tree shaped like Google's repository."""
    source = next(d for d in _docs(mixed / "overlays" / "gke-dra-flux" / "flux" / "sources.yaml")
                  if d["kind"] == "GitRepository")
    (tmp_path / ".gitignore").write_text(source["spec"]["ignore"])
    files = ["README.md", "nvidia-driver-installer/cos/daemonset.yaml", "nvidia-driver-installer/cos/daemonset-preloaded.yaml",
             "nvidia-driver-installer/ubuntu/daemonset-preloaded.yaml", "cmd/nvidia_gpu/main.go"]
    for rel in files:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x")
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    ignored = subprocess.run(["git", "check-ignore", *files], cwd=tmp_path, capture_output=True, text=True).stdout
    assert sorted(set(files) - set(ignored.split())) == ["nvidia-driver-installer/cos/daemonset-preloaded.yaml"]


def test_argocd_is_required_only_when_argo_cd_syncs(run, tmp_path):
    text = (FIXTURES / "eks-l4-flux.yaml").read_text()
    (tmp_path / "flux.yaml").write_text(text)
    assert run("validate", "flux.yaml", cwd=tmp_path).exit_code == 0
    (tmp_path / "argo.yaml").write_text(text.replace("  gitops: flux\n", ""))
    result = run("validate", "argo.yaml", "--output", "json", cwd=tmp_path)
    assert [(f["rule"], f["message"]) for f in json.loads(result.stdout)["findings"]] == [
        ("profile-schema", "missing required field 'argocd' in 'spec'")]


def test_init_with_flux_scaffolds_a_repository_that_validates(run, tmp_path):
    result = run("init", str(tmp_path / "gpus"), "--platform", "aks", "--gpu", "T4", "--sharing", "time-slicing",
                 "--gitops", "flux")
    assert result.exit_code == 0, result.output
    assert "note: point a Flux Kustomization of the cluster's bootstrap path at ./overlays/gpus/flux" in result.output
    assert not (tmp_path / "gpus" / "argocd").exists()
    assert (tmp_path / "gpus" / "overlays" / "gpus" / "flux" / "operator" / "gpu-operator.yaml").is_file()
    assert yaml.safe_load((tmp_path / "gpus" / "profiles" / "gpus.yaml").read_text())["spec"]["gitops"] == "flux"
    assert run("validate", cwd=tmp_path / "gpus").exit_code == 0
