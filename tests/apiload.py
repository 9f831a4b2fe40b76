"""A large cluster in a real API server, for scripts/bench: GPU nodes as a real node answers a LIST (GPU Feature
Discovery's and the cloud's labels, the kubelet's annotations, images, addresses, node info; managedFields written
by the server) and GPU pods as a scheduler and kubelet leave them, created over several connections at once."""

from __future__ import annotations

import gzip
import http.client
import json
import ssl
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlparse

import yaml

from apiserver import REPO, TOKEN

# GPU Feature Discovery's labels on an H100 node (k8s-device-plugin v0.17 docs/gpu-feature-discovery, labels of
# a p5.48xlarge as `kubectl get node -o yaml` shows them) and the cloud's: what a real node answer carries
_REAL_LABELS = {
    "beta.kubernetes.io/arch": "amd64", "beta.kubernetes.io/instance-type": "p5.48xlarge",
    "beta.kubernetes.io/os": "linux", "failure-domain.beta.kubernetes.io/region": "us-east-1",
    "failure-domain.beta.kubernetes.io/zone": "us-east-1a", "kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux",
    "node.kubernetes.io/instance-type": "p5.48xlarge", "topology.kubernetes.io/region": "us-east-1",
    "topology.kubernetes.io/zone": "us-east-1a", "karpenter.k8s.aws/instance-category": "p",
    "karpenter.k8s.aws/instance-family": "p5", "karpenter.k8s.aws/instance-generation": "5",
    "karpenter.k8s.aws/instance-gpu-count": "8", "karpenter.k8s.aws/instance-gpu-manufacturer": "nvidia",
    "karpenter.k8s.aws/instance-gpu-memory": "81920", "karpenter.k8s.aws/instance-gpu-name": "h100",
    "karpenter.sh/capacity-type": "on-demand", "karpenter.sh/initialized": "true", "karpenter.sh/registered": "true",
    "nvidia.com/cuda.driver.major": "580", "nvidia.com/cuda.driver.minor": "95", "nvidia.com/cuda.driver.rev": "05",
    "nvidia.com/cuda.runtime.major": "13", "nvidia.com/cuda.runtime.minor": "0", "nvidia.com/gfd.timestamp": "1764000000",
    "nvidia.com/gpu.compute.major": "9", "nvidia.com/gpu.compute.minor": "0", "nvidia.com/gpu.family": "hopper",
    "nvidia.com/gpu.machine": "p5.48xlarge", "nvidia.com/gpu.memory": "81559", "nvidia.com/gpu.mode": "compute",
    "nvidia.com/gpu-driver-upgrade-state": "upgrade-done", "nvidia.com/mig.capable": "true",
    "nvidia.com/mps.capable": "false", "nvidia.com/vgpu.present": "false",
    # the GPU Operator's component labels
    **{f"nvidia.com/gpu.deploy.{c}": "true" for c in ("container-toolkit", "dcgm", "dcgm-exporter", "device-plugin",
                                                      "driver", "gpu-feature-discovery", "node-status-exporter",
                                                      "operator-validator")},
}
_ANNOTATIONS = {
    "alpha.kubernetes.io/provided-node-ip": "10.0.12.34", "karpenter.k8s.aws/ec2nodeclass-hash": "1234567890123456789",
    "karpenter.sh/nodepool-hash": "9876543210987654321", "node.alpha.kubernetes.io/ttl": "0",
    "nfd.node.kubernetes.io/feature-labels": ",".join(f"feature.node.kubernetes.io/cpu-cpuid.{f}" for f in
                                                      ("AVX", "AVX2", "AVX512F", "AMXBF16", "AMXINT8", "FMA3")),
    "volumes.kubernetes.io/controller-managed-attach-detach": "true",
}
_IMAGES = [{"names": [f"nvcr.io/nvidia/{name}@sha256:{i:064x}", f"nvcr.io/nvidia/{name}:v{i}.0.0"],
            "sizeBytes": 1_000_000_000 + i} for i, name in enumerate(
    ("gpu-operator", "k8s-device-plugin", "dcgm-exporter", "k8s-driver-manager", "container-toolkit", "driver",
     "gpu-feature-discovery", "cuda", "pytorch", "tritonserver", "nemo", "vllm-openai", "node-exporter", "kube-proxy",
     "aws-node", "ebs-csi-node", "coredns", "pause", "fluent-bit", "cloudwatch-agent"))]


def real_node(node: dict, index: int) -> dict:
    """A snapshot's node as the API server answers for a real one: the same verdict-bearing fields, and the bulk."""
    body = json.loads(json.dumps(node))
    labels = body["metadata"].get("labels") or {}
    real = _REAL_LABELS if "nvidia.com/gpu.present" in labels else {
        k: v for k, v in _REAL_LABELS.items() if not k.startswith(("nvidia.com/", "karpenter.k8s.aws/instance-gpu"))}
    body["metadata"]["labels"] = {**real, **labels}
    body["metadata"]["annotations"] = dict(_ANNOTATIONS)
    body.setdefault("spec", {})["providerID"] = f"aws:///us-east-1a/i-{index:017x}"
    body["spec"]["podCIDR"] = f"10.{index // 256 % 256}.{index % 256}.0/24"
    status = body.setdefault("status", {})
    status["conditions"] = [
        {"type": t, "status": "False", "reason": f"Kubelet{r}", "message": f"kubelet has {m}",
         "lastHeartbeatTime": "2026-12-04T10:00:00Z", "lastTransitionTime": "2026-12-01T10:00:00Z"}
        for t, r, m in (("MemoryPressure", "HasSufficientMemory", "sufficient memory available"),
                        ("DiskPressure", "HasNoDiskPressure", "no disk pressure"),
                        ("PIDPressure", "HasSufficientPID", "sufficient PID available"))] + [
        dict(c, lastHeartbeatTime="2026-12-04T10:00:00Z", lastTransitionTime="2026-12-01T10:00:00Z",
             message="kubelet is posting ready status") for c in status["conditions"]]
    status["addresses"] = [{"type": "InternalIP", "address": f"10.0.{index // 256 % 256}.{index % 256}"},
                           {"type": "Hostname", "address": body["metadata"]["name"]},
                           {"type": "InternalDNS", "address": f"ip-10-0-{index % 256}.ec2.internal"}]
    status["daemonEndpoints"] = {"kubeletEndpoint": {"Port": 10250}}
    status["nodeInfo"] = {"architecture": "amd64", "bootID": f"{index:08x}-0000-4000-8000-000000000000",
                          "containerRuntimeVersion": "containerd://1.7.27", "kernelVersion": "6.1.141-155.222.amzn2023",
                          "kubeProxyVersion": "v1.34.2", "kubeletVersion": "v1.34.2-eks-0000000",
                          "machineID": f"{index:032x}", "operatingSystem": "linux",
                          "osImage": "Amazon Linux 2023.8.20250808", "systemUUID": f"ec2{index:029x}"}
    status["images"] = _IMAGES
    return body


def real_pod(pod: dict) -> dict:
    body = json.loads(json.dumps(pod))
    main = body["spec"]["containers"][0]
    main.update({"command": ["torchrun"], "args": ["--nproc_per_node=1", "train.py", "--epochs=90"],
                 "env": [{"name": f"VAR_{i}", "value": "x" * 40} for i in range(12)],
                 "volumeMounts": [{"name": "data", "mountPath": "/data"}, {"name": "shm", "mountPath": "/dev/shm"}],
                 "imagePullPolicy": "IfNotPresent"})
    body["spec"]["volumes"] = [{"name": "data", "emptyDir": {}}, {"name": "shm", "emptyDir": {"medium": "Memory"}}]
    body["spec"]["restartPolicy"] = "Never"
    body["metadata"]["ownerReferences"][0]["uid"] = "00000000-0000-0000-0000-000000000000"
    return body


class Loader:
    """POSTs (and status PATCHes) over `workers` keep-alive HTTPS connections to the server at url."""

    def __init__(self, url: str, workers: int = 8):
        self.url, self.workers = urlparse(url), workers
        self.local = threading.local()

    def _conn(self) -> http.client.HTTPSConnection:
        if getattr(self.local, "conn", None) is None:
            self.local.conn = http.client.HTTPSConnection(self.url.hostname, self.url.port, timeout=60,
                                                          context=ssl._create_unverified_context())
        return self.local.conn

    def _send(self, method: str, path: str, body: dict, content: str = "application/json") -> None:
        data = json.dumps(body).encode()
        for attempt in (1, 2):
            conn = self._conn()
            try:
                conn.request(method, path, data, {"Authorization": f"Bearer {TOKEN}", "Content-Type": content})
                answer = conn.getresponse()
                text = answer.read()
                if answer.status >= 300 and answer.status != 409:
                    raise RuntimeError(f"{method} {path}: {answer.status} {text[:300]!r}")
                return
            except (http.client.HTTPException, OSError):
                self.local.conn = None
                if attempt == 2:
                    raise

    def create(self, path: str, bodies: list[dict], status: bool = False) -> None:
        def one(body: dict) -> None:
            self._send("POST", path.format(ns=body["metadata"].get("namespace", "")), body)
            if status and body.get("status"):
                item = path.format(ns=body["metadata"].get("namespace", "")) + "/" + body["metadata"]["name"]
                self._send("PATCH", item + "/status", {"status": body["status"]}, "application/merge-patch+json")

        with ThreadPoolExecutor(self.workers) as pool:
            list(pool.map(one, bodies))


def load(url: str, snapshot: dict, pods: list[dict], namespace: str = "ml") -> None:
    """Every object of snapshot (nodes with the bulk of a real one; the operator's ClusterPolicy and ConfigMap) and
    every pod, with their status, into the server."""
    loader = Loader(url)
    for name in ("nvidia.com_clusterpolicies.yaml", "nvidia.com_nvidiadrivers.yaml"):
        raw = (REPO / "schemas" / "upstream" / "NVIDIA" / "gpu-operator" / "deployments" / "gpu-operator" / "crds" /
               f"{name}.gz").read_bytes()
        loader._send("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", yaml.safe_load(gzip.decompress(raw)))
    loader._send("POST", "/api/v1/namespaces", {"metadata": {"name": namespace}})
    for item in snapshot["items"]:
        if item["kind"] == "ConfigMap":
            loader._send("POST", "/api/v1/namespaces", {"metadata": {"name": item["metadata"]["namespace"]}})
            loader._send("POST", f"/api/v1/namespaces/{item['metadata']['namespace']}/configmaps", item)
        elif item["kind"] == "ClusterPolicy":
            for attempt in range(50):  # the CRD is served a moment after it is created
                try:
                    loader.create("/apis/nvidia.com/v1/clusterpolicies", [item], status=True)
                    break
                except RuntimeError:
                    if attempt == 49:
                        raise
                    time.sleep(0.2)
    nodes = [real_node(n, i) for i, n in enumerate(i for i in snapshot["items"] if i["kind"] == "Node")]
    loader.create("/api/v1/nodes", nodes, status=True)
    loader.create("/api/v1/namespaces/{ns}/pods", [real_pod(p) for p in pods], status=True)


if __name__ == "__main__":
    # python tests/apiload.py URL PROFILE NODES_PER_POOL: the loading in a process of its own, so that a bench
    # measuring gengpu's peak memory does not count the loader's objects in the children it forks
    import sys
    from pathlib import Path

    import snapshots

    url, profile, count = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
    snap = snapshots.healthy(profile.read_text(), per_pool=count)
    load(url, snap, snapshots.gpu_pods(snap, 3))
