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
    assert list(kustomizations) == ["gpu-gke-dra-flux", "gpu-gke-dra-flux-operator", "gpu-gke-dra-flux-addons",
                                    "gpu-gke-dra-flux-driver-installer"]
    # wave -1 (namespace, quota, ConfigMaps), then the charts (wave 0), then other projects' CRs (wave 1)
    assert kustomizations["gpu-gke-dra-flux"]["path"] == "./overlays/gke-dra-flux/flux/configs"
    assert "dependsOn" not in kustomizations["gpu-gke-dra-flux"]
    assert kustomizations["gpu-gke-dra-flux-operator"]["dependsOn"] == [{"name": "gpu-gke-dra-flux"}]
    assert kustomizations["gpu-gke-dra-flux-addons"]["dependsOn"] == [{"name": "gpu-gke-dra-flux-operator"}]
    assert kustomizations["gpu-gke-dra-flux-addons"]["path"] == "./overlays/gke-dra-flux/flux/addons"
    for name in ("gpu-gke-dra-flux", "gpu-gke-dra-flux-operator", "gpu-gke-dra-flux-addons"):
        assert (kustomizations[name]["wait"], kustomizations[name]["retryInterval"]) == (True, "1m"), name
        assert "serviceAccountName" not in kustomizations[name]
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
    assert "driftDetection" not in releases["gpu-operator"]


def _kustomize(folder: Path, *flags: str) -> list[dict]:
    out = subprocess.run([str(BIN / "kustomize"), "build", str(folder), *flags], capture_output=True, text=True,
                         check=True).stdout
    return [d for d in yaml.safe_load_all(out) if d]


def _ids(docs: list[dict]) -> list[tuple]:
    return sorted((d["kind"], d["metadata"].get("namespace", ""), d["metadata"]["name"]) for d in docs)


@pytest.mark.parametrize("cluster", ["eks-l4-flux", "gke-dra-flux"])
def test_the_stages_split_the_overlay_without_losing_or_repeating_an_object(mixed, cluster):
    overlay = mixed / "overlays" / cluster
    whole = _kustomize(overlay)
    anywhere = ("--load-restrictor", "LoadRestrictionsNone")  # as kustomize-controller builds
    configs, addons = _kustomize(overlay / "flux" / "configs", *anywhere), _kustomize(overlay / "flux" / "addons",
                                                                                      *anywhere)
    assert _ids(configs + addons) == _ids(whole)
    assert sorted(map(json.dumps, configs + addons)) == sorted(map(json.dumps, whole))  # byte for byte the same
    # what the chart needs holds no custom resource: one whose CRD is missing would hold it all back
    assert {d["apiVersion"] for d in configs} <= {"v1", "rbac.authorization.k8s.io/v1"}
    # other projects' custom resources: Karpenter's, Prometheus Operator's
    assert {d["apiVersion"].split("/")[0] for d in addons if "/" in d["apiVersion"]} == (
        {"karpenter.sh", "karpenter.k8s.aws"} if cluster == "eks-l4-flux" else {"monitoring.coreos.com"})


def test_flux_options_reach_every_kustomization_and_release(run, tmp_path):
    profile = yaml.safe_load((FIXTURES / "eks-l4-flux.yaml").read_text())
    profile["spec"]["flux"].update({"driftDetection": "warn", "serviceAccountName": "gpu-reconciler",
                                    "retryInterval": "30s",
                                    "dependsOn": [{"name": "karpenter"},
                                                  {"name": "kube-prometheus-stack", "namespace": "monitoring"}]})
    (tmp_path / "profiles").mkdir()
    (tmp_path / "profiles" / "eks-l4-flux.yaml").write_text(yaml.safe_dump(profile))
    assert run("build", cwd=tmp_path).exit_code == 0
    flux = tmp_path / "overlays" / "eks-l4-flux" / "flux"
    kustomizations = {k["metadata"]["name"]: k["spec"] for k in _docs(flux / "kustomizations.yaml")}
    assert {n: (k["serviceAccountName"], k["retryInterval"]) for n, k in kustomizations.items()} == {
        n: ("gpu-reconciler", "30s") for n in ("gpu-eks-l4-flux", "gpu-eks-l4-flux-operator", "gpu-eks-l4-flux-addons")}
    # only the add-ons wait for the user's Kustomizations: the operator needs no Karpenter and no Prometheus
    assert kustomizations["gpu-eks-l4-flux-addons"]["dependsOn"] == [
        {"name": "gpu-eks-l4-flux-operator"}, {"name": "karpenter"},
        {"name": "kube-prometheus-stack", "namespace": "monitoring"}]
    assert kustomizations["gpu-eks-l4-flux-operator"]["dependsOn"] == [{"name": "gpu-eks-l4-flux"}]
    release = _docs(flux / "operator" / "gpu-operator.yaml")[0]["spec"]
    assert (release["driftDetection"], release["serviceAccountName"]) == ({"mode": "warn"}, "gpu-reconciler")
    assert run("validate", cwd=tmp_path).exit_code == 0


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


@pytest.fixture(scope="module")
def bare_cluster(tmp_path_factory):
    """A real API server with Flux's CRDs (the pins of tools/flux/build) and nothing else: no Karpenter, no
    Prometheus Operator, no GPU Operator CRDs."""
    import apiserver

    work = tmp_path_factory.mktemp("flux-apiserver")
    crds = work / "crds"
    subprocess.run([str(REPO / "tools" / "flux" / "build"), "crds", str(crds)], check=True, capture_output=True)
    server = apiserver.start(work / "server")
    client, api = server.client()
    ext = client.ApiextensionsV1Api(api)
    for path in sorted(crds.glob("*.yaml")):
        ext.create_custom_resource_definition(yaml.safe_load(path.read_text()))
    client.CoreV1Api(api).create_namespace({"metadata": {"name": "flux-system"}})
    yield server
    server.stop()


def _flux_diff(server, repo: Path, name: str, path: str, file: Path | None = None) -> subprocess.CompletedProcess:
    """`flux diff kustomization`: kustomize-controller's build, then a server-side apply dry-run of every object
    on the real API server (exit 0 no change, 1 changes, >1 an error); the Kustomization is not applied yet."""
    return subprocess.run(
        [str(BIN / "flux"), "diff", "kustomization", name, "--path", str(repo / path),
         "--kustomization-file", str(file or repo / "overlays" / "gpus" / "flux" / "kustomizations.yaml"),
         "--ignore-not-found", "--kubeconfig", str(server.kubeconfig), "--namespace", "flux-system",
         "--progress-bar=false"], capture_output=True, text=True, timeout=120, cwd=repo)


@pytest.mark.filterwarnings("ignore::urllib3.exceptions.InsecureRequestWarning")
def test_without_karpenter_or_prometheus_operator_crds_the_operator_still_installs(run, tmp_path, bare_cluster):
    """The issue's case: `gengpu init --gitops flux` on EKS (Karpenter NodePool, Prometheus Operator
    ServiceMonitor and PrometheusRule) synced into a cluster that has neither project's CRDs yet."""
    if not (BIN / "flux").exists():
        pytest.skip("bin/flux not built (scripts/install-tools flux)")
    assert run("init", str(tmp_path / "gpus"), "--platform", "eks", "--gpu", "L4", "--gitops", "flux",
               "--monitoring", "service-monitor").exit_code == 0
    repo = tmp_path / "gpus"
    # the one Kustomization the README has the user add to the cluster's bootstrap path
    (repo / "clusters" / "prod").mkdir(parents=True)
    (repo / "clusters" / "prod" / "gpu.yaml").write_text(yaml.safe_dump({
        "apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
        "metadata": {"name": "gpu", "namespace": "flux-system"},
        "spec": {"interval": "10m", "path": "./overlays/gpus/flux", "prune": True,
                 "sourceRef": {"kind": "GitRepository", "name": "flux-system"}}}))
    bootstrap = _flux_diff(bare_cluster, repo, "gpu", "overlays/gpus/flux", repo / "clusters" / "prod" / "gpu.yaml")
    assert bootstrap.returncode == 1, bootstrap.stdout + bootstrap.stderr
    assert sorted(line for line in bootstrap.stdout.splitlines() if line.startswith("►")) == [
        "► HelmRepository/flux-system/nvidia created", "► Kustomization/flux-system/gpu-gpus created",
        "► Kustomization/flux-system/gpu-gpus-addons created", "► Kustomization/flux-system/gpu-gpus-operator created"]
    stages = {k["metadata"]["name"]: k["spec"]["path"]
              for k in _docs(repo / "overlays" / "gpus" / "flux" / "kustomizations.yaml")}
    assert list(stages) == ["gpu-gpus", "gpu-gpus-operator", "gpu-gpus-addons"]
    configs = _flux_diff(bare_cluster, repo, "gpu-gpus", stages["gpu-gpus"])
    assert "► Namespace/gpu-operator created" in configs.stdout, configs.stdout + configs.stderr
    # kustomize-controller applies Namespaces before namespaced objects; a dry-run of both at once cannot: do its
    # first step, then the dry-run of the rest must pass
    client, api = bare_cluster.client()
    client.CoreV1Api(api).create_namespace({"metadata": {"name": "gpu-operator"}})
    configs = _flux_diff(bare_cluster, repo, "gpu-gpus", stages["gpu-gpus"])
    assert configs.returncode == 1, configs.stdout + configs.stderr  # changes to make, and no error
    assert "► ConfigMap/gpu-operator/gengpu-device-plugin-config created" in configs.stdout
    # the layout before this stage split: the operator depended on one Kustomization of the whole overlay, which
    # cannot pass its dry-run without Karpenter's CRDs, so the operator was never installed
    whole = _flux_diff(bare_cluster, repo, "gpu-gpus", "overlays/gpus")
    assert whole.returncode > 1 and "no matches for kind" in whole.stderr, whole.stdout + whole.stderr
    operator = _flux_diff(bare_cluster, repo, "gpu-gpus-operator", stages["gpu-gpus-operator"])
    assert operator.returncode == 1, operator.stdout + operator.stderr
    assert "► HelmRelease/flux-system/gpu-operator created" in operator.stdout
    # only the stage that needs the missing CRDs waits for them (retried every minute)
    addons = _flux_diff(bare_cluster, repo, "gpu-gpus-addons", stages["gpu-gpus-addons"])
    assert addons.returncode > 1
    assert "NodePool" in addons.stderr and "no matches for kind" in addons.stderr, addons.stderr


@pytest.mark.filterwarnings("ignore::urllib3.exceptions.InsecureRequestWarning")
def test_the_flux_cli_builds_each_stage_as_kustomize_controller_would(run, tmp_path):
    if not (BIN / "flux").exists():
        pytest.skip("bin/flux not built (scripts/install-tools flux)")
    assert run("init", str(tmp_path / "gpus"), "--platform", "gke", "--gpu", "L4", "--gitops", "flux").exit_code == 0
    repo = tmp_path / "gpus"
    overlay = repo / "overlays" / "gpus"
    built = []
    for k in _docs(overlay / "flux" / "kustomizations.yaml"):
        if k["spec"]["sourceRef"]["name"] != "flux-system":
            continue  # Google's driver installer comes from its own GitRepository
        out = subprocess.run(
            [str(BIN / "flux"), "build", "kustomization", k["metadata"]["name"], "--path",
             str(repo / k["spec"]["path"]), "--kustomization-file", str(overlay / "flux" / "kustomizations.yaml"),
             "--dry-run"], capture_output=True, text=True, check=True, cwd=repo).stdout
        docs = [d for d in yaml.safe_load_all(out) if d]
        for d in docs:  # Flux marks what each Kustomization owns
            assert d["metadata"]["labels"]["kustomize.toolkit.fluxcd.io/name"] == k["metadata"]["name"]
            for label in ("kustomize.toolkit.fluxcd.io/name", "kustomize.toolkit.fluxcd.io/namespace"):
                del d["metadata"]["labels"][label]
        built += [d for d in docs if d["kind"] != "HelmRelease"]
    assert sorted(map(json.dumps, built)) == sorted(map(json.dumps, _kustomize(overlay)))


def test_the_installer_sources_ignore_keeps_exactly_one_file_as_git_reads_it(tmp_path):
    """flux.only() is a .gitignore that keeps one file of a tree: checked with git's own matcher (Flux's source
    -controller applies the same gitignore rules), over files beside and under each folder on the way."""
    from gengpu.compiling import flux

    keep = "nvidia-driver-installer/cos/daemonset-preloaded.yaml"
    files = [keep, "nvidia-driver-installer/cos/other.yaml", "nvidia-driver-installer/cos/deep/x.yaml",
             "nvidia-driver-installer/ubuntu/daemonset.yaml", "nvidia-driver-installer/readme.md", "top.yaml",
             "cos/daemonset-preloaded.yaml"]
    for f in files:
        (tmp_path / f).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / f).write_text("x\n")
    (tmp_path / ".gitignore").write_text(flux.only(keep))
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    listed = subprocess.run(["git", "ls-files", "--others", "--exclude-standard"], cwd=tmp_path, check=True,
                            capture_output=True, text=True).stdout.split()
    assert sorted(f for f in listed if f != ".gitignore") == [keep]
    assert flux.only("a.yaml") == "/*\n!/a.yaml\n"


def test_flux_objects_say_who_wrote_them_and_a_dra_only_cluster_gets_nvidias_repository():
    from gengpu.compiling import dra, flux
    from gengpu.model import build_profile

    data = yaml.safe_load((FIXTURES / "gke-dra-flux.yaml").read_text())
    data["spec"]["operator"] = {"enabled": False}
    profile = build_profile(data, "gke-dra-flux.yaml")
    (repo,) = [s for s in flux.sources(profile) if s["kind"] == "HelmRepository"]
    assert repo["spec"] == {"url": dra.driver_settings()["repoURL"], "interval": "1h"}
    assert repo["metadata"]["labels"] == {"app.kubernetes.io/managed-by": "gengpu",
                                          "gengpu.dev/cluster": profile.name}
