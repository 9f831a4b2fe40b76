"""The bounds of the line-shaped pastes (gengpu/live/pasted.py): jq's lines of one object without its braces, the
label and resource lines `kubectl describe node | grep nvidia` keeps, and a `--show-labels` table a paste broke.
Each case is what a user pastes, held to what `check --snapshot` reads from it (the mutation run's survivors asked
for each boundary)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from gengpu.live import pasted, snapshot

CORPUS = Path(__file__).parent / "live-corpus"
COMMAND = "$ kubectl get node gpu-1 -o json | jq .metadata.labels"


@pytest.mark.parametrize("text,pairs", [
    # as jq prints the object's inner lines, under the command that made them
    (f'{COMMAND}\n  "nvidia.com/gpu.product": "Tesla-T4",\n  "nvidia.com/gpu.count": "4"\n',
     {"nvidia.com/gpu.product": "Tesla-T4", "nvidia.com/gpu.count": "4"}),
    # its closing brace kept, blank lines between: a brace or a blank line is no entry and no stranger
    ('  "nvidia.com/gpu.present": "true",\n\n   \n  "nvidia.com/mig.capable": true\n}\n',
     {"nvidia.com/gpu.present": "true", "nvidia.com/mig.capable": True}),
    # one entry alone, no comma
    ('"nvidia.com/gpu.replicas": 4', {"nvidia.com/gpu.replicas": 4}),
])
def test_jq_lines_read_as_the_object_they_were_cut_from(text, pairs):
    assert pasted.looks_like_jq_lines(text) and pasted.read_jq_lines(text) == pairs
    assert pasted.jq_line_error(text) is None
    snap, findings = snapshot.load(text.encode(), "labels.txt")
    # a node's label values are strings (the API refuses others): true and 4 as the text "true" and "4"
    assert findings == [] and [n.labels for n in snap.nodes] == [
        {k: "true" if v is True else str(v) for k, v in pairs.items()}]


@pytest.mark.parametrize("text", [
    # the whole object, braces and all, is JSON: read as JSON, not as jq's lines
    '{\n  "nvidia.com/gpu.product": "Tesla-T4"\n}\n',
    # only a command and braces: no entry
    f"{COMMAND}\n{{\n}}\n",
    "",
    # a line that is neither an entry nor a command: not a jq paste
    '  "nvidia.com/gpu.product": "Tesla-T4",\nnvidia.com/gpu.count=4\n',
    # a value JSON refuses: shaped as jq's, but no object
    '  "nvidia.com/gpu.product": "Tesla\\qT4"\n',
])
def test_what_is_not_jq_lines(text):
    assert not pasted.looks_like_jq_lines(text)


@pytest.mark.parametrize("text,error", [
    # the second entry's value, an escape JSON has not: line 3, its quote at column 29, the backslash six on
    (f'{COMMAND}\n  "nvidia.com/gpu.count": "4",\n  "nvidia.com/gpu.product": "Tesla\\qT4"\n',
     (3, 35, "Invalid \\escape in the value of 'nvidia.com/gpu.product'")),
    ('"a": "\t"', (1, 7, "Invalid control character in the value of 'a'")),
    # a number longer than Python reads (4,300 digits by default): told as such, not with Python's advice on raising
    # its bound
    (f'{COMMAND}\n  "nvidia.com/gpu.count": -{"9" * 5000},\n',
     (2, 27, "a number of 5000 digits, more than the 4300 read, in the value of 'nvidia.com/gpu.count'")),
    # not shaped as jq's (a stranger line), or every value good: no JSON error to tell
    ('  "a": "\\q"\nsomething else\n', None),
    ('  "a": "b"\n', None),
])
def test_a_jq_value_json_refuses_is_named_at_its_line_and_column(text, error):
    assert pasted.jq_line_error(text) == error


def test_a_grep_of_two_nodes_keeps_the_first_nodes_capacity_and_allocatable():
    """`kubectl describe nodes | grep nvidia` over two nodes: Capacity's and Allocatable's lines of the first node
    come first (8, then 7 allocatable), the second node's after; its lines never overwrite the first's."""
    text = ("$ kubectl describe nodes | grep nvidia\n"
            "                    nvidia.com/gpu.product=NVIDIA-H100-80GB-HBM3\n"
            "  nvidia.com/gpu:     8\n"
            "  nvidia.com/gpu:     7\n"
            "  nvidia.com/gpu     2             2\n"
            "  nvidia.com/gpu:     4\n"
            "  nvidia.com/gpu:     3\n")
    assert pasted.read_resource_lines(text) == {"capacity": {"nvidia.com/gpu": "8"},
                                                "allocatable": {"nvidia.com/gpu": "7"}}
    snap, findings = snapshot.load(text.encode(), "grep.txt")
    (node,) = snap.nodes
    assert findings == [] and (node.mapping("status", "capacity"), node.mapping("status", "allocatable")) == \
        ({"nvidia.com/gpu": "8"}, {"nvidia.com/gpu": "7"})


def test_a_show_labels_row_the_paste_wrapped_leaves_the_rows_after_it_read():
    """A LABELS cell an issue's editor wrapped onto a line of its own (the real k3s paste,
    tests/live-corpus/pastes/show-labels-sivambigaim-k3s.txt, its first row broken after a comma): the fragment is no
    row, and the row after it is still read whole, at its line."""
    text = (CORPUS / "pastes" / "show-labels-sivambigaim-k3s.txt").read_text()
    lines = text.splitlines()
    first = lines[2]
    cut = first.index("kubernetes.io/arch=amd64,kubernetes.io/hostname")
    wrapped = "\n".join(lines[:2] + [first[:cut], first[cut:]] + lines[3:]) + "\n"
    whole, _ = snapshot.load(text.encode(), "labels.txt")
    snap, findings = snapshot.load(wrapped.encode(), "labels.txt")
    assert findings == [] and [n.name for n in snap.nodes] == ["master-laptop", "gratitude-laptop"]
    assert snap.nodes[1].labels == whole.nodes[1].labels and len(snap.nodes[1].labels) == 10
    assert snap.nodes[1].doc.position(snap.nodes[1].path) == (5, 1)
    # the first row keeps the labels before the cut
    assert list(snap.nodes[0].labels) == list(whole.nodes[0].labels)[:5]


# a real node (NVIDIA/k8s-device-plugin#112, `kubectl get node 192.168.13.64 -o yaml`: tests/live-corpus/states)
NODE = yaml.safe_load((CORPUS / "states" / "k8s-device-plugin-112-node-yaml-1gpu-allocatable-1.yaml").read_text())


@pytest.mark.parametrize("command, shown", [
    ("jq .status", lambda status: json.dumps(status, indent=2)),
    ("jq '{status}'", lambda status: json.dumps({"status": status}, indent=2)),
    ("jq .status.allocatable", lambda status: json.dumps(status["allocatable"], indent=2)),
])
def test_a_nodes_status_pasted_without_its_kind_is_that_nodes(command, shown):
    """`kubectl get node X -o json | jq ...` of the node's status, or of its allocatable alone: one node, its
    capacity and allocatable as the paste shows them (a resource list alone is taken as capacity)."""
    status = NODE["status"]
    text = f"$ kubectl get node 192.168.13.64 -o json | {command}\n{shown(status)}\n"
    snap, findings = snapshot.load(text.encode(), "status.json")
    (node,) = snap.nodes
    assert findings == [] and node.name == "(pasted node)"
    if command.endswith("allocatable"):
        assert (node.mapping("status", "capacity"), node.mapping("status", "allocatable")) == \
            (status["allocatable"], {})
    else:
        assert (node.mapping("status", "capacity"), node.mapping("status", "allocatable"),
                node.sequence("status", "conditions")) == (status["capacity"], status["allocatable"],
                                                           status.get("conditions", []))


@pytest.mark.parametrize("data", [
    {"status": {"phase": "Running", "podIP": "10.0.0.1"}},  # a pod's status, not a node's
    {"status": {"capacity": {"nvidia.com/gpu": "1"}}, "spec": {}},  # more than a status: no kindless node
    {"phase": "Running", "conditions": []},  # status fields without capacity or allocatable
    {"capacity": {"nvidia.com/gpu": "1"}, "metadata": {"name": "x"}},  # capacity beside what no status holds
    {"status": "ok"},
    {"status": ["capacity"]},
    {"nvidia.com/gpu.product": {"name": "A100"}},  # a label's value is no mapping
    {"app": "web", "tier": "front"},  # labels, but none a node's
])
def test_what_is_no_nodes_status(data):
    assert snapshot._kindless_node(data) is None


def test_a_nodes_labels_alone_are_that_node_by_its_hostname():
    """Kubernetes' own node labels alone (no NVIDIA one) are a node's, named by kubernetes.io/hostname."""
    labels = {"kubernetes.io/hostname": "gpu-1", "kubernetes.io/os": "linux"}
    assert snapshot._kindless_node(labels) == {"apiVersion": "v1", "kind": "Node",
                                               "metadata": {"name": "gpu-1", "labels": labels}}


@pytest.mark.parametrize("labels", [
    # each prefix Kubernetes labels nodes under (the well-known labels), alone
    {"node.kubernetes.io/instance-type": "g5.xlarge"},
    {"beta.kubernetes.io/instance-type": "g5.xlarge"},
    {"nvidia.com/gpu.product": "NVIDIA-A10G"},
])
def test_node_labels_of_each_well_known_prefix_alone_are_a_nodes(labels):
    assert snapshot._kindless_node(labels) == {"apiVersion": "v1", "kind": "Node",
                                               "metadata": {"name": "(pasted labels)", "labels": labels}}


@pytest.mark.parametrize("data, status", [
    ({"status": {"allocatable": {"nvidia.com/gpu": "1"}}}, {"allocatable": {"nvidia.com/gpu": "1"}}),
    ({"status": {"capacity": {"nvidia.com/gpu": "1"}}}, {"capacity": {"nvidia.com/gpu": "1"}}),
    ({"capacity": {"nvidia.com/gpu": "1"}, "nodeInfo": {}}, {"capacity": {"nvidia.com/gpu": "1"}, "nodeInfo": {}}),
    # a resource list alone (`-o jsonpath={.status.capacity}`) is taken as capacity, its values as strings
    ({"nvidia.com/gpu": 1, "cpu": "8"}, {"capacity": {"nvidia.com/gpu": "1", "cpu": "8"}}),
    # status's fields without status: allocatable (no capacity) beside the node's info
    ({"allocatable": {"nvidia.com/gpu": "1"}, "nodeInfo": {"kubeletVersion": "v1.33.1"}},
     {"allocatable": {"nvidia.com/gpu": "1"}, "nodeInfo": {"kubeletVersion": "v1.33.1"}}),
])
def test_a_status_or_its_resources_alone_are_a_nodes(data, status):
    assert snapshot._kindless_node(data) == {"apiVersion": "v1", "kind": "Node",
                                            "metadata": {"name": "(pasted node)"}, "status": status}


@pytest.fixture
def tokyo(monkeypatch):
    """The machine's local time zone nine hours from UTC (gengpu's times must not depend on it)."""
    import time

    monkeypatch.setenv("TZ", "Asia/Tokyo")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.mark.usefixtures("tokyo")
@pytest.mark.parametrize("shown, created", [
    # describe prints RFC 1123 with the zone's offset; the API's creationTimestamp is RFC 3339 in UTC
    ("Thu, 17 Mar 2022 10:11:37 +0100", "2022-03-17T09:11:37Z"),
    ("Mon, 07 Dec 2026 23:30:00 -0800", "2026-12-08T07:30:00Z"),
    # a time without its zone, or no time: none kept
    ("Thu, 17 Mar 2022 10:11:37", None), ("<unknown>", None), ("", None),
])
def test_a_described_nodes_creation_time_is_the_apis_utc_time(shown, created):
    text = f"Name:               gpu-1\nRoles:              <none>\nCreationTimestamp:  {shown}\n" \
           "Capacity:\n  nvidia.com/gpu:  1\n"
    snap, findings = snapshot.load(text.encode(), "node.txt")
    assert findings == [] and [n.data["metadata"].get("creationTimestamp") for n in snap.nodes] == [created]


def test_a_described_pod_cut_above_its_containers_leaves_the_next_pod_read():
    """`kubectl describe pods` pasted from the middle: the first block has no Containers section (cut), and is no
    pod; the next is read whole."""
    text = """Name:             nvidia-dcgm-exporter-4xk2p
Namespace:        gpu-operator
Node:             gpu-1/10.0.3.7

Name:             nvidia-device-plugin-daemonset-q8w4c
Namespace:        gpu-operator
Node:             gpu-1/10.0.3.7
Status:           Running
Containers:
  nvidia-device-plugin:
    Image:          nvcr.io/nvidia/k8s-device-plugin:v0.18.0
    State:          Waiting
      Reason:       CrashLoopBackOff
    Ready:          False
    Restart Count:  7
"""
    snap, findings = snapshot.load(text.encode(), "pods.txt")
    assert findings == []
    assert [(p.name, p.text("metadata", "namespace"), [s["state"] for s in p.data["status"]["containerStatuses"]])
            for p in snap.pods] == [("nvidia-device-plugin-daemonset-q8w4c", "gpu-operator",
                                     [{"waiting": {"reason": "CrashLoopBackOff"}}])]


def test_a_described_event_line_cut_short_is_no_event():
    """An event line of describe's Events table has its type, reason, age, source and message; one cut before its
    message (a paste trimmed at the window's edge) is not read as an event of some other message."""
    text = """Events:
  Type     Reason   Age                  From     Message
  ----     ------   ----                 ----     -------
  Warning  BackOff  2m (x14 over 6m)     kubelet  Back-off restarting failed container nvidia-device-plugin in pod nvidia-device-plugin-daemonset-q8w4c_gpu-operator(1234)
  Warning  Failed   2m (x3 over 6m)
"""
    snap, _ = snapshot.load(text.encode(), "events.txt")
    assert [(e.text("reason"), e.data["involvedObject"].get("name")) for e in snap.events] == [
        ("BackOff", "nvidia-device-plugin-daemonset-q8w4c")]


def test_label_values_yaml_reads_as_booleans_or_numbers_are_the_text_kubernetes_holds():
    """A hand-written snapshot with labels unquoted (`nvidia.com/gpu.present: false`, `nvidia.com/gpu.count: 8`):
    YAML reads a boolean and a number, Kubernetes holds "false" and "8"; the node is read as its labels say (no GPU
    where the operator says none), not as "False"."""
    text = """apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata:
    name: cpu-1
    labels: {nvidia.com/gpu.present: false, nvidia.com/gpu.deploy.driver: false}
- apiVersion: v1
  kind: Node
  metadata:
    name: gpu-1
    labels: {nvidia.com/gpu.count: 8, feature.node.kubernetes.io/pci-10de.present: true, example.com/empty: null}
"""
    from gengpu.live import pools

    snap, findings = snapshot.load(text.encode(), "nodes.yaml")
    assert findings == []
    assert [(n.name, n.labels, pools.is_gpu_node(n)) for n in snap.nodes] == [
        ("cpu-1", {"nvidia.com/gpu.present": "false", "nvidia.com/gpu.deploy.driver": "false"}, False),
        ("gpu-1", {"nvidia.com/gpu.count": "8", "feature.node.kubernetes.io/pci-10de.present": "true",
                   "example.com/empty": ""}, True)]


@pytest.mark.parametrize("text, node", [
    ("nvidia.com/gpu.product=NVIDIA-L4\n  nvidia.com/gpu.count=1\n",
     {"nvidia.com/gpu.product": "NVIDIA-L4", "nvidia.com/gpu.count": "1"}),
    # a sentence among them: not a grep's output, so not read as a node's labels (no guess at which lines are)
    ("nvidia.com/gpu.product=NVIDIA-L4\nnvidia.com/gpu.count=1\nthe node stopped advertising after the upgrade\n",
     None),
])
def test_label_lines_are_read_only_where_every_line_is_one_a_grep_keeps(text, node):
    snap, _ = snapshot.load(text.encode(), "labels.txt")
    assert pasted.looks_like_label_lines(text) is (node is not None)
    assert [n.labels for n in snap.nodes] == ([node] if node else [])


_SHOW_HEADER = "NAME    STATUS   ROLES    AGE   VERSION   LABELS"


def test_a_show_labels_row_cut_inside_a_pair_keeps_the_whole_pairs_before_it():
    """A row cut mid-label (a terminal's width, an editor's wrap): the pairs before the cut are the node's, the
    fragment after the last comma (a key without its value) is no label."""
    text = f"{_SHOW_HEADER}\ngpu-1   Ready    <none>   5d    v1.33.1   nvidia.com/gpu.present=true,kubernetes.io/arc\n"
    snap, findings = snapshot.load(text.encode(), "labels.txt")
    assert findings == [] and [(n.name, n.labels) for n in snap.nodes] == [("gpu-1", {"nvidia.com/gpu.present": "true"})]


def test_a_show_labels_row_cut_before_its_labels_is_no_node():
    """A row whose LABELS cell went whole onto the next line: its labels are unknown, so it is no node (not a node
    without labels, which would be judged as one); the rows after it are read."""
    text = (f"{_SHOW_HEADER}\ngpu-1   Ready    <none>   5d    v1.33.1\nnvidia.com/gpu.present=true\n"
            "gpu-2   Ready    <none>   5d    v1.33.1   nvidia.com/gpu.present=true\n")
    snap, findings = snapshot.load(text.encode(), "labels.txt")
    assert findings == [] and [(n.name, n.labels) for n in snap.nodes] == [("gpu-2", {"nvidia.com/gpu.present": "true"})]


_CONDITIONS = """Name:               gpu-1
Roles:              <none>
Labels:             nvidia.com/gpu.present=true
Conditions:
  Type             Status  LastHeartbeatTime                 LastTransitionTime                Reason                       Message
  ----             ------  -----------------                 ------------------                ------                       -------
  MemoryPressure   False   Mon, 07 Dec 2026 10:00:00 +0000   Mon, 07 Dec 2026 09:00:00 +0000   KubeletHasSufficientMemory   kubelet has sufficient memory available
\tPIDPressure      False   Mon, 07 Dec 2026 10:00:00 +0000   Mon, 07 Dec 2026 09:00:00 +0000   KubeletHasSufficientPID      kubelet has sufficient PID available
  Ready            False   Mon, 07 Dec 2026 10:00:00 +0000   Mon, 07 Dec 2026 09:00:00 +0000   KubeletNotReady              container runtime network not ready: NetworkReady=false
                                                                                                                             message:Network plugin returns error: cni plugin not initialized
Capacity:
  nvidia.com/gpu:  1
"""


def test_every_row_of_a_described_nodes_conditions_is_a_condition_at_its_line():
    """The first row after the rule of dashes, a row pasted with a tab for its indent, and the last: each a condition
    (type, status, reason, message) at its line. A message the paste wrapped onto a line of its own is no condition."""
    snap, findings = snapshot.load(_CONDITIONS.encode(), "node.txt")
    [node] = snap.nodes
    conditions = node.data["status"]["conditions"]
    assert findings == [] and [(c["type"], c["status"], c["reason"]) for c in conditions] == [
        ("MemoryPressure", "False", "KubeletHasSufficientMemory"), ("PIDPressure", "False", "KubeletHasSufficientPID"),
        ("Ready", "False", "KubeletNotReady")]
    assert conditions[2]["message"] == "container runtime network not ready: NetworkReady=false"
    assert [node.doc.position(node.path + ("status", "conditions", i))[0] for i in range(3)] == [7, 8, 9]
