"""A large list from the API server is parsed around the values no check reads (jsontext.parse_unread: an object's
managedFields, a node's images, a container's env ...), which halved the parse of a 20,000-node cluster (issue
50). What it gives must be what the whole parse gives, less exactly those values; what it refuses, the whole parse
refuses for the same reason."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gengpu.live.kube import UNREAD
from gengpu.loading import jsontext

UNREAD_HERE = (("managedFields", "["), ("env", "["), ("annotations", "{"))
_KEYS = st.sampled_from(["managedFields", "env", "annotations", "name", "a"])
# strings that spell a mark, quotes and all: inside a string its quotes are escaped, so it is never a hit
_TEXT = st.one_of(st.text(max_size=6), st.sampled_from([',"env":[', ',"managedFields":[1]', '"annotations":{}', "\\"]))
_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-1000, 1000), _TEXT)
_VALUES = st.recursive(_SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(_KEYS, inner, max_size=4)), max_leaves=25)


def _without_unread(value):
    """value less every unread key whose value opens as the mark says (an array for "[", an object for "{")."""
    if isinstance(value, dict):
        kinds = dict(UNREAD_HERE)
        return {k: _without_unread(v) for k, v in value.items()
                if not (k in kinds and isinstance(v, list if kinds[k] == "[" else dict))}
    if isinstance(value, list):
        return [_without_unread(v) for v in value]
    return value


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(_VALUES, st.booleans())
def test_parsed_around_the_unread_values_is_the_whole_less_them(value, compact):
    # compact as the API server writes it; with spaces (no mark matches) the whole is parsed, as before
    text = json.dumps(value, separators=(",", ":") if compact else (", ", ": "))
    assert _without_unread(jsontext.parse_unread(text.encode(), UNREAD_HERE)) == _without_unread(value)
    if not compact:
        assert jsontext.parse_unread(text.encode(), UNREAD_HERE) == value


def test_a_real_node_and_pod_lose_only_what_no_check_reads():
    """A node and a pod as a real API server writes them (tests/apiload.py): only the listed bulk is gone."""
    import apiload

    node = apiload.real_node({"apiVersion": "v1", "kind": "Node", "metadata": {
        "name": "gpu-1", "labels": {"annotations": "a label named so", "env": "prod"}},
        "status": {"capacity": {"nvidia.com/gpu": "8"}, "conditions": [{"type": "Ready", "status": "True"}]}}, 1)
    node["metadata"]["managedFields"] = [{"manager": "kubelet", "fieldsType": "FieldsV1",
                                          "fieldsV1": {"f:metadata": {"f:labels": {".": {}}}}}]
    raw = json.dumps({"kind": "NodeList", "metadata": {}, "items": [node]}, separators=(",", ":")).encode()
    got = jsontext.parse_unread(raw, UNREAD["nodes"])["items"][0]
    assert "managedFields" not in got["metadata"] and "annotations" not in got["metadata"]
    assert "images" not in got["status"]
    assert got["metadata"]["labels"] == node["metadata"]["labels"]
    assert {"annotations": "a label named so", "env": "prod"}.items() <= got["metadata"]["labels"].items()
    assert got["status"]["capacity"] == node["status"]["capacity"]
    assert got["status"]["nodeInfo"] == node["status"]["nodeInfo"]
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "ml", "managedFields": []},
           "spec": {"nodeName": "gpu-1", "containers": [{"name": "c", "image": "i", "env": [{"name": "A"}],
                                                         "resources": {"limits": {"nvidia.com/gpu": "1"}},
                                                         "command": ["x"], "volumeMounts": []}],
                    "volumes": [{"name": "v"}], "tolerations": [{"key": "nvidia.com/gpu"}]}}
    raw = json.dumps({"kind": "PodList", "metadata": {}, "items": [pod]}, separators=(",", ":")).encode()
    assert jsontext.parse_unread(raw, UNREAD["pods"])["items"][0] == {
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "ml"},
        "spec": {"nodeName": "gpu-1", "containers": [{"name": "c", "image": "i",
                                                      "resources": {"limits": {"nvidia.com/gpu": "1"}}}],
                 "tolerations": [{"key": "nvidia.com/gpu"}]}}


@pytest.mark.parametrize("raw, why", [
    (b'{"items":[{"metadata":{"name":"a","name":"b","managedFields":[]}}]}',
     "the key 'name' is given twice in one object"),
    (b'{"items":[{"metadata":{"name":"a","managedFields":' + b"[" * 100_000 + b"]" * 100_000 + b"}}]}",
     "it is nested deeper than any Kubernetes object or Prometheus answer"),
    (b'{"items":[{"metadata":{"name":"a","managedFields":[{"manager":', "not JSON"),
    (b'{"items":[{"metadata":{"name":"\xff","managedFields":[]}}]}', "not JSON"),
])
def test_what_the_whole_parse_refuses_is_refused_for_the_same_reason(raw, why):
    with pytest.raises(jsontext.JsonRefused) as unread:
        jsontext.parse_unread(raw, UNREAD_HERE)
    with pytest.raises(jsontext.JsonRefused) as whole:
        jsontext.parse(raw)
    assert str(unread.value) == str(whole.value)
    assert str(unread.value).startswith(why)


def test_a_key_twice_within_an_unread_value_is_not_read_so_not_refused():
    """The check for a key given twice is for what gengpu reads: within managedFields nothing is."""
    raw = b'{"items":[{"metadata":{"name":"a","managedFields":[{"manager":"x","manager":"y"}]}}]}'
    assert jsontext.parse_unread(raw, UNREAD_HERE) == {"items": [{"metadata": {"name": "a"}}]}


def test_pods_of_a_capture_share_the_mappings_they_repeat_and_keep_them_whole():
    """60,000 kept pods held 180,000 copies of the three tolerations admission adds to every pod (issue 50: 611 MB
    for 20,000 nodes, 436 MB since): within a capture they share one, equal to what each pod said."""
    from gengpu.live import kube

    def pod(name, gpus):
        return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
                "spec": {"tolerations": [{"key": "node.kubernetes.io/not-ready", "operator": "Exists",
                                          "effect": "NoExecute", "tolerationSeconds": 300},
                                         {"key": "x", "operator": "Exists", "nested": {"a": 1}}],
                         "containers": [{"name": "c", "resources": {"limits": {"nvidia.com/gpu": gpus}}}]}}

    same: dict = {}
    one, two, three = (kube.kept(pod(n, g), same) for n, g in (("a", "1"), ("b", "1"), ("c", "2")))
    assert one["spec"] == pod("a", "1")["spec"] and three["spec"] == pod("c", "2")["spec"]
    assert one["spec"]["tolerations"][0] is two["spec"]["tolerations"][0] is three["spec"]["tolerations"][0]
    # (a mapping holding a mapping is kept as it is)
    assert one["spec"]["tolerations"][1] is not two["spec"]["tolerations"][1]
    limits = [p["spec"]["containers"][0]["resources"]["limits"] for p in (one, two, three)]
    assert limits[0] is limits[1] and limits[2] is not limits[0] and limits[2] == {"nvidia.com/gpu": "2"}
    # outside a capture nothing is shared
    assert kube.kept(pod("a", "1"))["spec"]["tolerations"][0] is not one["spec"]["tolerations"][0]


def test_what_a_snapshot_keeps_of_each_kind():
    """Exactly what the checks read, kind by kind (a pod's scheduling, containers and their states; a DaemonSet's
    placement and images; a node's labels, taints, resources, conditions and kubelet; the operator's node selector
    and device-plugin config; an event whole but for its bookkeeping); everything else is dropped."""
    from gengpu.live import kube

    meta = {"name": "x", "namespace": "gpu-operator", "labels": {"app": "x"}, "creationTimestamp": "2026-01-01T00:00:00Z",
            "ownerReferences": [{"kind": "DaemonSet", "name": "x"}], "uid": "u", "resourceVersion": "1",
            "annotations": {"a": "b"}, "managedFields": [{}]}
    kept_meta = {k: meta[k] for k in ("name", "namespace", "labels", "creationTimestamp", "ownerReferences")}
    container = {"name": "c", "image": "nvcr.io/x:1", "resources": {"limits": {"nvidia.com/gpu": "1"}},
                 "env": [{"name": "A"}], "command": ["x"]}
    status = {"name": "c", "state": {"running": {}}, "lastState": {}, "ready": True, "restartCount": 2,
              "started": True, "image": "x", "imageID": "sha", "containerID": "cri://1"}
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {**meta, "deletionTimestamp": "2026-01-02T00:00:00Z"},
           "spec": {"nodeName": "n", "nodeSelector": {"a": "b"}, "affinity": {}, "tolerations": [{"key": "k"}],
                    "resourceClaims": [{"name": "gpu"}], "schedulerName": "s", "priorityClassName": "p",
                    "runtimeClassName": "nvidia", "volumes": [{}], "serviceAccountName": "sa",
                    "initContainers": [container, "not a container"], "containers": [container]},
           "status": {"phase": "Running", "conditions": [{"type": "Ready"}], "reason": "Evicted", "podIP": "1.2.3.4",
                      "initContainerStatuses": [status], "containerStatuses": [status, 7], "qosClass": "x"}}
    small = {"name": "c", "image": "nvcr.io/x:1", "resources": {"limits": {"nvidia.com/gpu": "1"}}}
    small_status = {k: status[k] for k in ("name", "state", "lastState", "ready", "restartCount", "started")}
    assert kube.kept(pod) == {
        "apiVersion": "v1", "kind": "Pod", "metadata": {**kept_meta, "deletionTimestamp": "2026-01-02T00:00:00Z"},
        "spec": {"nodeName": "n", "nodeSelector": {"a": "b"}, "affinity": {}, "tolerations": [{"key": "k"}],
                 "resourceClaims": [{"name": "gpu"}], "schedulerName": "s", "priorityClassName": "p",
                 "runtimeClassName": "nvidia", "initContainers": [small], "containers": [small]},
        "status": {"phase": "Running", "conditions": [{"type": "Ready"}], "reason": "Evicted",
                   "initContainerStatuses": [small_status], "containerStatuses": [small_status]}}
    ds = {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": meta,
          "spec": {"selector": {}, "updateStrategy": {}, "template": {"metadata": {"labels": {}}, "spec": {
              "nodeSelector": {"a": "b"}, "affinity": {}, "tolerations": [], "volumes": [],
              "containers": [container, None]}}},
          "status": {"desiredNumberScheduled": 1, "numberReady": 0}}
    assert kube.kept(ds) == {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": kept_meta,
                             "spec": {"template": {"spec": {"nodeSelector": {"a": "b"}, "affinity": {}, "tolerations": [],
                                                            "containers": [{"name": "c", "image": "nvcr.io/x:1"}]}}},
                             "status": {"desiredNumberScheduled": 1, "numberReady": 0}}
    node = {"apiVersion": "v1", "kind": "Node", "metadata": meta,
            "spec": {"taints": [{"key": "k", "effect": "NoSchedule"}], "unschedulable": True, "providerID": "aws:///x",
                     "podCIDR": "10.0.0.0/24"},
            "status": {"capacity": {"nvidia.com/gpu": "8"}, "allocatable": {"nvidia.com/gpu": "8"},
                       "conditions": [{"type": "Ready", "status": "True"}], "images": [{}], "addresses": [],
                       "nodeInfo": {"kubeletVersion": "v1.33.1", "osImage": "x"}}}
    assert kube.kept(node) == {"apiVersion": "v1", "kind": "Node", "metadata": kept_meta,
                               "spec": {"taints": [{"key": "k", "effect": "NoSchedule"}], "unschedulable": True,
                                        "providerID": "aws:///x"},
                               "status": {"capacity": {"nvidia.com/gpu": "8"}, "allocatable": {"nvidia.com/gpu": "8"},
                                          "conditions": [{"type": "Ready", "status": "True"}],
                                          "nodeInfo": {"kubeletVersion": "v1.33.1"}}}
    event = {"apiVersion": "v1", "kind": "Event", "metadata": meta, "involvedObject": {"kind": "Pod", "name": "x"},
             "reason": "BackOff", "message": "m", "type": "Warning", "count": 3, "lastTimestamp": "t2",
             "firstTimestamp": "t1", "source": {"component": "kubelet"}, "reportingComponent": "kubelet",
             "eventTime": None}
    assert kube.kept(event) == {**{k: v for k, v in event.items() if k not in ("reportingComponent", "eventTime")},
                                "metadata": kept_meta}
    policy = {"apiVersion": "nvidia.com/v1", "kind": "ClusterPolicy", "metadata": meta,
              "spec": {"nodeSelector": {"a": "b"}, "driver": {"enabled": True},
                       "devicePlugin": {"config": {"name": "cfg", "default": "any"}, "enabled": True}},
              "status": {"state": "ready"}}
    assert kube.kept(policy) == {"apiVersion": "nvidia.com/v1", "kind": "ClusterPolicy", "metadata": kept_meta,
                                 "spec": {"nodeSelector": {"a": "b"},
                                          "devicePlugin": {"config": {"name": "cfg", "default": "any"}}},
                                 "status": {"state": "ready"}}
    # a kind the checks read whole (a ResourceSlice), and objects whose parts are not mappings
    other = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": meta, "spec": {"driver": "d"}}
    assert kube.kept(other) == {**other, "metadata": kept_meta}
    assert kube.kept({"kind": "Pod", "metadata": [], "spec": "x", "status": 1}) == \
        {"apiVersion": None, "kind": "Pod", "metadata": {}, "spec": "x", "status": 1}
    assert kube.kept({"kind": "NVIDIADriver", "spec": {"devicePlugin": []}, "status": None}) == \
        {"apiVersion": None, "kind": "NVIDIADriver", "metadata": {}, "spec": {}}
    # a GPUCluster (the operator's newer API) kept as the ClusterPolicy is, and hostile parts: a DaemonSet's template
    # that is a list, a node's label that is a number (JSON allows one; Kubernetes never sends it)
    gpucluster = {**policy, "apiVersion": "nvidia.com/v1alpha1", "kind": "GPUCluster"}
    assert kube.kept(gpucluster) == {"apiVersion": "nvidia.com/v1alpha1", "kind": "GPUCluster", "metadata": kept_meta,
                                     "spec": {"nodeSelector": {"a": "b"},
                                              "devicePlugin": {"config": {"name": "cfg", "default": "any"}}},
                                     "status": {"state": "ready"}}
    assert kube.kept({"kind": "DaemonSet", "spec": {"template": ["spec"]}, "status": {}}) == \
        {"apiVersion": None, "kind": "DaemonSet", "metadata": {}, "status": {}}
    assert kube.kept({"kind": "Node", "metadata": {"name": "n", "labels": {"nvidia.com/gpu.count": 8, "a": "b"}}}) == \
        {"apiVersion": None, "kind": "Node", "metadata": {"name": "n", "labels": {"nvidia.com/gpu.count": 8, "a": "b"}}}


def test_a_snapshot_file_says_what_could_not_be_read_only_when_something_could_not():
    from gengpu.live import kube

    head = kube.as_list([], {"pods", "nodes"}, [], "context prod")
    assert head == {"apiVersion": "v1", "kind": "List", "items": [], "metadata": {"annotations": {
        "gengpu.dev/snapshot-of": "context prod", "gengpu.dev/captured": "nodes,pods"}}}
    notes = ["ResourceSlices: forbidden", "ComputeDomains: not served"]
    assert kube.as_list([], {"nodes"}, notes, "x")["metadata"]["annotations"]["gengpu.dev/not-read"] == \
        "ResourceSlices: forbidden; ComputeDomains: not served"


@pytest.mark.parametrize("spec, asks", [
    ({"containers": [{"resources": {"limits": {"nvidia.com/gpu": "1"}}}]}, True),
    ({"containers": [{"resources": {"requests": {"nvidia.com/mig-1g.10gb": "1"}}}]}, True),
    ({"initContainers": [{"resources": {"limits": {"nvidia.com/gpu.shared": "1"}}}]}, True),
    ({"resourceClaims": [{"name": "gpu"}], "containers": [{}]}, True),
    ({"containers": [{"resources": {"limits": {"cpu": "1", "amd.com/gpu": "1"}}}, None]}, False),
    ({"containers": None, "resourceClaims": []}, False),
    ({}, False),
])
def test_which_pods_a_live_capture_reads_as_asking_for_a_gpu(spec, asks):
    from gengpu.live import kube

    assert kube._asks_for_gpu({"spec": spec}) is asks


def _daemonset(name: str, image: str) -> dict:
    # (as a list's item: no kind)
    return {"metadata": {"name": name, "namespace": "gpu-operator"},
            "spec": {"selector": {"matchLabels": {"app": name}},
                     "template": {"spec": {"containers": [{"name": "c", "image": image}]}}}}


@pytest.mark.parametrize("obj, kept", [
    # a DaemonSet of the stack by its name alone (an image mirrored under a name gengpu does not know)
    (_daemonset("nvidia-device-plugin-daemonset", "registry.internal/mirror/dp:v0.17.0"), True),
    # by its template's image alone (a name a team chose)
    (_daemonset("gpu-driver-rollout", "nvcr.io/nvidia/driver:580.95.05-ubuntu22.04"), True),
    (_daemonset("fluent-bit", "registry.internal/mirror/dp:v0.17.0"), False),
    # a pod of the stack by its name, another by its image, and one that is neither
    ({"metadata": {"name": "nvidia-dcgm-exporter-4xk2p"},
      "spec": {"containers": [{"name": "c", "image": "registry.internal/x:1"}]}}, True),
    ({"metadata": {"name": "exporter-4xk2p"},
      "spec": {"containers": [{"name": "c", "image": "nvcr.io/nvidia/k8s/dcgm-exporter:4.4.1-4.6.0-ubuntu22.04"}]}},
     True),
    ({"metadata": {"name": "fluent-bit-4xk2p"},
      "spec": {"containers": [{"name": "c", "image": "registry.internal/x:1"}]}}, False),
])
def test_which_daemonsets_and_pods_a_live_capture_keeps_as_the_gpu_stacks(obj, kept):
    from gengpu.live import kube

    assert kube._stack(obj) is kept
