"""`gengpu snapshot` and `gengpu check --context` against a real API server (kube-apiserver and etcd, built at
pinned versions into ./bin): nodes created and their status set through the status subresource, the GPU
Operator's ClusterPolicy CRD (vendored, v26.7.0) installed, and the read-only role gengpu generates applied."""

import gzip
import json
import re
import time

import pytest
import yaml

import apiserver
import snapshots

REPO = apiserver.REPO
# the test server's self-signed certificate (the kubeconfig says insecure-skip-tls-verify)
pytestmark = pytest.mark.filterwarnings("ignore::urllib3.exceptions.InsecureRequestWarning")
MPS = REPO / "profiles" / "eks-l4-mps.yaml"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    server = apiserver.start(tmp_path_factory.mktemp("apiserver"))
    client, api = server.client()
    ext = client.ApiextensionsV1Api(api)
    for name in ("nvidia.com_clusterpolicies.yaml", "nvidia.com_nvidiadrivers.yaml"):
        raw = (REPO / "schemas" / "upstream" / "NVIDIA" / "gpu-operator" / "deployments" / "gpu-operator" / "crds" /
               f"{name}.gz").read_bytes()
        ext.create_custom_resource_definition(yaml.safe_load(gzip.decompress(raw)))
    core = client.CoreV1Api(api)
    core.create_namespace({"metadata": {"name": "gpu-operator"}})
    yield server, client, api
    server.stop()


def _apply(client, api, snap: dict) -> None:
    """Every object of a snapshot into the cluster: spec first, then status through its subresource, as the kubelet,
    the device plugin and the operator set it."""
    core, custom = client.CoreV1Api(api), client.CustomObjectsApi(api)
    for item in snap["items"]:
        body = {k: v for k, v in item.items() if k != "status"}
        status = item.get("status")
        if item["kind"] == "Node":
            try:
                core.delete_node(item["metadata"]["name"])
            except client.exceptions.ApiException:
                pass
            core.create_node(body)
            if status:
                core.patch_node_status(item["metadata"]["name"], {"status": status})
        elif item["kind"] == "ConfigMap":
            core.create_namespaced_config_map(item["metadata"]["namespace"], body)
        elif item["kind"] == "ClusterPolicy":
            custom.create_cluster_custom_object("nvidia.com", "v1", "clusterpolicies", body)
            if status:
                custom.patch_cluster_custom_object_status("nvidia.com", "v1", "clusterpolicies",
                                                          item["metadata"]["name"], {"status": status})


def _reset(client, api) -> None:
    core, custom = client.CoreV1Api(api), client.CustomObjectsApi(api)
    for node in core.list_node().items:
        core.delete_node(node.metadata.name)
    for cm in core.list_namespaced_config_map("gpu-operator").items:
        core.delete_namespaced_config_map(cm.metadata.name, "gpu-operator")
    for cp in custom.list_cluster_custom_object("nvidia.com", "v1", "clusterpolicies")["items"]:
        custom.delete_cluster_custom_object("nvidia.com", "v1", "clusterpolicies", cp["metadata"]["name"])


def _check(run, tmp_path, server, monkeypatch, context="admin", *more):
    import shutil

    monkeypatch.setenv("KUBECONFIG", str(server.kubeconfig))
    shutil.copy(MPS, tmp_path / MPS.name)
    return run("check", MPS.name, "--context", context, "--output", "json", *more, cwd=tmp_path)


def test_a_healthy_cluster_live_and_its_snapshot_agree(cluster, run, tmp_path, monkeypatch):
    server, client, api = cluster
    _reset(client, api)
    _apply(client, api, snapshots.healthy(MPS.read_text()))
    result = _check(run, tmp_path, server, monkeypatch)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["findings"] == []
    snap = run("snapshot", "--context", "admin", "-o", "snap.json", cwd=tmp_path)
    assert snap.exit_code == 0, snap.output
    captured = json.loads((tmp_path / "snap.json").read_text())
    assert (captured["apiVersion"], captured["kind"]) == ("v1", "List")
    assert [(i["apiVersion"], i["metadata"]["name"]) for i in captured["items"] if i["kind"] == "ConfigMap"] == \
        [("v1", "gengpu-device-plugin-config")]
    assert sorted((i["apiVersion"], i["metadata"]["name"]) for i in captured["items"] if i["kind"] == "Node") == \
        [("v1", "l4-mps-0"), ("v1", "l4-mps-1"), ("v1", "system-0")]  # (the core group's apiVersion is "v1")
    assert not any(i["kind"] == "Secret" for i in captured["items"])
    offline = run("check", MPS.name, "--snapshot", "snap.json", "--output", "json", cwd=tmp_path)
    assert (offline.exit_code, json.loads(offline.stdout)["findings"]) == (0, [])


def test_a_capture_keeps_one_object_per_line_and_needs_no_generated_api(cluster, tmp_path):
    """The snapshot file is a v1 List with one object per line (written chunk by chunk, never held twice as one
    text), read back whole; and the capture reads the API server without importing the client's generated API
    classes and models (their import took longer than reading 1,000 nodes). The pods that ask for no GPU, a page
    at a time, are left out."""
    import os
    import subprocess
    import sys

    server, client, api = cluster
    _reset(client, api)
    _apply(client, api, snapshots.healthy(MPS.read_text()))
    core = client.CoreV1Api(api)
    pods = [{"metadata": {"name": f"web-{i}", "namespace": "default"},
             "spec": {"containers": [{"name": "c", "image": "nginx"}]}} for i in range(3)]
    pods.append({"metadata": {"name": "trainer", "namespace": "default"},
                 "spec": {"containers": [{"name": "c", "image": "nvcr.io/nvidia/pytorch:25.01-py3",
                                          "resources": {"limits": {"nvidia.com/gpu": "1"}}}]}})
    for pod in pods:
        core.create_namespaced_pod("default", pod)
    try:
        script = ("import json, sys; from gengpu.live import kube; kube.PAGE = 2; "
                  "objects, captured, notes = kube.capture('admin', progress_to_terminal=False); "
                  "sys.stdout.write(''.join(kube.list_chunks(kube.as_list(objects, captured, notes, 'context admin'))));"
                  "sys.stderr.write(json.dumps(sorted(m for m in sys.modules if m.startswith('kubernetes.client.'))))")
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path,
                              env={**os.environ, "KUBECONFIG": str(server.kubeconfig)}, check=True)
        lines = done.stdout.splitlines()
        data = json.loads(done.stdout)
        assert len(lines) == len(data["items"]) + 2
        assert [json.loads(line.rstrip(",")) for line in lines[1:-1]] == data["items"]
        assert lines[0].startswith('{"apiVersion": "v1", "kind": "List", "metadata": {"annotations": '
                                   '{"gengpu.dev/snapshot-of": "context admin"')
        assert [i["metadata"]["name"] for i in data["items"] if i["kind"] == "Pod"] == ["trainer"]
        assert sorted(i["metadata"]["name"] for i in data["items"] if i["kind"] == "Node") == \
            ["l4-mps-0", "l4-mps-1", "system-0"]
        imported = json.loads(done.stderr.strip().splitlines()[-1])
        assert [m for m in imported if m.startswith(("kubernetes.client.api.", "kubernetes.client.models."))] == []
    finally:
        for pod in pods:
            core.delete_namespaced_pod(pod["metadata"]["name"], "default", grace_period_seconds=0)


def test_drift_on_a_live_cluster_is_found_at_the_node(cluster, run, tmp_path, monkeypatch):
    """The same classes as the snapshot tests, through the API server: sharing that did not apply, an unhealthy
    GPU, a node that is not Ready, and the operator not ready."""
    server, client, api = cluster
    _reset(client, api)
    snap = snapshots.healthy(MPS.read_text())
    first, second = snapshots.find(snap, "l4-mps-0"), snapshots.find(snap, "l4-mps-1")
    first["status"]["capacity"]["nvidia.com/gpu"] = first["status"]["allocatable"]["nvidia.com/gpu"] = "1"
    second["status"]["allocatable"]["nvidia.com/gpu"] = "3"
    second["status"]["conditions"] = [{"type": "Ready", "status": "False", "reason": "KubeletNotReady"}]
    snapshots.find(snap, "cluster-policy")["status"] = {"state": "notReady"}
    _apply(client, api, snap)
    result = _check(run, tmp_path, server, monkeypatch)
    findings = json.loads(result.stdout)["findings"]
    assert result.exit_code == 1
    assert sorted((f["file"], f["rule"], f["message"]) for f in findings) == [
        ("context admin", "operator-not-ready", "ClusterPolicy cluster-policy is notReady, not ready"),
        ("eks-l4-mps.yaml", "node-gpus-not-advertised", "node l4-mps-0 (pool l4-mps): nvidia.com/gpu is 1, one per "
         "GPU, the profile promises 4 (1 GPU(s) x 4 mps replicas): the sharing config did not apply"),
        ("eks-l4-mps.yaml", "node-gpus-unhealthy", "node l4-mps-1 (pool l4-mps): 1 of 4 nvidia.com/gpu are unhealthy "
         "(allocatable 3 < capacity 4)"),
        ("eks-l4-mps.yaml", "node-not-ready", "node l4-mps-1 (pool l4-mps): is not Ready (Ready is False) "
         "(KubeletNotReady)")]


def test_the_generated_read_only_role_is_enough_and_nothing_else_is(cluster, run, tmp_path, monkeypatch):
    """The gengpu-check ServiceAccount, ClusterRole and Role of the overlay, applied: a check as that account passes
    (it reads every kind it needs); as an account without them, listing nodes is refused and gengpu says so."""
    server, client, api = cluster
    _reset(client, api)
    _apply(client, api, snapshots.healthy(MPS.read_text()))
    rbac, core = client.RbacAuthorizationV1Api(api), client.CoreV1Api(api)
    for doc in yaml.safe_load_all((REPO / "overlays" / "eks-l4-mps" / "gengpu-check-rbac.yaml").read_text()):
        kind, ns = doc["kind"], doc["metadata"].get("namespace")
        create = {"ServiceAccount": lambda d: core.create_namespaced_service_account(ns, d),
                  "ClusterRole": rbac.create_cluster_role, "ClusterRoleBinding": rbac.create_cluster_role_binding,
                  "Role": lambda d: rbac.create_namespaced_role(ns, d),
                  "RoleBinding": lambda d: rbac.create_namespaced_role_binding(ns, d)}[kind]
        create({k: v for k, v in doc.items() if k not in ("apiVersion", "kind")} | {"metadata": {
            k: v for k, v in doc["metadata"].items() if k != "annotations"}})
    server.add_service_account_context("gpu-operator", "gengpu-check")
    server.add_service_account_context("default", "nobody")
    allowed = _check(run, tmp_path, server, monkeypatch, "gengpu-check")
    assert (allowed.exit_code, json.loads(allowed.stdout)["findings"]) == (0, [])
    refused = _check(run, tmp_path, server, monkeypatch, "nobody")
    assert refused.exit_code == 2
    assert refused.output.splitlines()[-1] == ("gengpu: error: cannot list nodes: forbidden (RBAC); `kubectl auth "
                                               "can-i list nodes` tells, and gengpu's gengpu-check ClusterRole grants it")


def test_a_capture_that_may_list_only_nodes_says_each_list_it_could_not_read(cluster, run, tmp_path, monkeypatch):
    """An account allowed to list nodes and nothing else: the snapshot holds the nodes, and says, kind by kind, each
    list the API server refused and why, so a check of it knows what it did not see."""
    server, client, api = cluster
    _reset(client, api)
    _apply(client, api, snapshots.healthy(MPS.read_text()))
    rbac = client.RbacAuthorizationV1Api(api)
    rbac.create_cluster_role({"metadata": {"name": "nodes-only"},
                              "rules": [{"apiGroups": [""], "resources": ["nodes"], "verbs": ["list", "get"]}]})
    rbac.create_cluster_role_binding({"metadata": {"name": "nodes-only"},
                                      "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                                                  "name": "nodes-only"},
                                      "subjects": [{"kind": "ServiceAccount", "name": "nodes-only",
                                                    "namespace": "default"}]})
    try:
        server.add_service_account_context("default", "nodes-only")
        monkeypatch.setenv("KUBECONFIG", str(server.kubeconfig))
        result = run("snapshot", "--context", "nodes-only", "-o", "snap.json", cwd=tmp_path)
        assert result.exit_code == 0, result.output
        snap = json.loads((tmp_path / "snap.json").read_text())
        assert sorted(i["metadata"]["name"] for i in snap["items"]) == ["l4-mps-0", "l4-mps-1", "system-0"]
        # (every list but the nodes' is refused: the role grants nothing else; the API server checks RBAC before it
        # looks for the kind, so a kind it does not serve is refused alike)
        assert snap["metadata"]["annotations"]["gengpu.dev/not-read"].split("; ") == [
            f"{kind}: forbidden (RBAC)" for kind in (
                "ClusterPolicy (nvidia.com/v1)", "NVIDIADriver (nvidia.com/v1alpha1)",
                "GPUCluster (nvidia.com/v1alpha1)", "ResourceSlice (resource.k8s.io/v1)",
                "DeviceClass (resource.k8s.io/v1)", "ResourceClaim (resource.k8s.io/v1)", "NodePool (karpenter.sh/v1)",
                "NodeClaim (karpenter.sh/v1)", "ComputeDomain (resource.nvidia.com/v1beta1)",
                "DeviceTaintRule (resource.k8s.io/v1alpha3)", "Pod (v1)", "DaemonSet (apps/v1)", "Event (v1)",
                "ConfigMap gpu-operator/gengpu-device-plugin-config", "ConfigMap gpu-operator/gengpu-mig-parted-config")]
    finally:
        rbac.delete_cluster_role_binding("nodes-only")
        rbac.delete_cluster_role("nodes-only")


def test_an_unreachable_api_server_or_an_unknown_context(cluster, run, tmp_path, monkeypatch):
    server, client, api = cluster
    unreachable = _check(run, tmp_path, server, monkeypatch, "unreachable")
    assert unreachable.exit_code == 2
    said = unreachable.output.splitlines()[-1]
    # (the first line of why, from the connection: nothing listens at the context's port)
    assert said.startswith("gengpu: error: cannot reach the API server of context 'unreachable': ") and \
        said.endswith("Failed to establish a new connection: [Errno 111] Connection refused"), said
    unknown = _check(run, tmp_path, server, monkeypatch, "no-such-context")
    assert unknown.exit_code == 2
    assert unknown.output.splitlines()[-1].startswith("gengpu: error: cannot use context 'no-such-context' of the "
                                                      "kubeconfig: ")


def test_rightsize_reads_the_pools_of_a_live_clusters_nodes(cluster, run, tmp_path, monkeypatch):
    """`gengpu rightsize --context`: the nodes (and so the pools) come from the API server, the figures from a
    recording; the proposal is the one the snapshot file gives."""
    import shutil

    import dcgm_samples

    server, client, api = cluster
    _reset(client, api)
    usage = REPO / "tests" / "usage"
    _apply(client, api, yaml.safe_load((usage / "snapshot.yaml").read_text()))
    shutil.copy(usage / "gke-a100.yaml", tmp_path / "gke-a100.yaml")
    (tmp_path / "gpus.om").write_text(dcgm_samples.openmetrics(dcgm_samples.a100_fleet(), step=300))
    monkeypatch.setenv("KUBECONFIG", str(server.kubeconfig))
    live = run("rightsize", "gke-a100.yaml", "--context", "admin", "--metrics", "gpus.om", "--output", "json",
               cwd=tmp_path)
    assert live.exit_code == 0, live.output
    shutil.copy(usage / "snapshot.yaml", tmp_path / "snap.yaml")
    offline = run("rightsize", "gke-a100.yaml", "--snapshot", "snap.yaml", "--metrics", "gpus.om", "--output", "json",
                  cwd=tmp_path)
    assert json.loads(live.stdout)["recommendations"] == json.loads(offline.stdout)["recommendations"]
    assert [r["verdict"] for r in json.loads(live.stdout)["recommendations"]] == ["mig", "keep"]


def test_a_snapshot_keeps_what_the_checks_read_and_no_secret(cluster, run, tmp_path, monkeypatch):
    """A GPU pod with env values, args and an annotation, and a node annotation, in the real API server: the
    snapshot file holds none of them (only what the checks read), and is readable by its owner only."""
    import os
    import stat

    server, client, api = cluster
    _reset(client, api)
    snap = snapshots.healthy(MPS.read_text())
    snapshots.find(snap, "l4-mps-0")["metadata"]["annotations"] = {"example.com/token": "node-secret"}
    _apply(client, api, snap)
    core = client.CoreV1Api(api)
    pod = {"metadata": {"name": "trainer", "namespace": "default", "annotations": {"example.com/token": "pod-secret"}},
           "spec": {"containers": [{"name": "c", "image": "nvcr.io/nvidia/pytorch:25.01-py3",
                                    "command": ["python", "--password=cmd-secret"], "args": ["--key=arg-secret"],
                                    "env": [{"name": "HF_TOKEN", "value": "env-secret"}],
                                    "resources": {"limits": {"nvidia.com/gpu": "1"}}}],
                    "nodeSelector": {"gengpu.dev/pool": "l4-mps"}}}
    core.create_namespaced_pod("default", pod)
    try:
        monkeypatch.setenv("KUBECONFIG", str(server.kubeconfig))
        result = run("snapshot", "--context", "admin", "-o", "snap.json", cwd=tmp_path)
        assert result.exit_code == 0, result.output
        text = (tmp_path / "snap.json").read_text()
        assert [s for s in ("node-secret", "pod-secret", "cmd-secret", "arg-secret", "env-secret") if s in text] == []
        items = json.loads(text)["items"]
        kept = next(i for i in items if i["kind"] == "Pod")
        # (the API server fills requests from limits, and default tolerations)
        assert kept["spec"]["containers"] == [{"name": "c", "image": "nvcr.io/nvidia/pytorch:25.01-py3", "resources": {
            "limits": {"nvidia.com/gpu": "1"}, "requests": {"nvidia.com/gpu": "1"}}}]
        assert sorted(kept["spec"]) == ["containers", "nodeSelector", "schedulerName", "tolerations"]
        assert "annotations" not in kept["metadata"]
        assert stat.S_IMODE(os.stat(tmp_path / "snap.json").st_mode) == 0o600
        import shutil

        shutil.copy(MPS, tmp_path / MPS.name)
        offline = run("check", MPS.name, "--snapshot", "snap.json", "--output", "json", cwd=tmp_path)
        assert (offline.exit_code, json.loads(offline.stdout)["findings"]) == (0, [])
    finally:
        core.delete_namespaced_pod("trainer", "default", grace_period_seconds=0)


def _context(server, name: str, url: str | None = None, token: str | None = None) -> None:
    """A kubeconfig context to the same API server (or another URL), as a given token or the admin's."""
    config = yaml.safe_load(server.kubeconfig.read_text())
    admin = next(u for u in config["users"] if u["name"] == next(
        c for c in config["contexts"] if c["name"] == "admin")["context"]["user"])
    cluster = {"name": name, "cluster": {"server": url}} if url else None
    if cluster:
        config["clusters"].append(cluster)
    config["contexts"].append({"name": name, "context": {"cluster": name if url else "test", "user": name}})
    config["users"].append({"name": name, "user": {"token": token or admin["user"]["token"]}})
    server.kubeconfig.write_text(yaml.safe_dump(config))


def test_a_rejected_token_is_not_called_rbac(cluster, run, tmp_path, monkeypatch):
    server, client, api = cluster
    _context(server, "stale", token="not-a-token")
    result = _check(run, tmp_path, server, monkeypatch, "stale")
    assert (result.exit_code, result.output.splitlines()[-1]) == (
        2, "gengpu: error: cannot list nodes: credentials rejected (401: the token or certificate of the kubeconfig is "
           "expired or wrong; log in again)")


@pytest.mark.parametrize("slow", [False, True], ids=["expired", "slow"])
def test_an_expired_continue_token_restarts_the_list(cluster, run, tmp_path, monkeypatch, slow):
    """A proxy in front of the real API server answers the first page that carries a continue token with 410 Gone, as
    a server does after compacting the revision the list reads: the list starts again and finds every node once.
    Every request asks for JSON as gengpu, with the context's token, at the server's paths (its URL written with a
    trailing slash, as kubeconfigs often are)."""
    import http.server
    import ssl
    import threading
    import urllib.request

    server, client, api = cluster
    _reset(client, api)
    _apply(client, api, snapshots.healthy(MPS.read_text()))
    gone, asked = [], []

    class Proxy(http.server.BaseHTTPRequestHandler):
        delay = 0.0

        def do_GET(self):  # noqa: N802
            asked.append((self.path, self.headers["Accept"], self.headers["User-Agent"], self.headers["Authorization"]))
            time.sleep(self.delay)
            if "continue=" in self.path and not gone:
                gone.append(self.path)
                body = json.dumps({"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "Expired",
                                   "message": "The provided continue parameter is too old", "code": 410}).encode()
                self.send_response(410)
            else:
                request = urllib.request.Request(server.url + self.path, headers={
                    "Authorization": self.headers["Authorization"], "Accept": "application/json"})
                try:
                    with urllib.request.urlopen(request, context=ssl._create_unverified_context()) as answer:
                        body, code = answer.read(), answer.status
                except urllib.error.HTTPError as e:
                    body, code = e.read(), e.code
                self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    Proxy.delay = 0.4 if slow else 0.0
    proxy = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Proxy)
    threading.Thread(target=proxy.serve_forever, args=(0.05,), daemon=True).start()
    try:
        name = "slow" if slow else "compacting"
        _context(server, name, url=f"http://127.0.0.1:{proxy.server_address[1]}/")
        monkeypatch.setattr("gengpu.live.kube.PAGE", 1)  # a continue token after every node
        if slow:  # every page within its own 30 s, but not all of them within the capture's 1 s
            monkeypatch.setenv("GENGPU_KUBE_DEADLINE", "1")
        result = _check(run, tmp_path, server, monkeypatch, name)
    finally:
        proxy.shutdown()
        proxy.server_close()
    if slow:
        assert (result.exit_code, result.output.splitlines()[-1]) == (
            2, "gengpu: error: the capture did not finish within 1 s (GENGPU_KUBE_DEADLINE sets the limit); the API "
               "server is slow to answer, or the cluster larger than the limit allows")
        return
    assert len(gone) == 1
    assert (result.exit_code, json.loads(result.stdout)["findings"]) == (0, [])
    token = next(u for u in yaml.safe_load(server.kubeconfig.read_text())["users"] if u["name"] == name)["user"]["token"]
    assert [p for p, *_ in asked if not re.match(r"^/apis?/[^/?]", p) or p.endswith("?")] == []
    assert {tuple(a) for _, *a in asked} == {("application/json", "gengpu", f"Bearer {token}")}


def test_a_server_that_never_answers_is_asked_once(cluster, run, tmp_path, monkeypatch):
    """An endpoint that accepts the connection and says nothing: one request, bounded by the request timeout, then a
    clear error; the HTTP library's own retries used to ask it four times."""
    import socket
    import threading

    server, client, api = cluster
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)
    silent.settimeout(0.1)
    accepted, stop = [], threading.Event()

    def accept():
        while not stop.is_set():
            try:
                accepted.append(silent.accept()[0])
            except OSError:  # (the timeout: look at the flag again)
                continue

    listener = threading.Thread(target=accept, daemon=True)
    listener.start()
    try:
        _context(server, "silent", url=f"http://127.0.0.1:{silent.getsockname()[1]}")
        monkeypatch.setattr("gengpu.live.kube.TIMEOUT", 1)
        result = _check(run, tmp_path, server, monkeypatch, "silent")
    finally:
        stop.set()
        listener.join()
        count = len(accepted)
        for conn in accepted:
            conn.close()
        silent.close()
    assert result.exit_code == 2
    assert result.output.splitlines()[-1] == ("gengpu: error: the API server of context 'silent' did not answer whole "
                                              "in time: no answer (each request may take 1 s, the capture "
                                              "GENGPU_KUBE_DEADLINE)")
    assert count == 1


def test_the_gpu_stacks_pods_and_warning_events_are_read_live(cluster, run, tmp_path, monkeypatch):
    """A driver pod in CrashLoopBackOff (its status set as the kubelet sets it), a Warning event about a GPU pod
    whose sandbox the nvidia runtime cannot create, and an unrelated warning, in a real API server: the check names
    the driver pod with its node and pool and the command that shows its log, and the event with its cause; the
    snapshot keeps the pod's container states but not its env, and leaves the unrelated event out."""
    server, client, api = cluster
    _reset(client, api)
    _apply(client, api, snapshots.healthy(MPS.read_text()))
    core = client.CoreV1Api(api)
    driver = {"metadata": {"name": "nvidia-driver-daemonset-x7k2p", "namespace": "gpu-operator"},
              "spec": {"nodeName": "l4-mps-0", "containers": [{
                  "name": "nvidia-driver-ctr", "image": "nvcr.io/nvidia/driver:580.95.05-ubuntu22.04",
                  "env": [{"name": "NGC_KEY", "value": "env-secret"}]}]}}
    core.create_namespaced_pod("gpu-operator", driver)
    core.patch_namespaced_pod_status("nvidia-driver-daemonset-x7k2p", "gpu-operator", {"status": {
        "phase": "Running", "containerStatuses": [{
            "name": "nvidia-driver-ctr", "ready": False, "restartCount": 7,
            "image": "nvcr.io/nvidia/driver:580.95.05-ubuntu22.04", "imageID": "", "started": False,
            "state": {"waiting": {"reason": "CrashLoopBackOff",
                                  "message": "back-off 5m0s restarting failed container=nvidia-driver-ctr"}},
            "lastState": {"terminated": {"exitCode": 1, "reason": "Error",
                                         "message": "Could not resolve Linux kernel version"}}}]}})
    events = [("trainer-sandbox", {"kind": "Pod", "namespace": "default", "name": "trainer"},
               "FailedCreatePodSandBox", 'Failed to create pod sandbox: rpc error: code = Unknown desc = failed to '
               'get sandbox runtime: no runtime for "nvidia" is configured'),
              ("shop-backoff", {"kind": "Pod", "namespace": "default", "name": "shop-7c9d"}, "BackOff",
               "Back-off restarting failed container web in pod shop-7c9d_default(3492f33c)"),
              # a warning about a GPU node is kept whatever it says; about another node, not
              ("gpu-node-disk", {"kind": "Node", "name": "l4-mps-0"}, "FreeDiskSpaceFailed",
               "Failed to garbage collect required amount of images. Attempted to free 4 bytes, but only found 0"),
              ("system-node-disk", {"kind": "Node", "name": "system-0"}, "FreeDiskSpaceFailed",
               "Failed to garbage collect required amount of images. Attempted to free 5 bytes, but only found 0"),
              # and only warnings: a Normal event about the GPU stack is not asked for
              ("trainer-pulled", {"kind": "Pod", "namespace": "default", "name": "trainer"},
               "Pulled", 'Container image "nvcr.io/nvidia/cuda:12.8.0-base-ubuntu24.04" already present on machine')]
    for name, about, reason, message in events:
        core.create_namespaced_event("default", {"metadata": {"name": name, "namespace": "default"},
                                                 "involvedObject": about, "reason": reason, "message": message,
                                                 "type": "Normal" if reason == "Pulled" else "Warning", "count": 3})
    try:
        result = _check(run, tmp_path, server, monkeypatch)
        found = [(f["rule"], f.get("object"), f.get("node"), f.get("pool")) for f in json.loads(result.stdout)["findings"]]
        assert found == [
            ("gpu-stack-events", "Pod/default/trainer", None, None),
            ("gpu-stack-pod-failing", "Pod/gpu-operator/nvidia-driver-daemonset-x7k2p", "l4-mps-0", "l4-mps")]
        messages = {f["rule"]: f["message"] for f in json.loads(result.stdout)["findings"]}
        assert messages["gpu-stack-pod-failing"].endswith(
            "its last message: Could not resolve Linux kernel version; `kubectl logs -n gpu-operator "
            "nvidia-driver-daemonset-x7k2p -c nvidia-driver-ctr --previous` shows its log")
        assert "has no nvidia runtime handler" in messages["gpu-stack-events"]
        assert result.exit_code == 1
        snap = run("snapshot", "--context", "admin", "-o", "snap.json", cwd=tmp_path)
        text = (tmp_path / "snap.json").read_text()
        assert "env-secret" not in text and "shop-7c9d" not in text
        kept = json.loads(text)
        assert sorted(i["metadata"]["name"] for i in kept["items"] if i["kind"] == "Event") == \
            ["gpu-node-disk", "trainer-sandbox"]
        assert {"events", "pods", "daemonsets", "computedomains"} <= set(
            kept["metadata"]["annotations"]["gengpu.dev/captured"].split(","))
        pod = next(i for i in kept["items"] if i["kind"] == "Pod")
        assert pod["status"]["containerStatuses"][0]["state"]["waiting"]["reason"] == "CrashLoopBackOff"
        offline = run("check", MPS.name, "--snapshot", "snap.json", "--output", "json", cwd=tmp_path)
        assert sorted((f["rule"], f.get("object")) for f in json.loads(offline.stdout)["findings"]) == \
            sorted((rule, obj) for rule, obj, _, _ in found)
    finally:
        core.delete_namespaced_pod("nvidia-driver-daemonset-x7k2p", "gpu-operator", grace_period_seconds=0)
        for name, *_ in events:
            core.delete_namespaced_event(name, "default")


def test_a_certificate_the_kubeconfig_does_not_trust_is_told_as_tls(cluster, run, tmp_path, monkeypatch):
    """The real API server behind a context with no certificate-authority: verification fails, and gengpu says TLS,
    not 'SSLError' and not RBAC."""
    server, client, api = cluster
    _context(server, "untrusted", url=server.url)
    result = _check(run, tmp_path, server, monkeypatch, "untrusted")
    last = result.output.splitlines()[-1]
    assert result.exit_code == 2
    assert last.startswith("gengpu: error: cannot list nodes: TLS with the API server failed: its certificate is not "
                           "one the kubeconfig's certificate-authority signed (")
    assert "RBAC" not in last and "can-i" not in last


# STATUS cells kubectl prints that no row of the corpus shows, each with a READY and RESTARTS it prints them with
# (kubectl's printPod: an init container's waiting or terminated reason, exit code or signal; a pod's own reason)
_UNSEEN_ROWS = [("Init:1/2", "0/1", 2), ("Init:1/2", "1/1", 0), ("Init:Error", "0/1", 1), ("Init:ExitCode:2", "0/1", 1),
                ("Init:Signal:9", "0/1", 0), ("CrashLoopBackOff", "1/2", 7), ("ContainerCreating", "0/1", 0),
                ("PodInitializing", "0/1", 0), ("Completed", "0/1", 0), ("Error", "0/1", 3), ("OOMKilled", "0/2", 2),
                ("ExitCode:137", "0/1", 0), ("Signal:9", "0/1", 0), ("Evicted", "0/1", 0),
                # (the API's exit code is an int32, printed signed: a Windows code past 2^31)
                ("ExitCode:-1073741510", "0/1", 3), ("Init:ExitCode:-1", "0/1", 1),
                ("UnexpectedAdmissionError", "0/1", 0), ("Unknown", "0/1", 0), ("Terminating", "1/1", 0),
                ("SchedulingGated", "0/1", 0),
                ("Running", "2/3", 0)]


def _create_pod(core, namespace: str, name: str, pod: dict, rename: bool = False, **meta) -> None:
    """A pod into the API server as the kubelet reports one: its spec (each container given an image and, where a
    pasted row left them unnamed, a name), then its status through the status subresource."""
    pod = json.loads(json.dumps(pod))
    for group, key in (("containers", "containerStatuses"), ("initContainers", "initContainerStatuses")):
        for i, container in enumerate(pod["spec"].get(group, [])):
            container.update(image="busybox", **({"name": f"{group[0]}{i}"} if rename else {}))
        for i, status in enumerate(pod["status"].get(key, [])):
            status.update(image="busybox", imageID="", **({"name": f"{group[0]}{i}"} if rename else {}))
    core.create_namespaced_pod(namespace, {"metadata": {"name": name, **meta}, "spec": pod["spec"]})
    core.patch_namespaced_pod_status(name, namespace, {"status": pod["status"]})


def _printed(core, namespace: str) -> dict[str, tuple[str, str, str]]:
    """Each pod's READY, STATUS and RESTARTS as the API server's own table printer (`kubectl get pods`) gives them."""
    table = json.loads(core.list_namespaced_pod(
        namespace, _preload_content=False, _headers={"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"}).read())
    return {row["cells"][0]: tuple(str(c) for c in row["cells"][1:4]) for row in table["rows"]}


def test_a_pasted_pods_row_is_a_pod_the_api_server_prints_as_that_row(cluster):
    """Each row of every pods table of the corpus, and each STATUS kubectl prints that no row shows, read as gengpu
    reads a pasted row, then created in a real API server (its status through the status subresource, a Terminating
    one deleted under a finalizer): the server's own table printer (`kubectl get pods`) prints it back with the same
    READY, STATUS and RESTARTS."""
    from gengpu.live import snapshot, tables
    from test_pasted_tables import CORPUS, _pods_tables, _rows

    rows = []
    for name in _pods_tables():
        raw = (CORPUS / name).read_bytes()
        pods = {p.name: p.data for p in snapshot.load(raw, name)[0].pods}
        rows += [(pods[r["NAME"].removeprefix("pod/")], (r["READY"], r["STATUS"].replace("Init: ", "Init:"),
                                                         r["RESTARTS"].split()[0])) for r in _rows(raw.decode())]
    rows += [(tables.pod("", "", shown, ready, restarts), (ready, shown, str(restarts)))
             for shown, ready, restarts in _UNSEEN_ROWS]
    server, client, api = cluster
    core = client.CoreV1Api(api)
    core.create_namespace({"metadata": {"name": "pasted-rows"}})
    held = []
    try:
        for n, (pod, _) in enumerate(rows):
            deleting = "deletionTimestamp" in pod["metadata"]
            _create_pod(core, "pasted-rows", f"row-{n}", pod, rename=True,
                        **({"finalizers": ["gengpu.test/hold"]} if deleting else {}))
            if deleting:
                held.append(f"row-{n}")
                core.delete_namespaced_pod(f"row-{n}", "pasted-rows")
        printed = _printed(core, "pasted-rows")
        assert [printed[f"row-{n}"] for n in range(len(rows))] == [want for _, want in rows]
        assert len(rows) > len(_UNSEEN_ROWS) + 40
    finally:
        for name in held:
            core.patch_namespaced_pod(name, "pasted-rows", {"metadata": {"finalizers": None}})
        core.delete_collection_namespaced_pod("pasted-rows", grace_period_seconds=0)


def test_pods_in_states_no_row_shows_print_as_gengpu_reads_them_and_are_captured_whole(cluster, run, tmp_path,
                                                                                       monkeypatch):
    """The pods of tests/test_live_stack.py's API_PODS (sidecars, running init containers, a gated pod) created in a
    real API server: its table printer prints each with the READY, STATUS and RESTARTS gengpu reads from the pod,
    and `gengpu snapshot` keeps what that reading needs (an init container's restartPolicy: whether it is a sidecar)."""
    from gengpu.live import snapshot, stack
    from test_live_stack import API_PODS

    server, client, api = cluster
    core = client.CoreV1Api(api)
    core.create_namespace({"metadata": {"name": "api-pods"}})
    names = {}
    try:
        for case, (pod, *_) in API_PODS.items():
            names[case] = f"nvidia-device-plugin-daemonset-{case}"
            _create_pod(core, "api-pods", names[case], pod)
        printed = _printed(core, "api-pods")
        assert {case: printed[names[case]] for case in API_PODS} == \
            {case: (ready, shown, str(restarts)) for case, (_, (ready, shown, restarts), *_) in API_PODS.items()}
        monkeypatch.setenv("KUBECONFIG", str(server.kubeconfig))
        result = run("snapshot", "--context", "admin", "--namespace", "api-pods", "-o", "snap.yaml", cwd=tmp_path)
        assert result.exit_code == 0, result.output
        # (the test kubeconfig skips TLS verification, and gengpu says so once)
        assert result.stderr.count("gengpu: warning: the kubeconfig turns TLS verification off for this cluster\n") == 1
        snap, findings = snapshot.load((tmp_path / "snap.yaml").read_bytes(), "snap.yaml")
        captured = {p.name: stack.state(p) for p in snap.pods}
        assert findings == [] and {case: captured[names[case]] for case in API_PODS} == {
            case: stack.PodState(shown, ready, restarts, container, init, message)
            for case, (_, (ready, shown, restarts), container, init, message) in API_PODS.items()}
    finally:
        core.delete_namespace("api-pods")


def test_a_snapshot_keeps_the_gpu_stacks_daemonsets_by_name_or_by_image(cluster, run, tmp_path, monkeypatch):
    """DaemonSets in a real API server: NVIDIA's device plugin under its own name, the driver under a name a team
    chose (known by its image, nvcr.io/nvidia/driver), and a log shipper. The snapshot keeps the first two, each with
    its template's image, and leaves the log shipper out."""
    server, client, api = cluster
    _reset(client, api)
    apps = client.AppsV1Api(api)

    def daemonset(name: str, image: str) -> dict:
        labels = {"app": name}
        return {"metadata": {"name": name, "namespace": "gpu-operator"},
                "spec": {"selector": {"matchLabels": labels}, "template": {
                    "metadata": {"labels": labels}, "spec": {"containers": [{"name": "c", "image": image}]}}}}

    made = [daemonset("nvidia-device-plugin-daemonset", "nvcr.io/nvidia/k8s-device-plugin:v0.17.0"),
            daemonset("gpu-driver-rollout", "nvcr.io/nvidia/driver:580.95.05-ubuntu22.04"),
            daemonset("fluent-bit", "cr.fluentbit.io/fluent/fluent-bit:3.2.2")]
    for ds in made:
        apps.create_namespaced_daemon_set("gpu-operator", ds)
    try:
        monkeypatch.setenv("KUBECONFIG", str(server.kubeconfig))
        result = run("snapshot", "--context", "admin", "-o", "snap.json", cwd=tmp_path)
        assert result.exit_code == 0, result.output
        kept = [i for i in json.loads((tmp_path / "snap.json").read_text())["items"] if i["kind"] == "DaemonSet"]
        assert {i["apiVersion"] for i in kept} == {"apps/v1"}  # (the group the checks find DaemonSets by)
        assert sorted((i["metadata"]["name"], i["spec"]["template"]["spec"]["containers"][0]["image"])
                      for i in kept) == [("gpu-driver-rollout", "nvcr.io/nvidia/driver:580.95.05-ubuntu22.04"),
                                         ("nvidia-device-plugin-daemonset",
                                          "nvcr.io/nvidia/k8s-device-plugin:v0.17.0")]
    finally:
        for ds in made:
            apps.delete_namespaced_daemon_set(ds["metadata"]["name"], "gpu-operator")
