"""The dcgm-exporter rules read a hand-written exporter the way the exporter reads itself (NVIDIA/dcgm-exporter
4.5.3-4.8.2 pkg/cmd/app.go: a flag, else its env var, else the default; internal/pkg/hostname/hostname.go)."""

import json

import pytest
import yaml

BASE = {
    "apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "dcgm-exporter"},
    "spec": {"selector": {"matchLabels": {"app": "x"}}, "template": {"metadata": {"labels": {"app": "x"}}, "spec": {
        "containers": [{"name": "exporter", "image": "nvcr.io/nvidia/k8s/dcgm-exporter:4.5.2-4.8.1-distroless",
                        "env": [{"name": "NODE_NAME", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}}],
                        "volumeMounts": [{"name": "pr", "mountPath": "/var/lib/kubelet/pod-resources"}]}],
        "volumes": [{"name": "pr", "hostPath": {"path": "/var/lib/kubelet/pod-resources"}}]}}},
}


def _findings(run, tmp_path, container=None, pod=None):
    obj = json.loads(json.dumps(BASE))
    spec = obj["spec"]["template"]["spec"]
    spec["containers"][0].update(container or {})
    spec.update(pod or {})
    (tmp_path / "ds.yaml").write_text(yaml.safe_dump(obj))
    result = run("validate", "ds.yaml", "--output", "json", cwd=tmp_path)
    return [(f["rule"], f["message"].split(": ", 1)[1]) for f in json.loads(result.stdout)["findings"]
            if f["rule"].startswith("dcgm-exporter")]


@pytest.mark.parametrize("container, expected", [
    ({"args": ["-k"]}, []),
    ({"args": ["--kubernetes=true"]}, []),
    ({"env": BASE["spec"]["template"]["spec"]["containers"][0]["env"] + [
        {"name": "DCGM_EXPORTER_KUBERNETES", "value": "true"}]}, []),
    # the flag wins over the env var, as urfave/cli reads them
    ({"args": ["--kubernetes=false"], "env": BASE["spec"]["template"]["spec"]["containers"][0]["env"] + [
        {"name": "DCGM_EXPORTER_KUBERNETES", "value": "true"}]},
     [("dcgm-exporter-no-pod-labels", "container exporter runs dcgm-exporter without Kubernetes mode "
       "(DCGM_EXPORTER_KUBERNETES is not true, no -k): its series name no pod")]),
    ({"args": ["-k"], "volumeMounts": []},
     [("dcgm-exporter-no-pod-labels", "container exporter runs dcgm-exporter in Kubernetes mode but mounts nothing at "
       "/var/lib/kubelet/pod-resources: it cannot ask the kubelet which pod holds which GPU, so its series name no "
       "pod")]),
    # a kubelet with another root dir: the socket flag and a mount above it
    ({"args": ["-k", "--pod-resources-kubelet-socket=/data/kubelet/pod-resources/kubelet.sock"],
      "volumeMounts": [{"name": "pr", "mountPath": "/data/kubelet"}]}, []),
    ({"args": ["-k", "--no-hostname"]},
     [("dcgm-exporter-no-node-name", "container exporter runs dcgm-exporter without its Hostname label "
       "(--no-hostname): no series says which node its GPU is on")]),
    ({"args": ["-k"], "env": []},
     [("dcgm-exporter-no-node-name", "container exporter sets no NODE_NAME: dcgm-exporter's Hostname label will be "
       "the pod's own name, not the node's")]),
])
def test_exporter_settings(run, tmp_path, container, expected):
    assert _findings(run, tmp_path, container) == expected


def test_host_network_gives_the_node_hostname(run, tmp_path):
    assert _findings(run, tmp_path, {"args": ["-k"], "env": []}, {"hostNetwork": True}) == []
