"""operator.model: gpucluster, GPU Operator v26.7.0's GPUCluster: the chart's values as NVIDIA's DRA install steps
give them (clusterPolicy.deployCR false, gpuCluster.deployCR true, the driver through the default NVIDIADriver or
off), no ClusterPolicy ConfigMaps and no second DRA driver release; through the real kustomize and kubeconform.

Upstream: NVIDIA/gpu-operator v26.7.0 (10ee5b36) deployments/gpu-operator/values.yaml, templates/gpucluster.yaml,
templates/validations.yaml; NVIDIA/cloud-native-docs gpu-operator/dra-intro-install.rst (lines 249-281)."""

import yaml

FIXTURE_PROFILE = "onprem-gpucluster.yaml"  # the profile_repo fixture's


def test_the_operator_makes_a_gpucluster_and_nothing_installs_a_second_dra_driver(run, profile_repo):
    assert run("build", cwd=profile_repo).exit_code == 0
    overlay = profile_repo / "overlays" / "onprem-gpucluster"
    # no device-plugin or MIG ConfigMap (nothing reads them) and no DRA driver values (no release of its own)
    assert sorted(p.name for p in overlay.iterdir() if p.is_file()) == [
        "gengpu-check-rbac.yaml", "gengpu-cluster.yaml", "gpu-operator-values.yaml", "kustomization.yaml",
        "label-nodes-h100-claims.sh", "label-nodes-l40s-shared.sh", "monitoring.yaml", "namespace.yaml"]
    values = yaml.safe_load((overlay / "gpu-operator-values.yaml").read_text())
    # dra-intro-install.rst, operator-managed driver: --set clusterPolicy.deployCR=false --set gpuCluster.deployCR=true
    # --set driver.nvidiaDriverCRD.enabled=true
    assert values["clusterPolicy"] == {"deployCR": False}
    assert values["gpuCluster"] == {"deployCR": True}
    assert values["driver"]["enabled"] is True and values["driver"]["nvidiaDriverCRD"] == {
        "enabled": True, "deployDefaultCR": True}
    # the time-slicing pool's claims need the driver's gate; GPUs only, as the separate chart gengpu writes has it
    assert values["draDriver"] == {"featureGates": {"TimeSlicingSettings": True}, "computeDomains": {"enabled": False}}
    # ClusterPolicy-only settings are not written
    assert not {"devicePlugin", "mig", "migManager", "toolkit"} & set(values)
    # the GPUCluster's exporter is DaemonSet and Service nvidia-dcgm-exporter-dra (manifests/state-dcgm-exporter)
    monitor = next(d for d in yaml.safe_load_all((overlay / "monitoring.yaml").read_text())
                   if d["kind"] == "ServiceMonitor")
    assert monitor["spec"]["selector"] == {"matchLabels": {"app": "nvidia-dcgm-exporter-dra"}}
    cluster = yaml.safe_load((overlay / "gengpu-cluster.yaml").read_text())["cluster"]
    assert cluster["draDriverVersion"] == "" and "draDriverChart" not in cluster
    result = run("validate", "--engine", "kubeconform", cwd=profile_repo)
    assert result.exit_code == 0, result.output
    # the node labels are what something reads: no device-plugin or MIG config label and no device plugin deploy
    # label (the GPUCluster deletes those from its DRA nodes)
    script = (overlay / "label-nodes-l40s-shared.sh").read_text().splitlines()
    assert [line for line in script if line.startswith("kubectl label")] == [
        "kubectl label nodes --overwrite -l rack=r12 gengpu.dev/pool=l40s-shared nvidia.com/dra-kubelet-plugin=true"]


def test_a_preinstalled_driver_is_left_alone_and_flux_installs_only_the_operator(run, profile_repo):
    profile = profile_repo / "profiles" / FIXTURE_PROFILE
    profile.write_text(profile.read_text().replace("    model: gpucluster\n", "    model: gpucluster\n"
                                                   "    driver: preinstalled\n    toolkit: preinstalled\n")
                       .replace("  argocd:\n    repoURL: https://github.com/example/gitops.git\n",
                                "  gitops: flux\n"))
    result = run("build", cwd=profile_repo)
    assert result.exit_code == 0, result.output
    overlay = profile_repo / "overlays" / "onprem-gpucluster"
    values = yaml.safe_load((overlay / "gpu-operator-values.yaml").read_text())
    # dra-intro-install.rst, pre-installed host driver: --set driver.enabled=false
    assert values["driver"] == {"enabled": False}
    docs = [d for p in (overlay / "flux").rglob("*.yaml") for d in yaml.safe_load_all(p.read_text())
            if isinstance(d, dict) and d.get("kind") == "HelmRelease"]
    assert [d["spec"]["chart"]["spec"]["chart"] for d in docs] == ["gpu-operator"]
    result = run("validate", "--engine", "kubeconform", cwd=profile_repo)
    assert result.exit_code == 0, result.output


def test_mig_pools_have_no_mig_manager_under_a_gpucluster(run, profile_repo):
    profile = profile_repo / "profiles" / FIXTURE_PROFILE
    profile.write_text(profile.read_text().replace(
        "      nodeSelector:\n        node-role.kubernetes.io/gpu: \"\"\n",
        "      nodeSelector:\n        node-role.kubernetes.io/gpu: \"\"\n      sharing:\n        mode: mig\n"
        "        mig:\n          strategy: mixed\n          layout: {3g.40gb: 2}\n"))
    result = run("validate", "profiles", cwd=profile_repo)
    assert result.exit_code == 1
    assert "dra-mig-without-mig-manager nodePools[0] hands out MIG devices through NVIDIA's DRA driver, but a " \
        "GPUCluster runs no MIG manager to create them" in result.output
