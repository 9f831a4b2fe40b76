"""A real Kubernetes API server for the tests of `gengpu snapshot` and `gengpu check --context`: etcd and
kube-apiserver built at pinned versions into ./bin (scripts/install-tools), started on free loopback ports with
a static token for an admin, RBAC on, and a kubeconfig whose contexts are the admin and service accounts the
admin impersonates. The flags follow controller-runtime's envtest (pkg/internal/testing/controlplane)."""

from __future__ import annotations

import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
BIN = REPO / "bin"
TOKEN = "gengpu-test-admin-token"


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait(check, what: str, proc: subprocess.Popen, log: Path, seconds: float = 90) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited {proc.returncode}:\n{log.read_text()[-3000:]}")
        if check():
            return
        time.sleep(0.2)
    raise RuntimeError(f"{what} not ready after {seconds} s:\n{log.read_text()[-3000:]}")


@dataclass
class ApiServer:
    url: str
    kubeconfig: Path
    procs: list
    logs: list

    def client(self):
        """An admin client of the official Python client (the tests' own setup: nodes, their status, CRDs)."""
        import urllib3
        from kubernetes import client, config

        urllib3.disable_warnings(urllib3.exceptions.InsecureRequestWarning)  # the test server's self-signed cert
        return client, config.new_client_from_config(config_file=str(self.kubeconfig), context="admin")

    def add_service_account_context(self, namespace: str, name: str) -> None:
        """A context that acts as a ServiceAccount: a token the API server issues for it (TokenRequest)."""
        client, api = self.client()
        core = client.CoreV1Api(api)
        try:
            core.create_namespaced_service_account(namespace, {"metadata": {"name": name}})
        except client.exceptions.ApiException as exc:
            if exc.status != 409:
                raise
        token = core.create_namespaced_service_account_token(name, namespace, {"spec": {"expirationSeconds": 3600}})
        config = yaml.safe_load(self.kubeconfig.read_text())
        config["contexts"].append({"name": name, "context": {"cluster": "test", "user": name}})
        config["users"].append({"name": name, "user": {"token": token.status.token}})
        self.kubeconfig.write_text(yaml.safe_dump(config))

    def stop(self) -> None:
        # Killed, not terminated: the servers and their data are throwaway, and kube-apiserver's graceful shutdown
        # outlasts etcd's and ran into the 20-second wait on every stop (20 s per test module, per mutant).
        for proc in reversed(self.procs):
            proc.kill()
        for proc in self.procs:
            proc.wait()
        for log in self.logs:
            log.close()


def start(work: Path, apis: str = "resource.k8s.io/v1=true", gates: str = "") -> ApiServer:
    """apis: --runtime-config (the API versions served beside the default ones), gates: --feature-gates."""
    work.mkdir(parents=True, exist_ok=True)
    etcd_port, peer_port, api_port = _port(), _port(), _port()
    etcd_log = work / "etcd.log"
    logs = [etcd_log.open("w")]
    etcd = subprocess.Popen(
        [str(BIN / "etcd"), "--data-dir", str(work / "etcd"), "--listen-client-urls", f"http://127.0.0.1:{etcd_port}",
         "--advertise-client-urls", f"http://127.0.0.1:{etcd_port}",
         "--listen-peer-urls", f"http://127.0.0.1:{peer_port}", "--initial-advertise-peer-urls",
         f"http://127.0.0.1:{peer_port}", "--initial-cluster", f"default=http://127.0.0.1:{peer_port}",
         "--unsafe-no-fsync", "--log-level", "warn"],
        stdout=logs[0], stderr=subprocess.STDOUT)
    procs = [etcd]
    try:
        def etcd_up() -> bool:
            try:
                with socket.create_connection(("127.0.0.1", etcd_port), timeout=0.5):
                    return True
            except OSError:
                return False

        _wait(etcd_up, "etcd", etcd, etcd_log)
        key = work / "sa.key"
        subprocess.run(["openssl", "genrsa", "-out", str(key), "2048"], check=True, capture_output=True)
        (work / "tokens.csv").write_text(f'{TOKEN},admin,admin-uid,"system:masters"\n')
        api_log = work / "kube-apiserver.log"
        logs.append(api_log.open("w"))
        api = subprocess.Popen(
            [str(BIN / "kube-apiserver"), f"--etcd-servers=http://127.0.0.1:{etcd_port}",
             f"--secure-port={api_port}", "--bind-address=127.0.0.1", "--advertise-address=127.0.0.1",
             f"--cert-dir={work / 'certs'}", f"--token-auth-file={work / 'tokens.csv'}",
             "--authorization-mode=RBAC", "--service-cluster-ip-range=10.0.0.0/24", "--allow-privileged=true",
             f"--service-account-key-file={key}", f"--service-account-signing-key-file={key}",
             "--service-account-issuer=https://kubernetes.default.svc", "--disable-admission-plugins=ServiceAccount",
             f"--runtime-config={apis}", *([f"--feature-gates={gates}"] if gates else [])],
            stdout=logs[1], stderr=subprocess.STDOUT)
        procs.append(api)
        url = f"https://127.0.0.1:{api_port}"
        kubeconfig = work / "kubeconfig"
        contexts = [{"name": "admin", "context": {"cluster": "test", "user": "admin"}}]
        users = [{"name": "admin", "user": {"token": TOKEN}}]
        contexts.append({"name": "unreachable", "context": {"cluster": "nowhere", "user": "admin"}})
        kubeconfig.write_text(yaml.safe_dump({
            "apiVersion": "v1", "kind": "Config", "current-context": "admin",
            "clusters": [{"name": "test", "cluster": {"server": url, "insecure-skip-tls-verify": True}},
                         {"name": "nowhere", "cluster": {"server": f"https://127.0.0.1:{_port()}",
                                                         "insecure-skip-tls-verify": True}}],
            "contexts": contexts, "users": users}))
        server = ApiServer(url, kubeconfig, procs, logs)

        def ready() -> bool:
            import ssl
            import urllib.request

            request = urllib.request.Request(f"{url}/readyz", headers={"Authorization": f"Bearer {TOKEN}"})
            try:
                with urllib.request.urlopen(request, timeout=2, context=ssl._create_unverified_context()) as r:
                    return r.status == 200
            except OSError:
                return False

        _wait(ready, "kube-apiserver", api, api_log)
        return server
    except BaseException:
        for proc in procs:
            proc.kill()
            proc.wait()
        for log in logs:
            log.close()
        raise
