"""Every platform end to end: provisioning, placement components, metrics, verification, import."""

import dataclasses
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from gengpu import charts
from gengpu.compiling import monitoring

REPO = Path(__file__).resolve().parent.parent
OVERLAYS = REPO / "overlays"


def docs(path):
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


def by_kind(path, kind):
    return [d for d in docs(path) if d["kind"] == kind]


def req(nodepool):
    return {r["key"]: r["values"] for r in nodepool["spec"]["template"]["spec"]["requirements"]}


def test_eks_classic_spot_pool():
    nodepool, = by_kind(OVERLAYS / "eks-spot-ondemand" / "nodepool-gpu.yaml", "NodePool")
    assert req(nodepool) == {
        "karpenter.k8s.aws/instance-family": ["p3", "p4d", "p5", "g4dn", "g5"],
        "karpenter.k8s.aws/instance-gpu-name": ["a100", "a10g", "h100", "t4", "v100"],
        "karpenter.sh/capacity-type": ["spot", "on-demand"],
        "kubernetes.io/arch": ["amd64"],
        "topology.kubernetes.io/zone": ["ap-south-1a", "ap-south-1b"],
    }
    spec = nodepool["spec"]
    assert spec["template"]["spec"]["taints"] == [{"key": "nvidia.com/gpu", "effect": "NoSchedule"}]
    assert spec["template"]["metadata"]["labels"] == {"gengpu.dev/pool": "gpu", "nvidia.com/device-plugin.config": "gpu"}
    assert spec["limits"] == {"cpu": "500"}
    assert spec["disruption"] == {"consolidationPolicy": "WhenEmpty", "consolidateAfter": "30s",
                                  "budgets": [{"nodes": "1", "reasons": ["Drifted", "Underutilized"]}]}
    assert spec["template"]["spec"]["nodeClassRef"] == {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass",
                                                        "name": "gpu"}
    nodeclass, = by_kind(OVERLAYS / "eks-spot-ondemand" / "nodepool-gpu.yaml", "EC2NodeClass")
    assert nodeclass["spec"]["amiSelectorTerms"] == [{"alias": "al2023@v20260917"}]
    assert nodeclass["spec"]["subnetSelectorTerms"] == [{"tags": {"karpenter.sh/discovery": "eks-spot-ondemand"}}]
    assert nodeclass["spec"]["role"] == "KarpenterNodeRole-eks-spot-ondemand"
    # An exclusive pool needs no NodeOverlay: each GPU is one nvidia.com/gpu.
    assert by_kind(OVERLAYS / "eks-spot-ondemand" / "nodepool-gpu.yaml", "NodeOverlay") == []


def test_shared_and_mig_pools_tell_karpenter_their_real_capacity():
    mps, = by_kind(OVERLAYS / "eks-l4-mps" / "nodepool-l4-mps.yaml", "NodeOverlay")
    assert mps["apiVersion"] == "karpenter.sh/v1alpha1"
    assert mps["spec"]["capacity"] == {"nvidia.com/gpu": "4"}
    assert {r["key"]: r["values"] for r in mps["spec"]["requirements"]} == {
        "karpenter.sh/nodepool": ["l4-mps"],  # only this pool's nodes share their GPUs
        "node.kubernetes.io/instance-type": ["g6.xlarge", "g6.2xlarge"],
        "karpenter.k8s.aws/instance-gpu-count": ["1"]}
    mig, = by_kind(OVERLAYS / "eks-h100-mig" / "nodepool-h100-mig.yaml", "NodeOverlay")
    assert mig["spec"]["capacity"] == {"nvidia.com/mig-3g.40gb": "8", "nvidia.com/mig-2g.20gb": "8",
                                       "nvidia.com/mig-1g.10gb": "16"}
    nodepool, = by_kind(OVERLAYS / "eks-h100-mig" / "nodepool-h100-mig.yaml", "NodePool")
    assert nodepool["spec"]["template"]["metadata"]["labels"]["nvidia.com/mig.config"] == "h100-mig"


def test_aks_managed_pool_script():
    script = (OVERLAYS / "aks-t4-timeslicing" / "aks-nodepool-t4-shared.sh").read_text()
    assert os.access(OVERLAYS / "aks-t4-timeslicing" / "aks-nodepool-t4-shared.sh", os.X_OK)
    assert script.splitlines()[script.splitlines().index("set -euo pipefail"):] == [
        "set -euo pipefail",
        "az aks nodepool add \\",
        "  --resource-group aks-t4-timeslicing-rg \\",
        "  --cluster-name aks-t4-timeslicing \\",
        "  --name t4shared \\",
        "  --node-vm-size Standard_NC4as_T4_v3 \\",
        "  --node-count 1 \\",
        "  --enable-cluster-autoscaler \\",
        "  --min-count 0 \\",
        "  --max-count 3 \\",
        "  --labels gengpu.dev/pool=t4-shared nvidia.com/device-plugin.config=t4-shared \\",
        "  --node-taints sku=gpu:NoSchedule \\",
        "  --os-sku Ubuntu",
    ]
    # The script is beside the overlay, not in it.
    assert "aks-nodepool-t4-shared.sh" not in (OVERLAYS / "aks-t4-timeslicing" / "kustomization.yaml").read_text()
    proc = subprocess.run(["bash", "-n", str(OVERLAYS / "aks-t4-timeslicing" / "aks-nodepool-t4-shared.sh")])
    assert proc.returncode == 0


def test_gke_auto_provisioning_file_and_compute_class():
    nap = yaml.safe_load((OVERLAYS / "gke-a100-spot" / "gke-autoprovisioning.yaml").read_text())
    assert nap == {
        "resourceLimits": [
            {"resourceType": "cpu", "minimum": 0, "maximum": 1000},
            {"resourceType": "memory", "minimum": 0, "maximum": 10000},
            {"resourceType": "nvidia-tesla-t4", "minimum": 0, "maximum": 4},
            {"resourceType": "nvidia-tesla-v100", "minimum": 0, "maximum": 4},
            {"resourceType": "nvidia-tesla-a100", "minimum": 0, "maximum": 4},
        ],
        "autoprovisioningLocations": ["us-central1-c"],
        "management": {"autoRepair": True, "autoUpgrade": True},
        "shieldedInstanceConfig": {"enableSecureBoot": True, "enableIntegrityMonitoring": True},
        "diskSizeGb": 100,
    }
    # Only keys gcloud's ValidateAutoprovisioningConfigFile accepts.
    assert set(nap) <= {"resourceLimits", "serviceAccount", "scopes", "upgradeSettings", "management",
                        "autoprovisioningLocations", "minCpuPlatform", "imageType", "bootDiskKmsKey", "diskSizeGb",
                        "diskType", "shieldedInstanceConfig"}
    cc, = by_kind(OVERLAYS / "gke-a100-spot" / "computeclass-a100-spot.yaml", "ComputeClass")
    assert cc["spec"]["priorities"] == [{"machineType": "a2-highgpu-1g", "spot": True,
                                         "gpu": {"type": "nvidia-tesla-a100", "count": 1, "driverVersion": "default"}}]
    assert cc["spec"]["whenUnsatisfiable"] == "DoNotScaleUp"
    assert cc["spec"]["nodePoolConfig"]["nodeLabels"] == {
        "gengpu.dev/pool": "a100-spot", "gke-no-default-nvidia-gpu-device-plugin": "true",
        "nvidia.com/device-plugin.config": "a100-spot"}
    assert cc["spec"]["nodePoolConfig"]["taints"] == [{"key": "nvidia.com/gpu", "value": "present",
                                                       "effect": "NoSchedule"}]


def _app_overlay(tmp_path, component, resource="nvidia.com/gpu", count=2):
    """An application overlay of a Deployment asking for count of resource, with the pool's component."""
    base = tmp_path / "app" / "base"
    base.mkdir(parents=True)
    (base / "deployment.yaml").write_text(yaml.safe_dump({
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "inference"},
        "spec": {"selector": {"matchLabels": {"app": "inference"}}, "template": {
            "metadata": {"labels": {"app": "inference"}},
            "spec": {"containers": [{"name": "server", "image": "example/server:1",
                                     "resources": {"requests": {"cpu": "2", "memory": "8Gi"},
                                                   "limits": {"memory": "8Gi", resource: count}}}]}}}}))
    (base / "kustomization.yaml").write_text("resources: [deployment.yaml]\n")
    overlay = tmp_path / "app" / "overlay"
    overlay.mkdir()
    rel = os.path.relpath(OVERLAYS / component, overlay)
    (overlay / "kustomization.yaml").write_text(f"resources: [../base]\ncomponents: [{rel}]\n")
    out = subprocess.run([str(REPO / "bin" / "kustomize"), "build", str(overlay)], capture_output=True, text=True,
                         check=True).stdout
    deployment, = yaml.safe_load_all(out)
    spec = deployment["spec"]["template"]["spec"]
    # the workload's own request survives, whatever it is
    assert spec["containers"][0]["resources"] == {"limits": {"memory": "8Gi", resource: count},
                                                  "requests": {"cpu": "2", "memory": "8Gi"}}
    assert "affinity" not in spec
    return spec


def test_placement_on_eks_karpenter(tmp_path):
    spec = _app_overlay(tmp_path, "eks-spot-ondemand/components/gpu", count=4)
    assert spec["tolerations"] == [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
    assert spec["nodeSelector"] == {"gengpu.dev/pool": "gpu"}


def test_placement_on_eks_mig_mixed(tmp_path):
    spec = _app_overlay(tmp_path, "eks-h100-mig/components/h100-mig-2g.20gb", "nvidia.com/mig-2g.20gb", 1)
    assert spec["nodeSelector"] == {"gengpu.dev/pool": "h100-mig"}


def test_placement_on_aks(tmp_path):
    spec = _app_overlay(tmp_path, "aks-t4-timeslicing/components/t4-shared", count=1)
    assert spec["tolerations"] == [{"key": "sku", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}]
    assert spec["nodeSelector"] == {"gengpu.dev/pool": "t4-shared"}


def test_placement_on_gke_standard(tmp_path):
    spec = _app_overlay(tmp_path, "gke-a100-spot/components/a100-spot", count=1)
    assert spec["nodeSelector"] == {"cloud.google.com/compute-class": "a100-spot"}
    # the pool's own taint (nvidia.com/gpu=present) and the one GKE puts on GPU nodes (nvidia.com/gpu, any value)
    # make one toleration of any value; GKE's spot taint is tolerated on a spot pool
    assert spec["tolerations"] == [
        {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
        {"key": "cloud.google.com/gke-spot", "operator": "Equal", "value": "true", "effect": "NoSchedule"}]


def test_placement_on_gke_autopilot(tmp_path):
    spec = _app_overlay(tmp_path, "gke-autopilot-l4/components/l4", count=1)
    assert spec["nodeSelector"] == {"cloud.google.com/gke-accelerator": "nvidia-l4",
                                    "cloud.google.com/gke-accelerator-count": "1"}
    assert "tolerations" not in spec  # Autopilot adds its own


def test_cronjob_patch_places_pods_like_the_pod_template_patch():
    components = sorted(OVERLAYS.glob("*/components/*"))
    assert len(components) == 10
    for pool_dir in components:
        patch = yaml.safe_load((pool_dir / "pod-template.yaml").read_text())
        cron = yaml.safe_load((pool_dir / "cronjob.yaml").read_text())
        assert cron["spec"]["jobTemplate"]["spec"]["template"]["spec"] == patch["spec"]["template"]["spec"]
        assert patch["metadata"]["annotations"]["gengpu.dev/pool"] == yaml.safe_load(
            (pool_dir / "placement.yaml").read_text())["spec"]["pool"]


def test_monitoring_objects():
    sm, rule = docs(OVERLAYS / "aks-t4-timeslicing" / "monitoring.yaml")
    endpoint, = sm["spec"]["endpoints"]
    assert (sm["kind"], endpoint["port"], endpoint["honorLabels"], endpoint["interval"]) == (
        "ServiceMonitor", "gpu-metrics", True, "15s")
    assert sm["spec"]["selector"] == {"matchLabels": {"app": "nvidia-dcgm-exporter"}}
    alerts = {r["alert"] for g in rule["spec"]["groups"] for r in g["rules"] if "alert" in r}
    assert {"GPUXidError", "GPUMemoryNearlyFull", "GPUHighTemperature", "GPUIdleWhileAllocated"} <= alerts
    secret, rules_cm = docs(OVERLAYS / "eks-l4-mps" / "monitoring.yaml")
    job, = yaml.safe_load(secret["stringData"]["prometheus-additional.yaml"])
    assert job["kubernetes_sd_configs"] == [{"role": "pod", "namespaces": {"names": ["gpu-operator"]}}]
    assert job["honor_labels"] is True
    assert {"source_labels": ["__meta_kubernetes_pod_node_name"], "target_label": "node", "action": "replace"} in \
        job["relabel_configs"]
    # The operator's own ServiceMonitor is off: gengpu writes it.
    values = yaml.safe_load((OVERLAYS / "aks-t4-timeslicing" / "gpu-operator-values.yaml").read_text())
    assert values["dcgmExporter"]["enabled"] is True and values["dcgmExporter"]["serviceMonitor"] == {"enabled": False}
    autopilot = OVERLAYS / "gke-autopilot-l4"
    assert not (autopilot / "monitoring.yaml").exists()


@pytest.fixture(scope="module")
def promtool():
    path = REPO / "bin" / "promtool"
    assert path.is_file(), "scripts/install-tools builds promtool"
    return str(path)


def test_rules_pass_promtool(promtool, tmp_path):
    _, rule = docs(OVERLAYS / "aks-t4-timeslicing" / "monitoring.yaml")
    (tmp_path / "rules.yaml").write_text(yaml.safe_dump({"groups": rule["spec"]["groups"]}))
    _, cm = docs(OVERLAYS / "eks-l4-mps" / "monitoring.yaml")
    (tmp_path / "rules-cm.yaml").write_text(cm["data"]["gpu.rules.yaml"])
    proc = subprocess.run([promtool, "check", "rules", "rules.yaml", "rules-cm.yaml"], cwd=tmp_path,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "SUCCESS: 10 rules found" in proc.stdout


def test_scrape_job_passes_promtool(promtool, tmp_path):
    secret, _ = docs(OVERLAYS / "eks-l4-mps" / "monitoring.yaml")
    jobs = yaml.safe_load(secret["stringData"]["prometheus-additional.yaml"])
    (tmp_path / "prometheus.yml").write_text(yaml.safe_dump({"scrape_configs": jobs}))
    proc = subprocess.run([promtool, "check", "config", "--syntax-only", "prometheus.yml"], cwd=tmp_path,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_verification_workload_fills_one_node():
    deploy = yaml.safe_load((OVERLAYS / "aks-t4-timeslicing" / "verify" / "t4-shared" / "deployment.yaml").read_text())
    assert deploy["spec"]["replicas"] == 10  # one T4 x 10 time-sliced replicas
    mps = yaml.safe_load((OVERLAYS / "eks-l4-mps" / "verify" / "l4-mps" / "deployment.yaml").read_text())
    assert mps["spec"]["replicas"] == 4
    k = yaml.safe_load((OVERLAYS / "eks-l4-mps" / "verify" / "l4-mps" / "kustomization.yaml").read_text())
    assert k["components"] == ["../../components/l4-mps"]


PROVISIONER = """\
apiVersion: karpenter.sh/v1alpha5
kind: Provisioner
metadata:
  name: gpu
spec:
  requirements:
    - key: karpenter.sh/capacity-type
      operator: In
      values: ["spot", "on-demand"]
    - key: topology.kubernetes.io/zone
      operator: In
      values: ["ap-south-1a", "ap-south-1b"]
    - key: karpenter.k8s.aws/instance-family
      operator: In
      values: ["p3", "p4d", "p5", "g4dn", "g5"]
  taints:
    - key: nvidia.com/gpu
      effect: NoSchedule
  limits:
    resources:
      cpu: 500
  providerRef:
    name: default
  ttlSecondsAfterEmpty: 30
"""


def test_import_classic_provisioner_keeps_its_meaning(repo, run):
    (repo / "provisioner.yaml").write_text(PROVISIONER)
    result = run("import", "karpenter-provisioner", "provisioner.yaml")
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[1] == ("# not imported: spec.providerRef is not imported: gengpu writes its own "
                                             "EC2NodeClass and expireAfter 720h")
    imported = yaml.safe_load(result.output)
    profile = yaml.safe_load((repo / "profiles" / "eks-spot-ondemand.yaml").read_text())
    profile["metadata"]["name"] = "imported"
    profile["spec"]["zones"] = imported["zones"]
    profile["spec"]["nodePools"] = imported["nodePools"]
    (repo / "profiles" / "imported.yaml").write_text(yaml.safe_dump(profile))
    assert run("build", "profiles/imported.yaml").exit_code == 0
    ours, = by_kind(repo / "overlays" / "imported" / "nodepool-gpu.yaml", "NodePool")
    classic, = by_kind(OVERLAYS / "eks-spot-ondemand" / "nodepool-gpu.yaml", "NodePool")
    assert ours["spec"] == classic["spec"]
    assert req(ours)["karpenter.sh/capacity-type"] == ["spot", "on-demand"]
    assert req(ours)["topology.kubernetes.io/zone"] == ["ap-south-1a", "ap-south-1b"]
    assert ours["spec"]["disruption"] == {"consolidationPolicy": "WhenEmpty", "consolidateAfter": "30s",
                                          "budgets": [{"nodes": "1", "reasons": ["Drifted", "Underutilized"]}]}
    assert ours["spec"]["limits"] == {"cpu": "500"}


def test_import_maps_kubelet_configuration_and_lists_the_rest(repo, run):
    """A v1alpha5 kubeletConfiguration becomes the pool's kubelet (EC2NodeClass spec.kubelet); a field v1 lacks and
    any other spec key are listed as not imported."""
    text = PROVISIONER + ("  kubeletConfiguration:\n    maxPods: 110\n    containerRuntime: containerd\n"
                          "    systemReserved: {cpu: 500m}\n  consolidationPolicyX: odd\n")
    (repo / "provisioner.yaml").write_text(text)
    result = run("import", "karpenter-provisioner", "provisioner.yaml")
    assert result.exit_code == 0, result.output
    notes = [line for line in result.output.splitlines() if line.startswith("# not imported")]
    assert notes == [
        "# not imported: spec.kubeletConfiguration.containerRuntime is not imported: EC2NodeClass spec.kubelet "
        "(Karpenter v1) has no such field",
        "# not imported: spec.providerRef is not imported: gengpu writes its own EC2NodeClass and expireAfter 720h",
        "# not imported: spec.consolidationPolicyX is not imported: the profile has no field for it"]
    imported = yaml.safe_load(result.output)
    assert imported["nodePools"][0]["kubelet"] == {"maxPods": 110, "systemReserved": {"cpu": "500m"}}
    profile = yaml.safe_load((repo / "profiles" / "eks-spot-ondemand.yaml").read_text())
    profile["spec"]["nodePools"] = imported["nodePools"]
    (repo / "profiles" / "eks-spot-ondemand.yaml").write_text(yaml.safe_dump(profile))
    assert run("build", "profiles/eks-spot-ondemand.yaml").exit_code == 0
    nodeclass, = by_kind(repo / "overlays" / "eks-spot-ondemand" / "nodepool-gpu.yaml", "EC2NodeClass")
    assert nodeclass["spec"]["kubelet"] == {"maxPods": 110, "systemReserved": {"cpu": "500m"}}
    result = run("validate", "overlays/eks-spot-ondemand", "--output", "json")
    assert result.exit_code == 0 and json.loads(result.output)["findings"] == [], result.output


def test_import_refuses_other_files(repo, run):
    (repo / "np.yaml").write_text("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: x}\n")
    result = run("import", "karpenter-provisioner", "np.yaml")
    assert result.exit_code == 2
    assert result.output == "gengpu: error: np.yaml: expected one karpenter.sh/v1alpha5 Provisioner, found 0\n"


def _gke_managed(repo, run, operator: bool, sharing: dict, name: str):
    profile = yaml.safe_load((repo / "profiles" / "gke-a100-spot.yaml").read_text())
    profile["metadata"]["name"] = name
    pool = profile["spec"]["nodePools"][0]
    pool.update({"provisioner": "managed", "capacityTypes": ["spot"], "sharing": sharing})
    if operator:
        pool["labels"] = {"gke-no-default-nvidia-gpu-device-plugin": "true"}
    else:
        profile["spec"]["operator"] = {"enabled": False}
        profile["spec"]["monitoring"] = {"mode": "gke-managed"}
    del profile["spec"]["gke"]
    (repo / "profiles" / f"{name}.yaml").write_text(yaml.safe_dump(profile))
    result = run("build", f"profiles/{name}.yaml")
    assert result.exit_code == 0, result.output
    script = repo / "overlays" / name / f"gke-nodepool-{pool['name']}.sh"
    assert subprocess.run(["bash", "-n", str(script)]).returncode == 0
    return script.read_text().splitlines()


def test_gke_managed_pool_with_gkes_own_time_sharing(repo, run):
    lines = _gke_managed(repo, run, False, {"mode": "time-slicing", "replicas": 4}, "gke-native")
    assert lines[lines.index("set -euo pipefail"):] == [
        "set -euo pipefail",
        "gcloud container node-pools create a100-spot \\",
        "  --cluster gke-native \\",
        "  --zone us-central1-c \\",
        "  --machine-type a2-highgpu-1g \\",
        "  --accelerator type=nvidia-tesla-a100,count=1,gpu-driver-version=default,"
        "gpu-sharing-strategy=time-sharing,max-shared-clients-per-gpu=4 \\",
        "  --enable-autoscaling --min-nodes 0 \\",
        "  --max-nodes 3 \\",
        "  --node-labels gengpu.dev/pool=a100-spot,nvidia.com/device-plugin.config=a100-spot \\",
        "  --node-taints nvidia.com/gpu=present:NoSchedule \\",
        "  --spot \\",
        "  --image-type COS_CONTAINERD",
    ]


def test_gke_managed_pool_with_gkes_own_mig_partitions(repo, run):
    lines = _gke_managed(repo, run, False, {"mode": "mig", "mig": {"strategy": "single", "preset": "all-1g.5gb"}},
                         "gke-mig")
    assert "  --accelerator type=nvidia-tesla-a100,count=1,gpu-driver-version=default,gpu-partition-size=1g.5gb \\" \
        in lines


def _gke_compute_class(repo, run, sharing: dict, name: str, operator: bool = False) -> dict:
    """gke-a100-spot's auto-provisioned pool (a ComputeClass) with the given sharing, GKE's device plugin unless
    operator."""
    profile = yaml.safe_load((repo / "profiles" / "gke-a100-spot.yaml").read_text())
    profile["metadata"]["name"] = name
    pool = profile["spec"]["nodePools"][0]
    assert pool["provisioner"] == "node-auto-provisioning"
    pool["sharing"] = sharing
    if not operator:
        profile["spec"]["operator"] = {"enabled": False}
        profile["spec"]["monitoring"] = {"mode": "gke-managed"}
        # GKE serves the ComputeClass's gpuSharing from 1.35.2-gke.1485000 (gke-computeclass-sharing-too-old)
        profile["spec"]["kubernetesVersion"] = "1.35"
    (repo / "profiles" / f"{name}.yaml").write_text(yaml.safe_dump(profile))
    result = run("build", f"profiles/{name}.yaml")
    assert result.exit_code == 0, result.output
    assert run("validate", f"overlays/{name}").exit_code == 0
    cc, = by_kind(repo / "overlays" / name / f"computeclass-{pool['name']}.yaml", "ComputeClass")
    return cc


def test_gke_compute_class_carries_gkes_own_gpu_sharing(repo, run):
    """An auto-provisioned pool on GKE's device plugin shares its GPUs through the ComputeClass's gpu.gpuSharing
    (the CRD as GKE served it on 2026-08-02: sharingStrategy, maxSharedClientsPerGPU, gpuPartitionSize); under the
    operator the ComputeClass asks for none (the operator's device plugin shares)."""
    cc = _gke_compute_class(repo, run, {"mode": "time-slicing", "replicas": 4}, "gke-cc-ts")
    assert {p["gpu"]["gpuSharing"]["sharingStrategy"] for p in cc["spec"]["priorities"]} == {"TIME_SHARING"}
    assert {p["gpu"]["gpuSharing"]["maxSharedClientsPerGPU"] for p in cc["spec"]["priorities"]} == {4}
    cc = _gke_compute_class(repo, run, {"mode": "mps", "replicas": 2}, "gke-cc-mps")
    assert [p["gpu"]["gpuSharing"] for p in cc["spec"]["priorities"]][0] == {"sharingStrategy": "MPS",
                                                                              "maxSharedClientsPerGPU": 2}
    cc = _gke_compute_class(repo, run, {"mode": "mig", "mig": {"strategy": "single", "preset": "all-1g.5gb"}},
                            "gke-cc-mig")
    assert [p["gpu"]["gpuSharing"] for p in cc["spec"]["priorities"]][0] == {"gpuPartitionSize": "1g.5gb"}
    cc = _gke_compute_class(repo, run, {"mode": "time-slicing", "replicas": 4}, "gke-cc-op", operator=True)
    assert not any("gpuSharing" in p.get("gpu", {}) for p in cc["spec"]["priorities"])


def test_gke_managed_pool_under_the_operator(repo, run):
    lines = _gke_managed(repo, run, True, {"mode": "none"}, "gke-operator")
    assert "  --accelerator type=nvidia-tesla-a100,count=1,gpu-driver-version=disabled \\" in lines
    assert ("  --node-labels gengpu.dev/pool=a100-spot,gke-no-default-nvidia-gpu-device-plugin=true,"
            "nvidia.com/device-plugin.config=a100-spot \\") in lines


def test_autopilot_placement_asks_for_a_count_autopilot_allows(repo, run, tmp_path):
    profile = yaml.safe_load((repo / "profiles" / "gke-autopilot-l4.yaml").read_text())
    profile["metadata"]["name"] = "autopilot-b200"
    pool = profile["spec"]["nodePools"][0]
    pool.update({"name": "b200", "gpu": "B200-180GB", "gpusPerNode": 8, "instanceTypes": ["a4-highgpu-8g"],
                 "verify": True})
    (repo / "profiles" / "autopilot-b200.yaml").write_text(yaml.safe_dump(profile))
    assert run("build", "profiles/autopilot-b200.yaml").exit_code == 0
    placement = yaml.safe_load((repo / "overlays" / "autopilot-b200" / "components" / "b200" / "placement.yaml")
                               .read_text())
    assert placement["spec"] == {"pool": "b200", "resource": "nvidia.com/gpu", "tolerations": [], "nodeSelector": {
        "cloud.google.com/gke-accelerator": "nvidia-b200", "cloud.google.com/gke-accelerator-count": "8"}}
    verify = yaml.safe_load((repo / "overlays" / "autopilot-b200" / "verify" / "b200" / "deployment.yaml").read_text())
    container, = verify["spec"]["template"]["spec"]["containers"]
    assert container["resources"]["limits"]["nvidia.com/gpu"] == 8  # the only count Autopilot allows for B200


def test_gke_auto_provisioning_limits_add_up_per_accelerator(repo, run):
    """Two auto-provisioned A100 pools share the cluster's nvidia-tesla-a100 limit: it is the sum of theirs."""
    profile = yaml.safe_load((repo / "profiles" / "gke-a100-spot.yaml").read_text())
    del profile["spec"]["gke"]["autoprovisioning"]["gpus"]
    first = profile["spec"]["nodePools"][0]
    first["limits"] = {"gpus": 4}
    second = {**first, "name": "a100-big", "gpusPerNode": 8, "instanceTypes": ["a2-highgpu-8g"],
              "limits": {"gpus": 8}}
    profile["spec"]["nodePools"].append(second)
    (repo / "profiles" / "gke-a100-spot.yaml").write_text(yaml.safe_dump(profile))
    result = run("build", "profiles/gke-a100-spot.yaml")
    assert result.exit_code == 0, result.output
    conf = yaml.safe_load((repo / "overlays" / "gke-a100-spot" / "gke-autoprovisioning.yaml").read_text())
    assert [r for r in conf["resourceLimits"] if r["resourceType"].startswith("nvidia")] == [
        {"resourceType": "nvidia-tesla-a100", "minimum": 0, "maximum": 12}]

    del second["limits"]  # a pool with no limit would leave its accelerator at the first pool's 4 (or at 0)
    (repo / "profiles" / "gke-a100-spot.yaml").write_text(yaml.safe_dump(profile))
    result = run("validate", "profiles/gke-a100-spot.yaml", "--output", "json")
    assert [f["rule"] for f in json.loads(result.output)["findings"] if f["severity"] == "error"] == [
        "gke-nap-gpu-limit-missing"]


def test_aks_with_the_operators_driver_is_microsofts_documented_setup(repo, run):
    """driver: operator on AKS skips the node image's driver (--gpu-driver none) and lets the operator install
    driver and toolkit; no driver-already-preinstalled finding."""
    path = repo / "profiles" / "aks-t4-timeslicing.yaml"
    path.write_text(path.read_text().replace("    driver: preinstalled\n    toolkit: preinstalled\n",
                                             "    driver: operator\n"))
    result = run("validate", "profiles/aks-t4-timeslicing.yaml", "--output", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["findings"] == []
    assert run("build", "profiles/aks-t4-timeslicing.yaml").exit_code == 0
    overlay = repo / "overlays" / "aks-t4-timeslicing"
    assert "  --gpu-driver none \\" in (overlay / "aks-nodepool-t4-shared.sh").read_text().splitlines()
    values = yaml.safe_load((overlay / "gpu-operator-values.yaml").read_text())
    assert (values["driver"]["enabled"], values["toolkit"]["enabled"]) == (True, True)


@pytest.mark.parametrize("version", [c.version for c in charts.versions("gpu-operator")])
def test_every_generated_helm_value_is_a_key_of_the_pinned_chart(version):
    """Helm silently ignores a key its chart does not have (cdi.default after v25.10.0): every key gengpu writes
    is in the chart's values.yaml of the profile's operator version."""
    from gengpu.compiling.operator_app import helm_values
    from gengpu.model import build_profile

    chart = next(c for c in charts.versions("gpu-operator") if c.version == version)
    checked = 0
    for path in sorted((REPO / "profiles").glob("*.yaml")):
        profile = build_profile(yaml.safe_load(path.read_text()), str(path))
        if not profile.operator.enabled:
            continue
        profile = dataclasses.replace(profile, operator=dataclasses.replace(profile.operator, version=version))
        checked += keys_of_chart(chart, helm_values(profile), path.name, free=charts.FREE)
    assert checked > 50


def keys_of_chart(chart, values: dict, label: str, free=frozenset()) -> int:
    """Assert every key of values is a key of the chart's values.yaml (below keys in free, or values the chart
    leaves free-form, anything goes); the number of keys checked."""
    checked, stack = 0, [((), values)]
    while stack:
        where, node = stack.pop()
        for key, value in node.items():
            sub = where + (key,)
            assert key in chart.children.get(where, set()), (label, ".".join(sub))
            checked += 1
            if isinstance(value, dict) and key not in free and sub not in chart.free:
                stack.append((sub, value))
    return checked


def test_a_type_the_region_lacks_names_the_nearest_regions_that_have_it(repo, run):
    path = repo / "profiles" / "aks-t4-timeslicing.yaml"
    profile = yaml.safe_load(path.read_text())
    profile["spec"]["region"] = "northeurope"
    profile["spec"]["nodePools"][0]["instanceTypes"] = ["Standard_ND96asr_v4"]
    profile["spec"]["nodePools"][0]["gpu"] = "A100-40GB"
    profile["spec"]["nodePools"][0]["gpusPerNode"] = 8
    path.write_text(yaml.safe_dump(profile))
    result = run("validate", "profiles/aks-t4-timeslicing.yaml", "--output", "json")
    found = [f["message"] for f in json.loads(result.output)["findings"] if f["rule"] == "instance-type-not-in-region"]
    assert found == ["nodePools[0].instanceTypes: northeurope offers none of Standard_ND96asr_v4; nearest regions "
                     "that do: westeurope, italynorth, eastus, southcentralus"]


def test_p5e_in_cape_town_names_where_h200s_are(repo, run):
    """The issue's case: af-south-1 has no p5e; Europe is Africa's neighbour in gengpu's geographies."""
    path = repo / "profiles" / "eks-l4-mps.yaml"
    profile = yaml.safe_load(path.read_text())
    profile["spec"]["region"] = "af-south-1"
    pool = profile["spec"]["nodePools"][0]
    pool.update({"gpu": "H200-141GB", "gpusPerNode": 8, "instanceTypes": ["p5e.48xlarge"]})
    path.write_text(yaml.safe_dump(profile))
    result = run("validate", "profiles/eks-l4-mps.yaml", "--output", "json")
    found = [f["message"] for f in json.loads(result.output)["findings"] if f["rule"] == "instance-type-not-in-region"]
    assert found == ["nodePools[0].instanceTypes: af-south-1 offers none of p5e.48xlarge; nearest regions that do: "
                     "eu-north-1, eu-west-2, ap-southeast-2, ap-southeast-3"]
    # a pool of several families needs only one the region has (Karpenter picks among them)
    pool["instanceTypes"] = ["p5e.48xlarge", "g4dn.12xlarge"]
    pool.update({"gpu": ["H200-141GB", "T4"], "gpusPerNode": None})
    del pool["gpusPerNode"]
    path.write_text(yaml.safe_dump(profile))
    result = run("validate", "profiles/eks-l4-mps.yaml", "--output", "json")
    assert [f for f in json.loads(result.output)["findings"] if f["rule"] == "instance-type-not-in-region"] == []


@pytest.mark.skipif(shutil.which("go") is None, reason="scripts/sync-regions reads a Go module")
def test_the_region_table_is_what_its_sources_say():
    """gengpu/data/regions.yaml is scripts/sync-regions' output from its pinned sources, unedited."""
    proc = subprocess.run([sys.executable, str(REPO / "scripts" / "sync-regions"), "--check"], capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_every_generated_dra_value_is_a_key_of_the_pinned_dra_chart():
    """The DRA driver's values gengpu writes (example and fixture) are keys of the chart's values.yaml at the pin,
    and the render guard of templates/validation.yaml (GPUs on without the override) is satisfied."""
    from gengpu.compiling import dra
    from gengpu.model import build_profile

    chart, = charts.versions("nvidia-dra-driver-gpu")
    checked = 0
    for path in [REPO / "profiles" / "gke-dra.yaml", REPO / "tests" / "fixtures" / "profiles" / "aks-dra-mps.yaml"]:
        profile = build_profile(yaml.safe_load(path.read_text()), str(path))
        assert chart.version == f"v{dra.chart_version(profile)}"
        values = dra.helm_values(profile)
        assert values["gpuResourcesEnabledOverride"] is True and values["resources"]["gpus"]["enabled"] is True
        checked += keys_of_chart(chart, values, path.name)
    assert checked >= 20


def test_the_dra_driver_from_its_new_home(repo, run):
    """draDriver.version 0.5.0: chart dra-driver-nvidia-gpu (kubernetes-sigs/dra-driver-nvidia-gpu, on NGC under the
    new name) in the Application, the ApplicationSet's cluster parameters and the Flux HelmRelease; every value gengpu
    writes is a key of that chart's values.yaml (v0.5.0, the Go module proxy's zip), with nameOverride keeping the old
    chart's names as the documented upgrade does; the MPS defect of 25.12.0 on GKE (fixed in 0.4.0) is not
    reported; a hand-written HelmRelease of the new chart without the override is caught."""
    from gengpu.compiling import dra
    from gengpu.model import build_profile

    text = (REPO / "profiles" / "gke-dra.yaml").read_text().replace("    version: 25.12.0\n", "    version: 0.5.0\n")
    text = text.replace("mode: time-slicing\n        replicas: 2", "mode: mps\n        replicas: 2")
    (repo / "profiles" / "gke-dra.yaml").write_text(text)
    profile = build_profile(yaml.safe_load(text), "gke-dra.yaml")
    chart, = charts.versions("dra-driver-nvidia-gpu")
    assert (chart.version, dra.chart_name(profile)) == ("v0.5.0", "dra-driver-nvidia-gpu")
    values = dra.helm_values(profile)
    assert values["nameOverride"] == "nvidia-dra-driver-gpu"
    assert keys_of_chart(chart, values, "gke-dra") >= 10
    assert run("build", "profiles/gke-dra.yaml").exit_code == 0
    app = yaml.safe_load((repo / "argocd" / "applications" / "gke-dra.yaml").read_text())
    dra_source, = [s for s in app["spec"]["sources"] if s.get("chart", "").startswith(("dra-", "nvidia-dra"))]
    assert (dra_source["repoURL"], dra_source["chart"], dra_source["targetRevision"]) == (
        "https://helm.ngc.nvidia.com/nvidia", "dra-driver-nvidia-gpu", "0.5.0")
    cluster = yaml.safe_load((repo / "overlays" / "gke-dra" / "gengpu-cluster.yaml").read_text())["cluster"]
    assert (cluster["draDriverChart"], cluster["draDriverVersion"]) == ("dra-driver-nvidia-gpu", "0.5.0")
    result = run("validate", "profiles/gke-dra.yaml", "overlays/gke-dra", "--output", "json")
    assert "dra-mps-driver-root-without-shell" not in {f["rule"] for f in json.loads(result.output)["findings"]}
    release = {"apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": "HelmRelease", "metadata": {"name": "dra"},
               "spec": {"interval": "1h", "chart": {"spec": {"chart": "dra-driver-nvidia-gpu", "version": "0.5.0",
                                                             "sourceRef": {"kind": "HelmRepository", "name": "nvidia"}}},
                        "values": {"resources": {"gpus": {"enabled": True}}}}}
    (repo / "release.yaml").write_text(yaml.safe_dump(release))
    found = json.loads(run("validate", "release.yaml", "--output", "json").output)["findings"]
    assert [f["rule"] for f in found] == ["dra-chart-gpus-without-override"]


def test_a_dra_pool_without_the_operator_still_gets_the_drivers_namespace(repo, run):
    """The DRA driver syncs into the operator's namespace: without the operator gengpu still writes it (privileged,
    for the kubelet plugin), the Application carries the DRA chart and the values reference, and the driver root
    is the node image's."""
    fixture = (REPO / "tests" / "fixtures" / "profiles" / "aks-dra-mps.yaml").read_text()
    no_operator = fixture.replace("    driver: operator\n", "    enabled: false\n")
    (repo / "profiles" / "aks-dra-mps.yaml").write_text(no_operator)
    # nothing runs a device plugin for the profile's t4 pool now: said, and suppressed where the team runs its own
    refused = run("build", "profiles/aks-dra-mps.yaml")
    assert refused.exit_code == 1 and "error no-device-plugin nodePools[1] (t4)" in refused.output, refused.output
    (repo / "profiles" / "aks-dra-mps.yaml").write_text(no_operator.replace("  argocd:\n", (
        "  suppress:\n    - rule: no-device-plugin\n      pools: [t4]\n"
        "      reason: the team installs NVIDIA's device plugin chart for the T4 nodes\n  argocd:\n"), 1))
    assert run("build", "profiles/aks-dra-mps.yaml").exit_code == 0
    overlay = repo / "overlays" / "aks-dra-mps"
    kustomization = yaml.safe_load((overlay / "kustomization.yaml").read_text())
    assert "namespace.yaml" in kustomization["resources"] and not (overlay / "gpu-operator-values.yaml").exists()
    namespace = yaml.safe_load((overlay / "namespace.yaml").read_text())
    assert namespace["metadata"]["labels"] == {"pod-security.kubernetes.io/enforce": "privileged"}
    assert yaml.safe_load((overlay / "dra-driver-values.yaml").read_text())["nvidiaDriverRoot"] == "/"
    app = yaml.safe_load((repo / "argocd" / "applications" / "aks-dra-mps.yaml").read_text())
    assert [s.get("chart") or s.get("ref") or s.get("path") for s in app["spec"]["sources"]] == [
        "nvidia-dra-driver-gpu", "overlays/aks-dra-mps", "values"]
    result = run("validate", "profiles/aks-dra-mps.yaml", "overlays/aks-dra-mps", "--output", "json")
    assert (result.exit_code, json.loads(result.output)["findings"]) == (0, [])


def test_dcgm_exporter_names_every_pod_of_a_shared_gpu_where_it_can(run, tmp_path):
    """KUBERNETES_VIRTUAL_GPUS (dcgm-exporter 4.0.3 and later, pkg/cmd/app.go): without it a time-sliced or MPS GPU's
    series name one of its pods, the last the kubelet lists (kubernetes.go keys pods by GPU UUID)."""
    shared = yaml.safe_load((OVERLAYS / "aks-t4-timeslicing" / "gpu-operator-values.yaml").read_text())
    assert shared["dcgmExporter"]["env"] == [{"name": "KUBERNETES_VIRTUAL_GPUS", "value": "true"}]
    whole = yaml.safe_load((OVERLAYS / "eks-h100-mig" / "gpu-operator-values.yaml").read_text())
    assert "env" not in whole["dcgmExporter"]
    # the GPU Operator v24.9.0 deploys dcgm-exporter 3.6.0, which has no such setting
    text = (REPO / "profiles" / "aks-t4-timeslicing.yaml").read_text().replace("version: v26.7.0", "version: v24.9.0")
    (tmp_path / "old.yaml").write_text(text)
    assert run("build", "old.yaml", "-o", "out", cwd=tmp_path).exit_code == 0
    values = yaml.safe_load((tmp_path / "out" / "aks-t4-timeslicing" / "gpu-operator-values.yaml").read_text())
    assert values["dcgmExporter"] == {"enabled": True, "serviceMonitor": {"enabled": False}}


def _alerts_with_up(promtool, tmp_path, job: str) -> str:
    """promtool's verdict on GPUExporterDown when the one exporter target of `job` is up for 30 minutes."""
    (tmp_path / "rules.yaml").write_text(monitoring.rules_file())
    (tmp_path / "test.yaml").write_text(yaml.safe_dump({
        "rule_files": ["rules.yaml"], "evaluation_interval": "1m",
        "tests": [{"interval": "1m",
                   "input_series": [{"series": f'up{{job="{job}", instance="10.0.0.4:9400"}}', "values": "1x30"}],
                   "alert_rule_test": [{"eval_time": "20m", "alertname": "GPUExporterDown", "exp_alerts": []}]}]}))
    proc = subprocess.run([promtool, "test", "rules", "test.yaml"], cwd=tmp_path, capture_output=True, text=True)
    return proc.stdout + proc.stderr if proc.returncode else "quiet"


def test_exporter_down_stays_quiet_while_gengpus_own_scrape_job_is_up(promtool, tmp_path):
    """The job label of an up exporter, as each monitoring mode names it, keeps GPUExporterDown quiet (promtool test
    rules). The scrape-config job was once called gpu-metrics, and the alert fired for ever."""
    secret, _ = docs(OVERLAYS / "eks-l4-mps" / "monitoring.yaml")
    job, = yaml.safe_load(secret["stringData"]["prometheus-additional.yaml"])
    assert job["job_name"] == "nvidia-dcgm-exporter"
    assert _alerts_with_up(promtool, tmp_path, job["job_name"]) == "quiet"
    # A ServiceMonitor's targets take their job from the Service's name (the Prometheus Operator's default without
    # jobLabel); the GPU Operator names its exporter Service after the app label gengpu selects.
    sm, _ = docs(OVERLAYS / "aks-t4-timeslicing" / "monitoring.yaml")
    assert _alerts_with_up(promtool, tmp_path, sm["spec"]["selector"]["matchLabels"]["app"]) == "quiet"
    assert _alerts_with_up(promtool, tmp_path, "gpu-metrics") != "quiet"  # the old name: the test can fail
