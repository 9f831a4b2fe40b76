"""What gengpu reads from `kubectl describe` text is what the real kubectl prints (bin/kubectl, k8s.io/kubernetes at
the pinned version), against a real API server.

Pastes to kubectl: every describe-node and describe-pod paste of the live corpus is read as `gengpu check --snapshot`
reads it; each node and pod it makes is created in the API server (its status through the status subresource, as
the kubelet sets it; a pod's events as Events about it) and described by kubectl. The fields gengpu keeps, as the
paste shows them, are the fields kubectl prints: a node's name, creation time, labels, taints, Unschedulable,
conditions (type, status, reason, message), Capacity and Allocatable, provider ID and kubelet version; a pod's name,
namespace, node, status, reason, each container's image, state, last state, readiness, restarts, limits and requests,
and its events. A field the paste does not show is not compared (kubectl prints every field; a paste is often a grep
or a docs excerpt). Both texts go through the same small readers below, so neither side is read by gengpu.

kubectl to gengpu: nodes, pods, DaemonSets, ComputeDomains and DeviceTaintRules in states no paste shows whole are
created in the API server, described by kubectl, and read back by gengpu field for field.
"""

from __future__ import annotations

import datetime
import email.utils
import gzip
import json
import re
import subprocess
from pathlib import Path

import pytest
import yaml

import apiserver

CORPUS = Path(__file__).parent / "live-corpus"
REPO = apiserver.REPO
KUBECTL = apiserver.BIN / "kubectl"
pytestmark = pytest.mark.filterwarnings("ignore::urllib3.exceptions.InsecureRequestWarning")

_KEY = re.compile(r"^([A-Z][A-Za-z ]*):(?:\s+(.*?))?\s*$")
_ELISION = re.compile(r"^\s*(\.{2,}|…|\[(\.{3}|…)\])\s*$")
_KEPT = ("Labels", "Taints", "Unschedulable", "Conditions", "Capacity", "Allocatable", "ProviderID",
         "CreationTimestamp")


def _pastes() -> list[Path]:
    files = sorted((CORPUS / "states").glob("*.txt")) + sorted((CORPUS / "pastes").glob("describe-node-*.txt"))
    return [f for f in files if re.search(r"^(Labels|Taints|Capacity|Allocatable|Conditions):", f.read_text(), re.M)]


def _described(text: str) -> list[dict]:
    """Each node of describe text: its name and, for each key of _KEPT it prints, what describe shows under it."""
    nodes: list[dict] = []
    lines = text.splitlines()
    if not any(line.startswith("Name:") for line in lines):
        lines = ["Name:"] + lines
    key = None
    for line in lines:
        if _ELISION.match(line) and key in ("Capacity", "Allocatable"):
            nodes[-1].setdefault("cut", set()).add(key)
        if not line.strip() or _ELISION.match(line):
            continue
        top = _KEY.match(line)
        if top and top.group(1) == "Name":
            nodes.append({"Name": top.group(2) or ""})
            key = None
            continue
        if top:
            key = top.group(1)
            if key in _KEPT:
                nodes[-1][key] = [top.group(2)] if top.group(2) else []
            continue
        if line.strip().startswith("Kubelet Version:"):
            nodes[-1]["Kubelet Version"] = line.partition(":")[2].strip()
        elif key in _KEPT:
            nodes[-1][key].append(line.strip())
    return [_fields(node) for node in nodes]


def _fields(node: dict) -> dict:
    out = {"Name": node["Name"]}
    for key, lines in node.items():
        if key == "cut":
            continue
        lines = [line for line in lines if line != "<none>"] if isinstance(lines, list) else lines
        if key in ("Labels", "Taints"):
            out[key] = lines
        elif key == "CreationTimestamp":  # the same instant (kubectl prints it in its own time zone)
            out[key] = email.utils.parsedate_to_datetime(lines[0])
        elif key in ("Unschedulable", "ProviderID", "Kubelet Version"):
            out[key] = lines[0] if isinstance(lines, list) and lines else lines or ""
        elif key in ("Capacity", "Allocatable"):
            # (a quantity is one word: what follows is the paster's note)
            out[key] = dict((name.strip(), value.split()[0]) for name, _, value in
                            (line.partition(":") for line in lines) if value.strip())
            if key in node.get("cut", ()) and not any(name.startswith("nvidia.com/") for name in out[key]):
                # a section the paster cut that shows no GPU says nothing of the GPUs: gengpu leaves it out, so
                # that its absent GPUs are not judged missing (kubectl prints no section for an empty map)
                out[key] = None
        elif key == "Conditions":
            rows = [re.split(r"\s{2,}", line) for line in lines]
            out[key] = [(cells[0], cells[1], tuple(cells[4:])) for cells in rows
                        if cells[0] != "Type" and not set(cells[0]) <= set("-")]
    return out


def _kubectl(server, *args: str) -> str:
    """What the real kubectl prints for `kubectl ARGS` against the test's API server."""
    return subprocess.run([str(KUBECTL), "--kubeconfig", str(server.kubeconfig), "--context", "admin", *args],
                          capture_output=True, text=True, check=True).stdout


def _namespace(client, api, name: str) -> None:
    """The namespace, made once for the whole module (its tests share the API server)."""
    try:
        client.CoreV1Api(api).create_namespace({"metadata": {"name": name}})
    except client.exceptions.ApiException as exc:
        assert exc.status == 409


def _events(core, about: dict, events) -> None:
    """Events about an object (kind, name, namespace, uid), each (type, reason, message, count), one a second apart
    (describe lists them by their last time)."""
    ns = about.get("namespace", "default")
    for k, (type_, reason, message, count) in enumerate(events):
        core.create_namespaced_event(ns, {
            "metadata": {"name": f"{about['name']}.{k}", "namespace": ns}, "involvedObject": about,
            "type": type_, "reason": reason, "message": message, "count": count, "source": {"component": "kubelet"},
            "firstTimestamp": "2026-01-01T00:00:00Z", "lastTimestamp": f"2026-01-01T00:{k // 60:02}:{k % 60:02}Z"})


def _node(client, core, node: dict) -> None:
    """The node made anew: its taints set again once it exists (the API server's TaintNodesByCondition admission
    taints every new node not-ready), then its status through the status subresource, as the kubelet sets it."""
    name = node["metadata"]["name"]
    try:
        core.delete_node(name)
    except client.exceptions.ApiException:
        pass
    core.create_node({k: v for k, v in node.items() if k != "status"})
    core.patch_node(name, [{"op": "add", "path": "/spec/taints", "value": node.get("spec", {}).get("taints", [])}])
    if node.get("status"):
        core.patch_node_status(name, {"status": node["status"]})


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    if not KUBECTL.exists():
        pytest.fail("bin/kubectl is missing: run scripts/install-tools kubectl")
    # (DeviceTaintRule is served as resource.k8s.io/v1alpha3 behind its feature gate in Kubernetes 1.34)
    server = apiserver.start(tmp_path_factory.mktemp("apiserver"), apis="resource.k8s.io/v1=true,"
                             "resource.k8s.io/v1alpha3=true", gates="DRADeviceTaints=true")
    client, api = server.client()
    raw = (REPO / "schemas" / "upstream" / "NVIDIA" / "k8s-dra-driver-gpu" / "deployments" / "helm" /
           "dra-driver-nvidia-gpu" / "crds" / "resource.nvidia.com_computedomains.yaml.gz").read_bytes()
    client.ApiextensionsV1Api(api).create_custom_resource_definition(yaml.safe_load(gzip.decompress(raw)))
    yield server
    server.stop()


@pytest.mark.parametrize("paste", _pastes(), ids=lambda p: p.name)
def test_a_pasted_node_is_the_node_kubectl_describes_as_pasted(server, paste):
    from gengpu.live import snapshot

    shown = _described(paste.read_text())
    snap, findings = snapshot.load(paste.read_bytes(), paste.name)
    nodes = [item.data for item in snap.nodes]
    assert len(nodes) == len(shown)
    client, api = server.client()
    core = client.CoreV1Api(api)
    for n, (node, want) in enumerate(zip(nodes, shown)):
        name = node["metadata"]["name"] if want["Name"] else f"pasted-node-{n}"
        _node(client, core, dict(node, metadata=dict(node["metadata"], name=name)))
        printed = _kubectl(server, "describe", "node", name)
        (got,) = _described(printed)
        if not want["Name"]:
            got["Name"] = ""
        # the API server sets a new object's creation time itself: the time read is held to the paste's instant,
        # written as the API writes it (RFC 3339, UTC)
        if "CreationTimestamp" in want:
            created = want.pop("CreationTimestamp").astimezone(datetime.timezone.utc)
            assert node["metadata"]["creationTimestamp"] == created.strftime("%Y-%m-%dT%H:%M:%SZ")
        assert {k: got.get(k) for k in want} == want


# A described pod: what gengpu keeps of it, as `kubectl describe pod` prints it (its Controlled By too). The pod's
# Status is its first word ("Terminating (lasts 2d)"), its Node the name before "/host IP"; a container's State and
# Last State are the state's word and the Reason, Message, Exit Code and Signal lines under it; an event is its
# Type, Reason, count ("(xN over ...)", else 1) and Message.
def _described_pods(text: str) -> list[dict]:
    pods: list[dict] = []
    lines = text.splitlines()
    if not any(line.startswith("Name:") for line in lines):
        lines = ["Name:"] + lines
    section = state = amounts = None
    container: dict | None = None
    for line in lines:
        if not line.strip() or _ELISION.match(line):
            continue
        top = _KEY.match(line)
        if top:
            section, value = top.group(1), top.group(2) or ""
            if section == "Name":
                pods.append({"Name": value, "containers": {}})
            elif section in ("Namespace", "Reason", "Controlled By") or \
                    section == "Status" and "Status" not in pods[-1]:
                pods[-1][section] = value.split()[0] if section == "Status" else value
            elif section == "Node":
                pods[-1]["Node"] = value.split("/")[0]
            elif section == "Events":
                pods[-1]["Events"] = []
            continue
        if section in ("Containers", "Init Containers"):
            entry = re.match(r"^  (\S[^:]*):\s*$", line)
            field = re.match(r"^    (\S[^:]*):\s*(.*?)\s*$", line)
            sub = re.match(r"^      (\S[^:]*):\s*(.*?)\s*$", line)
            if entry:
                container = pods[-1]["containers"][f"{section}/{entry.group(1)}"] = {}
                state = amounts = None
            elif field and container is not None:
                name, value = field.groups()
                state = name if name in ("State", "Last State") else None
                amounts = name if name in ("Limits", "Requests") and not value else None
                if state:
                    container[name] = [value]
                elif amounts:
                    container[name] = {}
                elif name in ("Image", "Ready", "Restart Count"):
                    container[name] = value
            elif sub and container is not None:
                if state and sub.group(1) in ("Reason", "Message", "Exit Code", "Signal"):
                    container[state].append(f"{sub.group(1)}: {sub.group(2)}")
                elif amounts:
                    container[amounts][sub.group(1)] = sub.group(2)
        elif section == "Events":
            cells = re.split(r"\s{2,}", line.strip())
            if cells[0] in ("Warning", "Normal") and len(cells) >= 5:
                count = re.search(r"\(x(\d+) over", cells[2])
                pods[-1]["Events"].append((cells[0], cells[1], int(count.group(1)) if count else 1,
                                           "  ".join(cells[4:])))
    return pods


def _pod_pastes() -> list[Path]:
    # (a paste cut to its header and Events shows no pod: gengpu reads its events alone, tests/test_pasted_tables.py)
    return [f for f in sorted((CORPUS / "pastes").glob("describe-pod-*.txt"))
            if re.search(r"^(Init )?Containers:", f.read_text(), re.M)]


@pytest.mark.parametrize("paste", _pod_pastes(), ids=lambda p: p.name)
def test_a_pasted_pod_is_the_pod_kubectl_describes_as_pasted(server, paste):
    """Each pod of every describe-pod paste, created in the API server as gengpu read it (its status through the
    status subresource, its events as Events about it, a Terminating pod deleted under a finalizer) and described
    by kubectl: the name, namespace, node, status, reason, each container's image, state, last state, readiness,
    restarts, limits and requests, and each event, as the paste shows them."""
    from gengpu.live import snapshot

    shown = _described_pods(paste.read_text())
    snap, _ = snapshot.load(paste.read_bytes(), paste.name)
    pods = [item.data for item in snap.pods]
    assert len(pods) == len(shown)
    client, api = server.client()
    core = client.CoreV1Api(api)
    for n, (pod, want) in enumerate(zip(pods, shown)):
        pod = json.loads(json.dumps(pod))
        ns = pod["metadata"].get("namespace") or "pasted"
        name = pod["metadata"]["name"] if want["Name"] else "pasted-pod"
        _namespace(client, api, ns)
        core.delete_collection_namespaced_pod(ns, grace_period_seconds=0)
        core.delete_collection_namespaced_event(ns)
        for group, key in (("containers", "containerStatuses"), ("initContainers", "initContainerStatuses")):
            images = {c["name"]: c.setdefault("image", "busybox") for c in pod["spec"].get(group, [])}
            for status in pod["status"].get(key, []):
                status.update(image=images.get(status["name"], "busybox"), imageID="")
        if not pod["spec"].get("containers"):  # a paste cut inside its init containers: the pod needs one
            pod["spec"]["containers"] = [{"name": "cut-from-the-paste", "image": "busybox"}]
        held = "deletionTimestamp" in pod["metadata"]
        meta = {"name": name, "namespace": ns, **({"finalizers": ["gengpu.test/hold"]} if held else {})}
        # (describe prints Controlled By for the owner that is the pod's controller)
        meta["ownerReferences"] = [{"apiVersion": "batch/v1" if o["kind"] == "Job" else "apps/v1", "kind": o["kind"],
                                    "name": o["name"], "uid": "00000000-0000-0000-0000-000000000002",
                                    "controller": True} for o in pod["metadata"].get("ownerReferences", [])]
        created = core.create_namespaced_pod(ns, {"metadata": meta, "spec": pod["spec"]})
        status = dict(pod["status"], phase="Running") if held else pod["status"]
        core.patch_namespaced_pod_status(name, ns, {"status": status})
        _events(core, {"kind": "Pod", "name": name, "namespace": ns, "uid": created.metadata.uid},
                [(e["type"], e["reason"], e["message"], e.get("count", 1)) for e in (item.data for item in snap.events)
                 if e["involvedObject"].get("name") == pod["metadata"]["name"]])
        try:
            if held:
                core.delete_namespaced_pod(name, ns)
            printed = _kubectl(server, "describe", "pod", "-n", ns, name)
        finally:
            if held:
                core.patch_namespaced_pod(name, ns, {"metadata": {"finalizers": None}})
        (got,) = _described_pods(printed)
        if not want["Name"]:
            got["Name"] = ""
        got["containers"] = {c: {k: got["containers"].get(c, {}).get(k) for k in fields}
                             for c, fields in want["containers"].items()}
        for c, fields in want["containers"].items():
            if "Ready" not in fields:  # kubectl prints Ready after the states: a paste without it was cut inside
                for k in ("State", "Last State"):
                    if k in fields and got["containers"][c][k]:
                        got["containers"][c][k] = got["containers"][c][k][:len(fields[k])]
        assert {k: got.get(k) for k in want} == want


# Custom resources the GPU stack's checks read, written from their CRDs' fields (NVIDIA/k8s-dra-driver-gpu's
# computedomains CRD under schemas/upstream; Kubernetes' resource.k8s.io/v1alpha3 DeviceTaintRule), with the values
# of the pastes in tests/live-corpus/states (dra-driver-1050-computedomain-notready.txt,
# docs-kubernetes-devicetaintrule-noexecute.txt): two nodes, one node (kubectl prints a list of one mapping as that
# mapping's fields), a domain Ready, a rule with a condition.
_DOMAIN_SPEC = {"numNodes": 2, "channel": {"resourceClaimTemplate": {"name": "imex-channel-0"},
                                           "allocationMode": "Single"}}
_NODE = {"cliqueID": "9f410827-489f-46fd-8203-51266ca08eb7.32766", "index": 0, "ipAddress": "10.42.3.138",
         "name": "cluster1-mgx-00011", "status": "NotReady"}
_CUSTOM = [
    ("computedomains", {"apiVersion": "resource.nvidia.com/v1beta1", "kind": "ComputeDomain",
                        "metadata": {"name": "two-nodes", "namespace": "default"}, "spec": _DOMAIN_SPEC,
                        "status": {"nodes": [_NODE, dict(_NODE, index=1, ipAddress="10.42.1.100",
                                                         name="cluster1-mgx-00017")], "status": "NotReady"}}),
    ("computedomains", {"apiVersion": "resource.nvidia.com/v1beta1", "kind": "ComputeDomain",
                        "metadata": {"name": "one-node", "namespace": "imex"}, "spec": dict(_DOMAIN_SPEC, numNodes=1),
                        "status": {"nodes": [dict(_NODE, status="Ready")], "status": "Ready"}}),
    ("devicetaintrules", {"apiVersion": "resource.k8s.io/v1alpha3", "kind": "DeviceTaintRule",
                          "metadata": {"name": "example"},
                          "spec": {"deviceSelector": {"driver": "dra.example.com"},
                                   "taint": {"effect": "NoExecute", "key": "dra.example.com/unhealthy",
                                             "timeAdded": "2025-11-05T18:15:37Z", "value": "Broken"}}}),
]


@pytest.mark.parametrize("kind, obj", _CUSTOM, ids=[o["metadata"]["name"] for _, o in _CUSTOM])
def test_a_custom_resource_kubectl_describes_is_read_back_whole(server, kind, obj):
    """A ComputeDomain or DeviceTaintRule created in the API server (its status through the status subresource) and
    described by kubectl is read by `gengpu check --snapshot` as the object it is: its name, namespace, spec and
    status, field for field (a ComputeDomain's nodes a list however many there are)."""
    from gengpu.live import snapshot

    client, api = server.client()
    custom = client.CustomObjectsApi(api)
    group, version = obj["apiVersion"].split("/")
    meta = obj["metadata"]
    body = {k: v for k, v in obj.items() if k != "status"}
    if "namespace" in meta:
        _namespace(client, api, meta["namespace"])
        custom.create_namespaced_custom_object(group, version, meta["namespace"], kind, body)
        custom.patch_namespaced_custom_object_status(group, version, meta["namespace"], kind, meta["name"],
                                                     {"status": obj["status"]})
    else:
        custom.create_cluster_custom_object(group, version, kind, body)
    where = ["-n", meta["namespace"]] if "namespace" in meta else []
    printed = _kubectl(server, "describe", kind, meta["name"], *where)
    snap, findings = snapshot.load(printed.encode(), "described.txt")
    (read,) = [item.data for item in getattr(snap, kind)]
    assert findings == []
    assert (read["apiVersion"], read["kind"], read["metadata"]) == (obj["apiVersion"], obj["kind"], meta)
    assert read["spec"] == obj["spec"]
    assert read.get("status") == obj.get("status")


# Pods in states no paste of the corpus shows whole, written as the kubelet and the scheduler set them: a GPU pod
# that cannot be scheduled, NVIDIA's device plugin restarted after an error beside its completed init container
# (controlled by its DaemonSet), an evicted pod whose container was OOM-killed by signal 9, a container
# crash-looping with the back-off's message. Each has the events describe prints under it.
_TERMINATED = {"exitCode": 1, "reason": "Error", "message": "nvml: Driver/library version mismatch",
               "startedAt": "2026-01-01T00:00:00Z", "finishedAt": "2026-01-01T00:00:05Z"}
_GPU = {"limits": {"nvidia.com/gpu": "2"}, "requests": {"nvidia.com/gpu": "2", "cpu": "500m"}}
_UNSEEN_PODS = [
    ({"metadata": {"name": "train-0"},
      "spec": {"containers": [{"name": "train", "image": "nvcr.io/nvidia/pytorch:25.01-py3", "resources": _GPU}]},
      "status": {"phase": "Pending"}},
     [("Warning", "FailedScheduling", "0/3 nodes are available: 3 Insufficient nvidia.com/gpu.", 4)]),
    ({"metadata": {"name": "nvidia-device-plugin-daemonset-x7k2p",
                   "ownerReferences": [{"apiVersion": "apps/v1", "kind": "DaemonSet", "controller": True,
                                        "name": "nvidia-device-plugin-daemonset", "uid": "0" * 8 + "-0000-0000-0000-"
                                        + "0" * 12}]},
      "spec": {"nodeName": "gpu-node-1",
               "initContainers": [{"name": "toolkit-validation", "image": "nvcr.io/nvidia/gpu-operator:v25.10.0"}],
               "containers": [{"name": "nvidia-device-plugin", "image": "nvcr.io/nvidia/k8s-device-plugin:v0.18.0"}]},
      "status": {"phase": "Running",
                 "initContainerStatuses": [{"name": "toolkit-validation", "ready": True, "restartCount": 0,
                                            "state": {"terminated": {"exitCode": 0, "reason": "Completed",
                                                                     "startedAt": "2026-01-01T00:00:00Z",
                                                                     "finishedAt": "2026-01-01T00:00:01Z"}}}],
                 "containerStatuses": [{"name": "nvidia-device-plugin", "ready": True, "restartCount": 2,
                                        "state": {"running": {"startedAt": "2026-01-01T00:01:00Z"}},
                                        "lastState": {"terminated": _TERMINATED}}]}},
     [("Normal", "Pulled", 'Container image "nvcr.io/nvidia/k8s-device-plugin:v0.18.0" already present on machine',
       3), ("Warning", "BackOff", "Back-off restarting failed container nvidia-device-plugin", 1)]),
    ({"metadata": {"name": "infer-7d9f"},
      "spec": {"nodeName": "gpu-node-2",
               "containers": [{"name": "triton", "image": "nvcr.io/nvidia/tritonserver:25.01-py3",
                               "resources": {"limits": {"nvidia.com/gpu": "1", "memory": "8Gi"}}}]},
      "status": {"phase": "Failed", "reason": "Evicted",
                 "message": "The node was low on resource: memory.",
                 "containerStatuses": [{"name": "triton", "ready": False, "restartCount": 0,
                                        "state": {"terminated": {"exitCode": 137, "signal": 9, "reason": "OOMKilled",
                                                                 "startedAt": "2026-01-01T00:00:00Z",
                                                                 "finishedAt": "2026-01-01T01:00:00Z"}}}]}},
     [("Warning", "Evicted", "The node was low on resource: memory.", 1)]),
    ({"metadata": {"name": "dcgm-exporter-5xq9w"},
      "spec": {"nodeName": "gpu-node-1",
               "containers": [{"name": "dcgm-exporter", "image": "nvcr.io/nvidia/k8s/dcgm-exporter:4.2.3-4.1.3"}]},
      "status": {"phase": "Running",
                 "containerStatuses": [{"name": "dcgm-exporter", "ready": False, "restartCount": 14,
                                        "state": {"waiting": {"reason": "CrashLoopBackOff", "message":
                                                              "back-off 5m0s restarting failed container="
                                                              "dcgm-exporter pod=dcgm-exporter-5xq9w"}},
                                        "lastState": {"terminated": dict(_TERMINATED, exitCode=255)}}]}},
     []),
]


def _kept(pod: dict) -> dict:
    """What gengpu keeps of a pod (live/described.py), from the API's own object."""
    meta = pod["metadata"]
    owners = [{"kind": o["kind"], "name": o["name"]} for o in meta.get("ownerReferences", []) if o.get("controller")]
    spec: dict = {group: [{"name": c["name"], "image": c["image"],
                           **({"resources": c["resources"]} if c.get("resources") else {})} for c in pod["spec"][group]]
                  for group in ("initContainers", "containers") if pod["spec"].get(group)}
    if pod["spec"].get("nodeName"):
        spec["nodeName"] = pod["spec"]["nodeName"]

    def state(of: dict) -> dict:  # (describe prints a waiting state's reason, not its message)
        return {word: {k: v for k, v in detail.items() if (v or k == "exitCode") and k in
                       (("reason",) if word == "waiting" else ("reason", "message", "exitCode", "signal"))}
                for word, detail in of.items()}

    status = {"phase": pod["status"]["phase"], **({"reason": pod["status"]["reason"]}
                                                    if pod["status"].get("reason") else {})}
    for key in ("initContainerStatuses", "containerStatuses"):
        if pod["status"].get(key):
            status[key] = [{"name": s["name"], "ready": s["ready"], "restartCount": s["restartCount"],
                            "state": state(s["state"]),
                            **({"lastState": state(s["lastState"])} if s.get("lastState") else {})}
                           for s in pod["status"][key]]
    return {"metadata": {"name": meta["name"], "namespace": meta["namespace"],
                         **({"ownerReferences": owners} if owners else {})}, "spec": spec, "status": status}


@pytest.mark.parametrize("pod, events", _UNSEEN_PODS, ids=[p["metadata"]["name"] for p, _ in _UNSEEN_PODS])
def test_a_pod_kubectl_describes_is_read_back_as_the_pod_it_is(server, pod, events):
    """A pod in a state no paste shows whole, created in the API server with its events and described by kubectl,
    is read by `gengpu check --snapshot` as that pod: its owner, node, phase and reason, each container's image,
    limits and requests, and each container status's readiness, restarts, state and last state (reason, message,
    exit code, signal); and its events with their type, reason, message and count."""
    from gengpu.live import snapshot

    client, api = server.client()
    core = client.CoreV1Api(api)
    ns = "unseen-pods"
    _namespace(client, api, ns)
    name = pod["metadata"]["name"]
    created = core.create_namespaced_pod(ns, {"metadata": dict(pod["metadata"], namespace=ns), "spec": pod["spec"]})
    status = json.loads(json.dumps(pod["status"]))
    for key, group in (("containerStatuses", "containers"), ("initContainerStatuses", "initContainers")):
        images = {c["name"]: c["image"] for c in pod["spec"].get(group, [])}
        for s in status.get(key, []):
            s.update(image=images[s["name"]], imageID="")
    core.patch_namespaced_pod_status(name, ns, {"status": status})
    _events(core, {"kind": "Pod", "name": name, "namespace": ns, "uid": created.metadata.uid}, events)
    stored = json.loads(core.read_namespaced_pod(name, ns, _preload_content=False).read())
    printed = _kubectl(server, "describe", "pod", "-n", ns, name)
    snap, findings = snapshot.load(printed.encode(), "described.txt")
    (read,) = [item.data for item in snap.pods]
    assert {k: read[k] for k in ("metadata", "spec", "status")} == _kept(stored)
    assert [(e.data["involvedObject"], e.data["type"], e.data["reason"], e.data["message"], e.data.get("count", 1))
            for e in snap.events] == [({"kind": "Pod", "name": name, "namespace": ns}, *event) for event in events]


# Nodes in states no paste shows whole: cordoned, with a provider ID, taints with and without a value, a condition
# with its reason and message, the kubelet's version, MIG resources beside whole GPUs; and a node with nothing but
# its name.
_UNSEEN_NODES = [
    {"metadata": {"name": "gpu-node-7", "labels": {"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3",
                                                   "nvidia.com/mig.config": "all-balanced",
                                                   "node.kubernetes.io/instance-type": "p5.48xlarge"}},
     "spec": {"unschedulable": True, "providerID": "aws:///us-east-1a/i-0123456789abcdef0",
              "taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"},
                         {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}]},
     "status": {"capacity": {"cpu": "192", "memory": "2097152Ki", "nvidia.com/gpu": "4",
                             "nvidia.com/mig-1g.10gb": "4", "nvidia.com/mig-3g.40gb": "2"},
                "allocatable": {"cpu": "191450m", "memory": "2046000Ki", "nvidia.com/gpu": "4",
                                "nvidia.com/mig-1g.10gb": "4", "nvidia.com/mig-3g.40gb": "2"},
                "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady",
                                "message": "kubelet is posting ready status"},
                               {"type": "XidCriticalError", "status": "True", "reason": "Xid79",
                                "message": "GPU has fallen off the bus"}],
                "nodeInfo": {"kubeletVersion": "v1.33.5-eks-113cf36"}}},
    {"metadata": {"name": "bare-node"}},
]


def _pruned(value):
    """Without empty mappings and lists (the API leaves an empty field out; describe prints <none>)."""
    if isinstance(value, dict):
        value = {k: _pruned(v) for k, v in value.items()}
        return {k: v for k, v in value.items() if v not in ({}, [], None)}
    if isinstance(value, list):
        return [_pruned(v) for v in value]
    return value


def _kept_node(node: dict) -> dict:
    """What gengpu keeps of a node (live/pasted.py), from the API's own object."""
    spec, status = node.get("spec", {}), node.get("status", {})
    return _pruned({
        "metadata": {"name": node["metadata"]["name"], "labels": node["metadata"].get("labels"),
                     "creationTimestamp": node["metadata"]["creationTimestamp"]},
        # (describe prints taints sorted by effect, then key: kubectl pkg/describe printTaintsMultilineWithIndent)
        "spec": {"taints": sorted(spec.get("taints", []), key=lambda t: (t["effect"], t["key"])),
                 "unschedulable": spec.get("unschedulable"),
                 "providerID": spec.get("providerID")},
        "status": {"capacity": status.get("capacity"), "allocatable": status.get("allocatable"),
                   "conditions": [{k: c[k] for k in ("type", "status", "reason", "message") if c.get(k)}
                                  for c in status.get("conditions", [])],
                   "nodeInfo": {"kubeletVersion": status.get("nodeInfo", {}).get("kubeletVersion")}}})


@pytest.mark.parametrize("node", _UNSEEN_NODES, ids=[n["metadata"]["name"] for n in _UNSEEN_NODES])
def test_a_node_kubectl_describes_is_read_back_as_the_node_it_is(server, node):
    """A node created in the API server (its status as the kubelet sets it) and described by kubectl is read by
    `gengpu check --snapshot` as that node: its name, creation time, labels, taints, whether it is cordoned, its
    provider ID, capacity, allocatable, conditions and kubelet version."""
    from gengpu.live import snapshot

    client, api = server.client()
    core = client.CoreV1Api(api)
    name = node["metadata"]["name"]
    _node(client, core, node)
    stored = json.loads(core.read_node(name, _preload_content=False).read())
    printed = _kubectl(server, "describe", "node", name)
    snap, findings = snapshot.load(printed.encode(), "described.txt")
    (read,) = [item.data for item in snap.nodes]
    assert _pruned({k: read.get(k, {}) for k in ("metadata", "spec", "status")}) == _kept_node(stored)


# DaemonSets of NVIDIA's GPU stack as the operator writes them: one its node selector keeps off every node (DESIRED
# 0: the operator's gpu.deploy label missing), one under a name a team chose (told by its image) with an init
# container, a warning event and no node selector, and one half available.
def _daemonset(name: str, selector: dict, containers: list, init: list = (), **status) -> dict:
    labels = {"app": name}
    return {"metadata": {"name": name, "namespace": "gpu-operator"},
            "spec": {"selector": {"matchLabels": labels},
                     "template": {"metadata": {"labels": labels},
                                  "spec": {**({"nodeSelector": selector} if selector else {}),
                                           **({"initContainers": [{"name": n, "image": i} for n, i in init]}
                                              if init else {}),
                                           "containers": [{"name": n, "image": i} for n, i in containers]}}},
            "status": {"numberReady": 0, **status}}


_UNSEEN_DAEMONSETS = [
    (_daemonset("nvidia-device-plugin-daemonset", {"nvidia.com/gpu.deploy.device-plugin": "true",
                                                   "nvidia.com/gpu.present": "true"},
                [("nvidia-device-plugin", "nvcr.io/nvidia/k8s-device-plugin:v0.18.0")],
                desiredNumberScheduled=0, currentNumberScheduled=0, numberMisscheduled=0), []),
    (_daemonset("team-gpu-plugin", {}, [("plugin", "nvcr.io/nvidia/k8s-device-plugin:v0.17.1")],
                [("wait-for-driver", "nvcr.io/nvidia/cloud-native/gpu-operator-validator:v25.10.0")],
                desiredNumberScheduled=2, currentNumberScheduled=2, numberMisscheduled=0, updatedNumberScheduled=1,
                numberAvailable=1),
     [("Warning", "FailedCreate", 'Error creating: pods "team-gpu-plugin-" is forbidden: exceeded quota', 6)]),
    (_daemonset("nvidia-dcgm-exporter", {"nvidia.com/gpu.deploy.dcgm-exporter": "true"},
                [("nvidia-dcgm-exporter", "nvcr.io/nvidia/k8s/dcgm-exporter:4.2.3-4.1.3-ubuntu22.04")],
                desiredNumberScheduled=4, currentNumberScheduled=4, numberMisscheduled=1, updatedNumberScheduled=4,
                numberAvailable=2), []),
]


@pytest.mark.parametrize("ds, events", _UNSEEN_DAEMONSETS, ids=[d["metadata"]["name"] for d, _ in _UNSEEN_DAEMONSETS])
def test_a_daemonset_kubectl_describes_is_read_back_as_the_daemonset_it_is(server, ds, events):
    """A DaemonSet created in the API server (its status through the status subresource) and described by kubectl
    is read by `gengpu check --snapshot` as that DaemonSet: its name, namespace, node selector, the five counts
    describe prints (desired, current, up to date, available, misscheduled; describe prints no ready count), its
    template's containers and images, and its events."""
    from gengpu.live import snapshot

    client, api = server.client()
    apps = client.AppsV1Api(api)
    _namespace(client, api, "gpu-operator")
    name = ds["metadata"]["name"]
    created = apps.create_namespaced_daemon_set("gpu-operator", {k: v for k, v in ds.items() if k != "status"})
    apps.patch_namespaced_daemon_set_status(name, "gpu-operator", {"status": ds["status"]})
    _events(client.CoreV1Api(api), {"kind": "DaemonSet", "name": name, "namespace": "gpu-operator",
                                    "uid": created.metadata.uid, "apiVersion": "apps/v1"}, events)
    stored = json.loads(apps.read_namespaced_daemon_set(name, "gpu-operator", _preload_content=False).read())
    printed = _kubectl(server, "describe", "daemonset", "-n", "gpu-operator", name)
    snap, findings = snapshot.load(printed.encode(), "described.txt")
    (read,) = [item.data for item in snap.daemonsets]
    template = stored["spec"]["template"]["spec"]
    want = _pruned({"apiVersion": "apps/v1", "kind": "DaemonSet",
                    "metadata": {"name": name, "namespace": "gpu-operator"},
                    "spec": {"template": {"spec": {
                        "initContainers": [{"name": c["name"], "image": c["image"]}
                                           for c in template.get("initContainers", [])],
                        "containers": [{"name": c["name"], "image": c["image"]} for c in template["containers"]],
                        "nodeSelector": template.get("nodeSelector")}}}})
    # (the API leaves a count of 0 out of the status; describe prints it)
    want["status"] = {k: stored["status"].get(k, 0) for k in (
        "desiredNumberScheduled", "currentNumberScheduled", "updatedNumberScheduled", "numberAvailable",
        "numberMisscheduled")}
    assert read == want
    assert [(e.data["involvedObject"], e.data["type"], e.data["reason"], e.data["message"], e.data.get("count", 1))
            for e in snap.events] == [({"kind": "DaemonSet", "name": name, "namespace": "gpu-operator"}, *event)
                                      for event in events]
    assert findings == []


def test_a_described_daemonset_that_runs_nowhere_beside_a_described_gpu_node_is_told(server, run, tmp_path):
    """`kubectl describe node` of a GPU node the operator has not labelled for its device plugin, and `kubectl
    describe daemonset` of the device plugin (DESIRED 0), pasted in one file: the DaemonSet runs on no node, at its
    Name: line, naming the label no GPU node has."""
    client, api = server.client()
    core, apps = client.CoreV1Api(api), client.AppsV1Api(api)
    _node(client, core, {"metadata": {"name": "gpu-node-9", "labels": {"nvidia.com/gpu.present": "true",
                                                                        "nvidia.com/gpu.product": "NVIDIA-L4"}},
                         "status": {"capacity": {"nvidia.com/gpu": "1"}, "allocatable": {"nvidia.com/gpu": "1"}}})
    ds, _ = _UNSEEN_DAEMONSETS[0]
    _namespace(client, api, "gpu-operator")
    try:
        apps.create_namespaced_daemon_set("gpu-operator", {k: v for k, v in ds.items() if k != "status"})
    except client.exceptions.ApiException as exc:
        assert exc.status == 409  # (made by the test above)
    apps.patch_namespaced_daemon_set_status(ds["metadata"]["name"], "gpu-operator", {"status": ds["status"]})
    pasted = (f"$ kubectl describe node gpu-node-9\n{_kubectl(server, 'describe', 'node', 'gpu-node-9')}\n"
              f"$ kubectl describe ds -n gpu-operator nvidia-device-plugin-daemonset\n"
              f"{_kubectl(server, 'describe', 'ds', '-n', 'gpu-operator', 'nvidia-device-plugin-daemonset')}")
    (tmp_path / "pasted.txt").write_text(pasted)
    (tmp_path / "p.yaml").write_text((REPO / "profiles" / "eks-l4-mps.yaml").read_text())
    result = run("check", "p.yaml", "--snapshot", "pasted.txt", "--output", "json", cwd=tmp_path)
    found = [(f["rule"], f["line"], f["message"]) for f in json.loads(result.output)["findings"]
             if f["rule"] == "gpu-stack-daemonset-unscheduled"]
    line = pasted.splitlines().index("Name:           nvidia-device-plugin-daemonset") + 1
    assert found == [("gpu-stack-daemonset-unscheduled", line,
                      "DaemonSet gpu-operator/nvidia-device-plugin-daemonset (NVIDIA device plugin) runs on no node "
                      "while the snapshot has 1 GPU node(s): no GPU node has nvidia.com/gpu.deploy.device-plugin=true")]


# `kubectl get` tables, printed by the real kubectl and read back: nodes with --show-labels (Ready, NotReady and
# cordoned, and no Ready condition: "Unknown"), the GPU stack's DaemonSets, Warning and Normal events, and DRA's
# ResourceClaims (pending, allocated, allocated and reserved) and ResourceSlices.
def _ready(node: dict) -> dict:
    """What `kubectl get nodes --show-labels` shows of a node: kubectl prints Ready for a Ready condition True,
    NotReady for False or Unknown, Unknown where there is none (printNode), SchedulingDisabled where cordoned."""
    ready = [c["status"] for c in node.get("status", {}).get("conditions", []) if c["type"] == "Ready"]
    return _pruned({"name": node["metadata"]["name"], "labels": node["metadata"].get("labels", {}),
                    "ready": ready and ("True" if ready[0] == "True" else "False"),
                    "cordoned": node.get("spec", {}).get("unschedulable")})


_TABLE_NODES = [
    {"metadata": {"name": "gpu-a", "labels": {"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB", "tables": "yes",
                                              "node-role.kubernetes.io/worker": "", "karpenter.sh/nodepool": "gpu"}},
     "status": {"conditions": [{"type": "Ready", "status": "True"}]}},
    {"metadata": {"name": "gpu-b", "labels": {"nvidia.com/gpu.present": "true", "tables": "yes"}},
     "spec": {"unschedulable": True},
     "status": {"conditions": [{"type": "Ready", "status": "Unknown", "reason": "NodeStatusUnknown"}]}},
    {"metadata": {"name": "gpu-c", "labels": {"tables": "yes"}}},
]


def test_kubectl_get_tables_are_read_back_as_the_objects_they_print(server):
    """Each table kubectl prints of objects in the API server, pasted under its command line, is read by `gengpu check
    --snapshot` as those objects: each node's name, labels, readiness and cordon; each DaemonSet's five counts and
    node selector; each event's namespace, object, type, reason, message and, where the table prints it, count (`-o
    wide`, `kubectl events`); each claim's allocation and reservation; each slice's driver, node (none where no one
    node holds its devices) and pool."""
    from gengpu.live import snapshot

    client, api = server.client()
    core, apps, custom = client.CoreV1Api(api), client.AppsV1Api(api), client.CustomObjectsApi(api)
    # (the other tests of this module leave their objects in the same API server: this one's are its own namespaces
    # and nodes labelled tables=yes)
    for ns in ("tables", "team-a"):
        _namespace(client, api, ns)
    for node in _TABLE_NODES:
        _node(client, core, node)
    daemonsets = [
        _daemonset("nvidia-container-toolkit-daemonset", {"nvidia.com/gpu.deploy.container-toolkit": "true"},
                   [("toolkit", "nvcr.io/nvidia/k8s/container-toolkit:v1.17.8")], desiredNumberScheduled=3,
                   currentNumberScheduled=3, numberReady=2, updatedNumberScheduled=3, numberAvailable=2,
                   numberMisscheduled=0),
        _daemonset("gpu-feature-discovery", {}, [("gfd", "nvcr.io/nvidia/k8s-device-plugin:v0.18.0")],
                   desiredNumberScheduled=0, currentNumberScheduled=0, numberReady=0, numberMisscheduled=0)]
    for ds in daemonsets:
        apps.create_namespaced_daemon_set("tables", {**{k: v for k, v in ds.items() if k != "status"},
                                                     "metadata": dict(ds["metadata"], namespace="tables")})
        apps.patch_namespaced_daemon_set_status(ds["metadata"]["name"], "tables", {"status": ds["status"]})
    # (a count above one: kubectl's LAST SEEN says "(x131 over ...)")
    events = [("tables", "Pod", "nvidia-driver-daemonset-abcde", "Warning", "BackOff",
               "Back-off restarting failed container nvidia-driver-ctr in pod nvidia-driver-daemonset-abcde", 131),
              ("default", "Node", "gpu-b", "Warning", "NodeNotReady", "Node gpu-b status is now: NodeNotReady", 1),
              ("tables", "DaemonSet", "gpu-feature-discovery", "Normal", "SuccessfulCreate",
               "Created pod: gpu-feature-discovery-x1y2z", 2)]
    for ns, kind, name, type_, reason, message, count in events:
        _events(core, {"kind": kind, "name": name, **({"namespace": ns} if kind != "Node" else {})},
                [(type_, reason, message, count)])
    custom.create_cluster_custom_object("resource.k8s.io", "v1", "deviceclasses",
                                        {"metadata": {"name": "gpu.nvidia.com"}})
    claims = {"pending": {}, "allocated": {"allocation": {"devices": {"results": [
        {"request": "gpu", "driver": "gpu.nvidia.com", "pool": "gpu-a", "device": "gpu-0"}]}}}}
    claims["in-use"] = dict(claims["allocated"], reservedFor=[{"resource": "pods", "name": "train-0",
                                                                "uid": "00000000-0000-0000-0000-000000000001"}])
    for name, status in claims.items():
        custom.create_namespaced_custom_object("resource.k8s.io", "v1", "team-a", "resourceclaims", {
            "metadata": {"name": name}, "spec": {"devices": {"requests": [
                {"name": "gpu", "exactly": {"deviceClassName": "gpu.nvidia.com"}}]}}})
        if status:
            custom.patch_namespaced_custom_object_status("resource.k8s.io", "v1", "team-a", "resourceclaims", name,
                                                         {"status": status})
    for node in ("gpu-a", "gpu-b"):
        custom.create_cluster_custom_object("resource.k8s.io", "v1", "resourceslices", {
            "metadata": {"name": f"{node}-gpu.nvidia.com"},
            "spec": {"driver": "gpu.nvidia.com", "nodeName": node,
                     "pool": {"name": node, "generation": 1, "resourceSliceCount": 1}, "devices": []}})
    # (a slice of devices no one node holds, IMEX channels for every node: kubectl prints its NODE empty)
    custom.create_cluster_custom_object("resource.k8s.io", "v1", "resourceslices", {
        "metadata": {"name": "imex-channels"},
        "spec": {"driver": "compute-domain.nvidia.com", "allNodes": True,
                 "pool": {"name": "imex", "generation": 1, "resourceSliceCount": 1}, "devices": []}})

    def table(*args: str) -> str:
        printed = _kubectl(server, *args)
        return f"$ kubectl {' '.join(args)}\n{printed}"

    def read(text: str, kind: str) -> list[dict]:
        snap, findings = snapshot.load(text.encode(), "pasted.txt")
        return [item.data for item in getattr(snap, kind)]

    stored = {n["metadata"]["name"]: n for n in json.loads(core.list_node(_preload_content=False).read())["items"]}
    assert [_ready(n) for n in read(table("get", "nodes", "--show-labels", "-l", "tables=yes"), "nodes")] == \
        [_ready(stored[n["metadata"]["name"]]) for n in _TABLE_NODES]

    def counts(ds: dict) -> dict:
        return {"name": ds["metadata"]["name"], "namespace": ds["metadata"].get("namespace"),
                "status": {k: ds["status"].get(k, 0) for k in ("desiredNumberScheduled", "currentNumberScheduled",
                                                               "numberReady", "updatedNumberScheduled",
                                                               "numberAvailable")},
                "selector": ds["spec"].get("template", {}).get("spec", {}).get("nodeSelector", {})}

    want = sorted((counts(ds) for ds in daemonsets), key=lambda d: d["name"])  # (kubectl lists them by name)
    assert [counts(ds) for ds in read(table("get", "daemonsets", "-n", "tables"), "daemonsets")] == \
        [dict(d, namespace="tables") for d in want]
    assert [counts(ds) for ds in read(table("get", "daemonsets", "-A"), "daemonsets")
            if ds["metadata"]["namespace"] == "tables"] == [dict(d, namespace="tables") for d in want]
    # -o wide adds CONTAINERS, IMAGES and SELECTOR after AGE: each container's image is read too
    images = {ds["metadata"]["name"]: [(c["name"], c["image"]) for c in ds["spec"]["template"]["spec"]["containers"]]
              for ds in daemonsets}
    assert [(counts(ds), [(c["name"], c["image"]) for c in ds["spec"]["template"]["spec"]["containers"]])
            for ds in read(table("get", "daemonsets", "-A", "-o", "wide"), "daemonsets")
            if ds["metadata"]["namespace"] == "tables"] == \
        [(dict(d, namespace="tables"), images[d["name"]]) for d in want]

    def said(event: dict) -> tuple:
        about = event["involvedObject"]
        return (event["metadata"].get("namespace"), about["kind"], about["name"], event["type"], event["reason"],
                event["message"], event.get("count", 1))

    # `kubectl get events` prints no count; `-o wide` prints it in COUNT (after an empty SUBOBJECT and the MESSAGE),
    # `kubectl events` in LAST SEEN ("340d (x131 over 340d)")
    for args, counted in ((("get", "events", "-A"), False), (("get", "events", "-A", "-o", "wide"), True),
                          (("events", "-A"), True)):
        got = sorted(said(e)[:7 if counted else 6] for e in read(table(*args), "events")
                     if e["involvedObject"]["name"] in {name for _, _, name, *_ in events})
        assert got == sorted(e[:7 if counted else 6] for e in events), args
    claims_read = {c["metadata"]["name"]: (c["metadata"].get("namespace"), "allocation" in c["status"],
                                           bool(c["status"].get("reservedFor")))
                   for c in read(table("get", "resourceclaims", "-A"), "resourceclaims")}
    assert claims_read == {"pending": ("team-a", False, False), "allocated": ("team-a", True, False),
                           "in-use": ("team-a", True, True)}
    assert [(s["metadata"]["name"], s["spec"]["driver"], s["spec"].get("nodeName"), s["spec"]["pool"]["name"])
            for s in read(table("get", "resourceslices"), "resourceslices")] == \
        [(f"{n}-gpu.nvidia.com", "gpu.nvidia.com", n, n) for n in ("gpu-a", "gpu-b")] + \
        [("imex-channels", "compute-domain.nvidia.com", None, "imex")]


def test_several_custom_resources_kubectl_describes_at_once_are_each_read(server):
    """`kubectl describe computedomains -n NS` prints every ComputeDomain of the namespace one after another: each
    is read, at its Name: line (a name of digits alone stays a name, not a number)."""
    from gengpu.live import snapshot

    client, api = server.client()
    custom = client.CustomObjectsApi(api)
    _namespace(client, api, "domains")
    made = []
    for name, nodes in (("train", [_NODE, dict(_NODE, index=1, name="cluster1-mgx-00017")]),
                        ("infer", [dict(_NODE, name="cluster1-mgx-00020", status="Ready")])):
        spec = {"numNodes": len(nodes), "channel": {"resourceClaimTemplate": {"name": "2024"}}}
        status = {"nodes": nodes, "status": "NotReady"}
        custom.create_namespaced_custom_object("resource.nvidia.com", "v1beta1", "domains", "computedomains",
                                               {"apiVersion": "resource.nvidia.com/v1beta1",
                                                "kind": "ComputeDomain", "metadata": {"name": name}, "spec": spec})
        custom.patch_namespaced_custom_object_status("resource.nvidia.com", "v1beta1", "domains", "computedomains",
                                                     name, {"status": status})
        stored = custom.get_namespaced_custom_object("resource.nvidia.com", "v1beta1", "domains", "computedomains",
                                                     name)
        made.append(({"name": name, "namespace": "domains"}, stored["spec"], stored["status"]))
    printed = _kubectl(server, "describe", "computedomains", "-n", "domains")
    snap, findings = snapshot.load(printed.encode(), "described.txt")
    assert [(d.data["metadata"], d.data["spec"], d.data["status"]) for d in snap.computedomains] == \
        sorted(made, key=lambda m: m[0]["name"])  # (kubectl describes them by name)
    lines = printed.splitlines()
    assert [d.position() for d in snap.computedomains] == \
        [(lines.index(f"Name:         {m[0]['name']}") + 1, 1) for m in sorted(made, key=lambda m: m[0]["name"])]


def test_a_described_key_with_nothing_under_it_is_an_empty_value():
    """A key describe prints with no value and nothing indented under it (an empty field, or the last line of a cut
    paste) is an empty value, not a section."""
    from gengpu.live import described

    lines = ["Name:  x", "Spec:", "Status:", "  Status:  Ready", "  Nodes:"]
    assert described.described(lines, 0, len(lines), {}, ("items", 0)) == \
        {"name": "x", "spec": "", "status": {"status": "Ready", "nodes": ""}}
