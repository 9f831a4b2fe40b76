"""Each example profile compiles to exactly the overlay a platform engineer expects."""

from pathlib import Path

import pytest
import yaml

from gengpu.headers import HEADER_MARK

OVERLAYS = Path(__file__).resolve().parent.parent / "overlays"


def load(profile, name):
    return yaml.safe_load((OVERLAYS / profile / name).read_text())


def plugin_configs(profile):
    cm = load(profile, "device-plugin-config.yaml")
    assert cm["kind"] == "ConfigMap" and cm["metadata"]["name"] == "gengpu-device-plugin-config"
    return {key: yaml.safe_load(text) for key, text in cm["data"].items()}


def test_aks_time_slicing_walkthrough():
    configs = plugin_configs("aks-t4-timeslicing")
    assert list(configs) == ["default", "t4-shared"]
    assert configs["default"] == {"version": "v1", "flags": {"migStrategy": "none"}}
    assert configs["t4-shared"]["sharing"] == {"timeSlicing": {
        "renameByDefault": False,
        "failRequestsGreaterThanOne": False,
        "resources": [{"name": "nvidia.com/gpu", "replicas": 10}],
    }}
    values = load("aks-t4-timeslicing", "gpu-operator-values.yaml")
    assert values["driver"] == {"enabled": False}
    assert values["toolkit"] == {"enabled": False}
    assert values["operator"] == {"runtimeClass": "nvidia-container-runtime"}
    assert values["devicePlugin"]["config"] == {
        "create": False, "name": "gengpu-device-plugin-config", "default": "default"}
    assert values["daemonsets"]["tolerations"] == [
        {"key": "sku", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}]
    assert "migManager" not in values
    assert not (OVERLAYS / "aks-t4-timeslicing" / "mig-parted-config.yaml").exists()


def test_aks_application_installs_chart_and_overlay_together():
    app = yaml.safe_load((OVERLAYS.parent / "argocd" / "applications" / "aks-t4-timeslicing.yaml").read_text())
    assert app["kind"] == "Application" and app["metadata"]["namespace"] == "argocd"
    chart, overlay, values = app["spec"]["sources"]
    assert chart["repoURL"] == "https://helm.ngc.nvidia.com/nvidia"
    assert chart["chart"] == "gpu-operator" and chart["targetRevision"] == "v26.7.0"
    assert chart["helm"]["valueFiles"] == ["$values/overlays/aks-t4-timeslicing/gpu-operator-values.yaml"]
    assert overlay == {"repoURL": "https://github.com/example/gpu-gitops.git", "targetRevision": "main",
                       "path": "overlays/aks-t4-timeslicing"}
    assert values == {"repoURL": "https://github.com/example/gpu-gitops.git", "targetRevision": "main",
                      "ref": "values"}
    assert app["spec"]["destination"] == {"server": "https://kubernetes.default.svc", "namespace": "gpu-operator"}
    assert "ServerSideApply=true" in app["spec"]["syncPolicy"]["syncOptions"]


def test_autopilot_application_has_no_chart():
    app = yaml.safe_load((OVERLAYS.parent / "argocd" / "applications" / "gke-autopilot-l4.yaml").read_text())
    assert app["spec"]["sources"] == [{"repoURL": "https://github.com/example/gpu-gitops.git",
                                       "targetRevision": "main", "path": "overlays/gke-autopilot-l4"}]


def test_eks_spot_pool_tolerates_its_taint_and_keeps_driver_of_the_ami():
    values = load("eks-spot-ondemand", "gpu-operator-values.yaml")
    assert values["driver"] == {"enabled": False} and values["toolkit"] == {"enabled": False}
    gpu_taint = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
    assert values["daemonsets"]["tolerations"] == [gpu_taint]
    assert gpu_taint in values["node-feature-discovery"]["worker"]["tolerations"]
    assert plugin_configs("eks-spot-ondemand")["gpu"] == {"version": "v1", "flags": {"migStrategy": "none"}}


def test_mig_mixed_pool():
    configs = plugin_configs("eks-h100-mig")
    assert configs["h100-mig"] == {"version": "v1", "flags": {"migStrategy": "mixed"}}
    cm = load("eks-h100-mig", "mig-parted-config.yaml")
    assert list(cm["data"]) == ["config.yaml"]
    mig = yaml.safe_load(cm["data"]["config.yaml"])
    assert mig == {"version": "v1", "mig-configs": {
        "all-disabled": [{"devices": "all", "mig-enabled": False}],
        "h100-mig": [{"devices": "all", "mig-enabled": True,
                      "mig-devices": {"3g.40gb": 1, "2g.20gb": 1, "1g.10gb": 2}}],
    }}
    values = load("eks-h100-mig", "gpu-operator-values.yaml")
    assert values["mig"] == {"strategy": "mixed"}
    assert values["migManager"]["config"] == {
        "create": False, "name": "gengpu-mig-parted-config", "default": "all-disabled"}
    assert {"name": "WITH_REBOOT", "value": "true"} in values["migManager"]["env"]


def test_mps_pool_defaults_to_one_replica_per_request():
    configs = plugin_configs("eks-l4-mps")
    assert configs["l4-mps"]["sharing"] == {"mps": {
        "renameByDefault": False,
        "failRequestsGreaterThanOne": True,
        "resources": [{"name": "nvidia.com/gpu", "replicas": 4}],
    }}
    assert "timeSlicing" not in configs["l4-mps"]["sharing"]
    assert load("eks-l4-mps", "gpu-operator-values.yaml")["dcgmExporter"]["serviceMonitor"]["enabled"] is False


def test_gke_standard_uses_googles_driver_paths():
    values = load("gke-a100-spot", "gpu-operator-values.yaml")
    assert values["driver"] == {"enabled": False}
    assert values["toolkit"]["enabled"] is True
    assert values["toolkit"]["installDir"] == "/home/kubernetes/bin/nvidia"
    assert values["hostPaths"] == {"driverInstallDir": "/home/kubernetes/bin/nvidia"}
    assert values["cdi"] == {"enabled": True}  # cdi.default is no key of the chart since v25.10.0
    quota = load("gke-a100-spot", "resource-quota.yaml")
    assert quota["spec"]["scopeSelector"]["matchExpressions"][0]["values"] == [
        "system-node-critical", "system-cluster-critical"]
    assert {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"} in \
        values["daemonsets"]["tolerations"]


def test_gke_autopilot_has_no_operator():
    files = sorted(p.relative_to(OVERLAYS / "gke-autopilot-l4").as_posix()
                   for p in (OVERLAYS / "gke-autopilot-l4").rglob("*") if p.is_file())
    assert files == ["components/l4/cronjob.yaml", "components/l4/kustomization.yaml", "components/l4/placement.yaml",
                     "components/l4/pod-template.yaml", "gengpu-cluster.yaml", "kustomization.yaml"]
    assert load("gke-autopilot-l4", "kustomization.yaml")["resources"] == []


@pytest.mark.parametrize("path", sorted(p for p in OVERLAYS.rglob("*") if p.is_file()),
                         ids=lambda p: p.relative_to(OVERLAYS).as_posix())
def test_every_generated_file_has_the_header(path):
    text = path.read_text()
    profile = path.relative_to(OVERLAYS).parts[0]
    if path.suffix == ".sh":
        assert text.startswith("#!/usr/bin/env bash\n")
        text = text.partition("\n")[2]
    assert text.startswith(f"{HEADER_MARK}profiles/{profile}.yaml.\n# Do not edit:")


def test_gke_driver_has_one_owner_per_path(repo, run):
    """Auto-provisioned pools get GKE's driver from their ComputeClass, so no installer is synced; a managed pool
    (GKE's driver disabled) gets Google's installer at the pinned commit, which skips nodes with GKE's driver."""
    app = yaml.safe_load((OVERLAYS.parent / "argocd" / "applications" / "gke-a100-spot.yaml").read_text())
    assert [s.get("chart") or s.get("path") or s.get("ref") for s in app["spec"]["sources"]] == [
        "gpu-operator", "overlays/gke-a100-spot", "values"]
    cc = yaml.safe_load((OVERLAYS / "gke-a100-spot" / "computeclass-a100-spot.yaml").read_text())
    assert {p["gpu"]["driverVersion"] for p in cc["spec"]["priorities"]} == {"default"}

    path = repo / "profiles" / "gke-a100-spot.yaml"
    profile = yaml.safe_load(path.read_text())
    profile["spec"]["nodePools"][0]["provisioner"] = "managed"
    profile["spec"]["nodePools"][0]["labels"] = {"gke-no-default-nvidia-gpu-device-plugin": "true"}
    path.write_text(yaml.safe_dump(profile))
    assert run("build", "profiles/gke-a100-spot.yaml").exit_code == 0
    app = yaml.safe_load((repo / "argocd" / "applications" / "gke-a100-spot.yaml").read_text())
    assert app["spec"]["sources"][-1] == {
        "repoURL": "https://github.com/GoogleCloudPlatform/container-engine-accelerators.git",
        "targetRevision": "992db81257553607f1477945f1b3219632991829", "path": "nvidia-driver-installer/cos",
        "directory": {"include": "daemonset-preloaded.yaml"}}
    script = (repo / "overlays" / "gke-a100-spot" / "gke-nodepool-a100-spot.sh").read_text()
    assert "gpu-driver-version=disabled" in script
