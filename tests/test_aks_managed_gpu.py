"""spec.aks.managedGpu: AKS's managed GPU node pools (preview) instead of the GPU Operator. The az script, the
AKSNodeClass tag and the MIG flags as Microsoft's docs give them; a scrape of AKS's host dcgm-exporter (port 19400)
that a real Prometheus runs against a real API server's nodes; and no-device-plugin, the rule for pools that nothing
advertises.

Upstream: MicrosoftDocs/azure-aks-docs articles/aks/aks-managed-gpu-nodes.md at fb060abe (create commands, MIG
strategies, the dcgm-exporter label and port, no autoscaler in preview, the NAP tag); Azure/AgentBaker@06836ee2
parts/linux/cloud-init/artifacts/cse_config.sh (systemd services, the label, --address ":19400") and
mig-partition.sh (what MIG1g..MIG7g create)."""

import json
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest
import yaml

import apiserver
import prometheus

REPO = Path(__file__).resolve().parent.parent
FIXTURE_PROFILE = "aks-managed-gpu.yaml"  # the profile_repo fixture's


def _script_lines(path: Path) -> list[str]:
    return [line for line in path.read_text().splitlines() if not line.startswith("#")]


def test_managed_pools_are_created_as_the_docs_create_them(run, profile_repo):
    result = run("build", cwd=profile_repo)
    assert result.exit_code == 0, result.output
    overlay = profile_repo / "overlays" / "aks-managed-gpu"
    # aks-managed-gpu-nodes.md, "Create a managed Multi-Instance GPU (MIG) node pool", Mixed strategy tab:
    # --enable-managed-gpu=true --gpu-instance-profile MIG1g --gpu-mig-strategy Mixed; no cluster autoscaler flags
    # ("Cluster autoscaler isn't supported on managed GPU node pools during preview"), the pool's limits.nodes as
    # its fixed size; no device-plugin config label (AKS's plugin reads no config).
    assert _script_lines(overlay / "aks-nodepool-a100-mig.sh") == [
        "set -euo pipefail",
        "az aks nodepool add \\",
        "  --resource-group aks-managed-gpu-rg \\",
        "  --cluster-name aks-managed-gpu \\",
        "  --name a100mig \\",
        "  --node-vm-size Standard_NC24ads_A100_v4 \\",
        "  --node-count 2 \\",
        "  --labels gengpu.dev/pool=a100-mig \\",
        "  --node-taints sku=gpu:NoSchedule \\",
        "  --enable-managed-gpu=true \\",
        "  --gpu-instance-profile MIG1g \\",
        "  --gpu-mig-strategy Mixed \\",
        "  --os-sku Ubuntu",
    ]
    # "Node Auto Provisioning node pool" tab: the EnableManagedGPUExperience tag on the AKSNodeClass, AKS's driver
    nodepool, nodeclass = yaml.safe_load_all((overlay / "nodepool-t4.yaml").read_text())
    assert nodeclass["kind"] == "AKSNodeClass"
    assert nodeclass["spec"]["tags"] == {"EnableManagedGPUExperience": "true"}
    assert nodeclass["spec"]["gpu"] == {"mode": "Driver"}
    assert nodepool["spec"]["template"]["metadata"]["labels"] == {"gengpu.dev/pool": "t4"}
    # no operator: no Application source, values, namespace or ConfigMaps of its
    assert sorted(p.name for p in overlay.iterdir() if p.is_file()) == [
        "aks-nodepool-a100-mig.sh", "gengpu-cluster.yaml", "kustomization.yaml", "monitoring.yaml",
        "nodepool-t4.yaml"]
    scrape, rules = yaml.safe_load_all((overlay / "monitoring.yaml").read_text())
    assert (scrape["kind"], scrape["metadata"]["namespace"], rules["kind"], rules["metadata"]["namespace"]) == (
        "ScrapeConfig", "monitoring", "PrometheusRule", "monitoring")
    assert scrape["spec"]["kubernetesSDConfigs"] == [
        {"role": "Node", "selectors": [{"role": "Node", "label": "kubernetes.azure.com/dcgm-exporter=enabled"}]}]
    # ScrapeConfig (prometheus-operator v0.85.0 CRD), NodePool and AKSNodeClass through the real kubeconform
    result = run("validate", "--engine", "kubeconform", cwd=profile_repo)
    assert result.exit_code == 0, result.output
    assert "no findings" in result.output


def test_a_misspelt_scrape_config_field_is_caught(run, profile_repo):
    """The ScrapeConfig schema is strict: the validator would catch gengpu writing a field the CRD lacks."""
    assert run("build", cwd=profile_repo).exit_code == 0
    monitoring = profile_repo / "overlays" / "aks-managed-gpu" / "monitoring.yaml"
    monitoring.write_text(monitoring.read_text().replace("  scrapeInterval: 15s", "  scrapeIntervall: 15s"))
    result = run("validate", "--engine", "kubeconform", cwd=profile_repo)
    assert result.exit_code == 1 and "scrapeIntervall" in result.output, result.output


class _Exporter(BaseHTTPRequestHandler):
    """Two lines in the shape of AKS's host dcgm-exporter (-f default-counters.csv, no --kubernetes: no pod labels)."""

    def do_GET(self):  # noqa: N802 (http.server's name)
        body = (b'# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n'
                b'DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-1",device="nvidia0",modelName="NVIDIA A100 80GB PCIe",'
                b'Hostname="aks-a100mig-0"} 37\n')
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; version=0.0.4")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def _get(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=5) as r:
        return json.load(r)


def test_prometheus_finds_exactly_the_managed_nodes_exporters(run, profile_repo, tmp_path):
    """gengpu's scrape job, run by a real Prometheus against a real API server: of two nodes, only the one AKS
    labels kubernetes.azure.com/dcgm-exporter=enabled is scraped, at its InternalIP on port 19400, with a node label;
    the series it serves arrive, and GPUExporterDown's job matches."""
    profile = profile_repo / "profiles" / FIXTURE_PROFILE
    profile.write_text(profile.read_text().replace("mode: service-monitor", "mode: scrape-config"))
    assert run("build", cwd=profile_repo).exit_code == 0
    secret, _ = yaml.safe_load_all((profile_repo / "overlays" / "aks-managed-gpu" / "monitoring.yaml").read_text())
    job, = yaml.safe_load(secret["stringData"]["prometheus-additional.yaml"])
    assert job["job_name"] == "nvidia-dcgm-exporter"

    try:  # AKS's exporter port is fixed; the managed node's InternalIP is this machine
        exporter = HTTPServer(("127.0.0.1", 19400), _Exporter)
    except OSError:
        pytest.fail("port 19400 on 127.0.0.1 is taken; the test plays AKS's exporter there")
    threading.Thread(target=exporter.serve_forever, args=(0.05,), daemon=True).start()
    server = apiserver.start(tmp_path / "api")
    prom = None
    try:
        client, api = server.client()
        core = client.CoreV1Api(api)
        for name, labels, ip in [
                ("aks-a100mig-0", {"kubernetes.azure.com/dcgm-exporter": "enabled", "gengpu.dev/pool": "a100-mig"},
                 "127.0.0.1"),
                ("aks-system-0", {"kubernetes.azure.com/mode": "system"}, "127.0.0.2")]:
            core.create_node({"metadata": {"name": name, "labels": labels}})
            core.patch_node_status(name, {"status": {"addresses": [{"type": "InternalIP", "address": ip}]}})
        # Prometheus runs outside the cluster here: tell its discovery where the API server is
        job["kubernetes_sd_configs"][0].update({"api_server": server.url, "tls_config": {"insecure_skip_verify": True},
                                                "authorization": {"credentials": apiserver.TOKEN}})
        job["scrape_interval"], job["scrape_timeout"] = "1s", "1s"
        prom = prometheus.serve(tmp_path / "prom", yaml.safe_dump({"scrape_configs": [job]}))
        deadline = time.monotonic() + 60
        while True:
            targets = _get(f"{prom.url}/api/v1/targets?state=active")["data"]["activeTargets"]
            up = [t for t in targets if t["health"] == "up"]
            if up or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        assert [(t["scrapeUrl"], t["labels"]["node"], t["labels"]["job"]) for t in targets] == [
            ("http://127.0.0.1:19400/metrics", "aks-a100mig-0", "nvidia-dcgm-exporter")]
        assert up, targets
        while True:
            result = _get(f"{prom.url}/api/v1/query?query=DCGM_FI_DEV_GPU_UTIL")["data"]["result"]
            if result or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        assert [(r["metric"]["node"], r["metric"]["modelName"], r["value"][1]) for r in result] == [
            ("aks-a100mig-0", "NVIDIA A100 80GB PCIe", "37")]
    finally:
        if prom:
            prom.stop()
        server.stop()
        exporter.shutdown()
        exporter.server_close()


def test_a_karpenter_pool_on_bottlerocket_has_its_own_device_plugin(run, tmp_path):
    """Bottlerocket's NVIDIA variants run NVIDIA's device plugin on the host (bottlerocket.dev
    settings.kubelet-device-plugins): no-device-plugin stays quiet there, and fires on the AL2023 alias."""
    (tmp_path / "profiles").mkdir()
    text = """\
apiVersion: gengpu.dev/v1alpha1
kind: GPUProfile
metadata:
  name: eks-br
spec:
  platform: eks
  region: us-east-1
  kubernetesVersion: "1.34"
  operator:
    enabled: false
  eks:
    amiAlias: ALIAS
  nodePools:
    - name: l4
      gpu: L4
      instanceTypes: [g6.xlarge]
      provisioner: karpenter
      limits: {nodes: 2}
  quotas: {L-DB2E81BA: 64}
  argocd:
    repoURL: https://github.com/example/gitops.git
"""
    profile = tmp_path / "profiles" / "eks-br.yaml"
    profile.write_text(text.replace("ALIAS", "bottlerocket@v1.54.0"))
    result = run("validate", "profiles/eks-br.yaml", cwd=tmp_path)
    assert result.exit_code == 0 and "no-device-plugin" not in result.output, result.output
    profile.write_text(text.replace("ALIAS", "al2023@v20260917"))
    result = run("validate", "profiles/eks-br.yaml", cwd=tmp_path)
    assert result.exit_code == 1 and "profiles/eks-br.yaml:14:13: error no-device-plugin" in result.output, \
        result.output


# A managed MIG node as AgentBaker's e2e expects one (e2e/scenario_gpu_managed_experience_test.go at 06836ee2,
# Standard_NC24ads_A100_v4 with MIG1g and Mixed: nvidia.com/mig-1g.10gb 7; the dcgm-exporter label; NPD's
# conditions as e2e/validators.go words them). No full paste of a real managed node was found (docs/research).
MANAGED_NODE = """\
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata:
    name: aks-a100mig-12345678-vmss000000
    labels:
      agentpool: a100mig
      kubernetes.azure.com/agentpool: a100mig
      kubernetes.azure.com/dcgm-exporter: enabled
      node.kubernetes.io/instance-type: Standard_NC24ads_A100_v4
      topology.kubernetes.io/region: eastus
  status:
    capacity: {cpu: "24", pods: "110", nvidia.com/mig-1g.10gb: "7"}
    allocatable: {cpu: "23", pods: "110", nvidia.com/mig-1g.10gb: "ALLOCATABLE"}
    nodeInfo: {kubeletVersion: v1.34.2}
    conditions:
    - {type: Ready, status: "True", reason: KubeletReady}
    - {type: UnhealthyNvidiaDevicePlugin, status: "False", reason: HealthyNvidiaDevicePlugin,
       message: NVIDIA device plugin is running properly}
    - {type: UnhealthyNvidiaDCGMServices, status: "False", reason: HealthyNvidiaDCGMServices,
       message: NVIDIA DCGM services are running properly}
"""


def test_importing_a_managed_node_gives_a_managed_profile_that_checks_it(run, tmp_path):
    (tmp_path / "nodes.yaml").write_text(MANAGED_NODE.replace("ALLOCATABLE", "7"))
    imported = run("import", "--snapshot", "nodes.yaml", "--name", "adopted", "-o", "adopted.yaml", cwd=tmp_path)
    assert imported.exit_code == 0, imported.output
    spec = yaml.safe_load((tmp_path / "adopted.yaml").read_text())["spec"]
    assert (spec["operator"], spec["aks"]) == ({"enabled": False}, {"managedGpu": True})
    assert spec["nodePools"][0]["sharing"] == {"mode": "mig", "mig": {"strategy": "mixed",
                                                                      "layout": {"1g.10gb": 7}}}
    assert "suppress" not in spec  # AKS runs the plugin: nothing to excuse
    checked = run("check", "adopted.yaml", "--snapshot", "nodes.yaml", cwd=tmp_path)
    assert checked.exit_code == 0, checked.output
    # the managed plugin stopped (systemctl stop nvidia-device-plugin: allocatable 0) is caught, with the fix
    (tmp_path / "nodes.yaml").write_text(MANAGED_NODE.replace("ALLOCATABLE", "0"))
    checked = run("check", "adopted.yaml", "--snapshot", "nodes.yaml", cwd=tmp_path)
    assert checked.exit_code == 1 and "node-device-plugin-down" in checked.output, checked.output
    assert "systemctl status nvidia-device-plugin" in checked.output


def test_importing_a_cluster_with_its_own_device_plugin_says_so(run, tmp_path):
    """NVIDIA's time-slicing walkthrough (a standalone device plugin, no operator): the imported profile suppresses
    no-device-plugin with the reason, instead of calling the cluster it came from broken."""
    state = REPO / "tests" / "live-corpus" / "states" / "docs-gpu-sharing-t4-time-slicing-4x4.txt"
    (tmp_path / state.name).write_text(state.read_text())
    imported = run("import", "--snapshot", state.name, "--name", "adopted", "-o", "p.yaml", cwd=tmp_path)
    assert imported.exit_code == 0, imported.output
    spec = yaml.safe_load((tmp_path / "p.yaml").read_text())["spec"]
    assert spec["operator"] == {"enabled": False}
    pool = spec["nodePools"][0]["name"]
    assert spec["suppress"] == [{
        "rule": "no-device-plugin", "pools": [pool],
        "reason": "imported from a cluster whose nodes show NVIDIA's device plugin or GPU Feature Discovery without "
                  "the GPU Operator: it runs a device plugin of its own, which gengpu does not install"}]


GPU_CLIENT = """\
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: gpu-agent, namespace: monitoring}
spec:
  selector: {matchLabels: {app: gpu-agent}}
  template:
    metadata: {labels: {app: gpu-agent}}
    spec:
      nodeSelector: {nvidia.com/gpu.deploy.client: "true"}
      containers: [{name: agent, image: registry.example.com/gpu-agent:1.0}]
"""


def test_a_gpu_client_daemonset_on_managed_pools_runs_nowhere(run, profile_repo):
    """NVIDIA's v26.7.0 release notes tell users to put nvidia.com/gpu.deploy.client=true in a GPU client's
    nodeSelector; only the GPU Operator (ClusterPolicy mode) sets that label, and this profile runs none."""
    (profile_repo / "agent.yaml").write_text(GPU_CLIENT)
    result = run("validate", "--profile", "profiles/" + FIXTURE_PROFILE, "agent.yaml", "--output", "json",
                 cwd=profile_repo)
    assert result.exit_code == 1, result.output
    assert [(f["line"], f["column"], f["rule"], f["message"]) for f in json.loads(result.output)["findings"]] == [
        (9, 52, "gpu-client-label-unset", "DaemonSet gpu-agent selects nvidia.com/gpu.deploy.client, but profile "
         "aks-managed-gpu runs no GPU Operator (spec.operator.enabled: false), and only the operator sets it; its pods "
         "run on no node")]
    # the same DaemonSet beside a profile that runs the operator's ClusterPolicy (v26.7.0) is what NVIDIA describes
    clean = run("validate", "--profile", str(REPO / "profiles" / "eks-l4-mps.yaml"), "agent.yaml", cwd=profile_repo)
    assert "gpu-client" not in clean.output, clean.output
