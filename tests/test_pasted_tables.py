"""Real pasted `kubectl get` tables and `kubectl describe pod` text (tests/live-corpus/pastes.yaml, each with its
source) read as `gengpu check --snapshot` reads them, every object held to what the paste itself shows: a
DaemonSet's five numbers and node selector, an event's object, type, reason and message, a claim's state, a
slice's node, driver and pool, a described container's state, last state, readiness and restarts, and each
object's line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

import live_index

from gengpu.live import pasted, snapshot

CORPUS = Path(__file__).parent / "live-corpus"
PASTES = live_index.pastes()
# kubectl's resource names in an OBJECT column, and the kinds they are (`kubectl api-resources`)
KINDS = {"pod": "Pod", "node": "Node", "daemonset": "DaemonSet"}


def _read(entry: dict) -> snapshot.Snapshot:
    raw = (CORPUS / "pastes" / entry["file"]).read_bytes()
    snap, findings = snapshot.load(raw, entry["file"])
    assert snap is not None and findings == [], findings
    # each object remembers the paste it came from: a finding about it names that file
    assert {item.doc.file for kind in snapshot.KINDS.values() for item in getattr(snap, kind)} <= {entry["file"]}
    return snap


def _of(kind: str) -> list[dict]:
    return [e for e in PASTES if e["kind"] == kind]


def _ids(entries):
    return [e["file"] for e in entries]


def test_every_paste_has_its_source_and_every_file_an_entry():
    assert sorted(e["file"] for e in PASTES) == sorted(p.name for p in (CORPUS / "pastes").iterdir())
    assert all(e.get("source") and (e.get("expect") or e.get("events_of")) for e in PASTES)


@pytest.mark.parametrize("entry", _of("daemonsets"), ids=_ids(_of("daemonsets")))
def test_a_daemonsets_table_reads_as_its_rows(entry):
    snap = _read(entry)
    got = []
    for ds in snap.daemonsets:
        status = ds.mapping("status")
        got.append({"name": ds.name, **({"namespace": ds.text("metadata", "namespace")} if ds.text("metadata", "namespace") else {}),
                    "numbers": [status.get(k) for k in ("desiredNumberScheduled", "currentNumberScheduled",
                                                        "numberReady", "updatedNumberScheduled", "numberAvailable")],
                    "selector": ds.mapping("spec", "template", "spec", "nodeSelector"),
                    # (-o wide's CONTAINERS and IMAGES)
                    **({"images": [f"{c['name']}={c['image']}" for c in containers]}
                       if (containers := ds.sequence("spec", "template", "spec", "containers")) else {})})
    assert got == entry["expect"]
    assert len(snap.pods) == entry.get("pods", 0)


@pytest.mark.parametrize("entry", _of("describe-daemonset"), ids=_ids(_of("describe-daemonset")))
def test_a_described_daemonset_reads_as_it_is_printed(entry):
    snap = _read(entry)
    got = []
    for ds in snap.daemonsets:
        status, template = ds.mapping("status"), ds.mapping("spec", "template", "spec")
        got.append({"name": ds.name,
                    **({"namespace": ds.text("metadata", "namespace")} if ds.text("metadata", "namespace") else {}),
                    "numbers": [status.get(k) for k in ("desiredNumberScheduled", "currentNumberScheduled",
                                                        "updatedNumberScheduled", "numberAvailable",
                                                        "numberMisscheduled")],
                    "selector": template.get("nodeSelector", {}),
                    **{key: template[group] for group, key in (("initContainers", "init"), ("containers", "containers"))
                       if template.get(group)}})
        assert "numberReady" not in status  # (describe prints no ready count: not read as none)
    assert got == entry["expect"]
    assert (snap.pods, snap.nodes) == ([], [])


@pytest.mark.parametrize("entry", _of("events"), ids=_ids(_of("events")))
def test_an_events_table_reads_as_its_rows(entry):
    snap = _read(entry)
    got = []
    for ev in snap.events:
        about = ev.mapping("involvedObject")
        got.append(f"{about.get('kind').lower()}/{about.get('name')} {ev.text('type')} {ev.text('reason')}: "
                   f"{ev.text('message')}")
        # (no NAMESPACE column: the namespace is the command's -n, else none is made up)
        assert (ev.text("metadata", "namespace"), about.get("namespace")) == (entry.get("namespace"),) * 2
    assert got == entry["expect"]
    # how many times each happened, where the table prints it (-o wide's COUNT, `kubectl events`' "(xN over M)")
    assert [ev.get("count") or 1 for ev in snap.events] == entry.get("counts", [1] * len(got))


@pytest.mark.parametrize("entry", _of("resourceclaims"), ids=_ids(_of("resourceclaims")))
def test_a_claims_table_reads_as_the_states_it_shows(entry):
    snap = _read(entry)
    got = []
    for claim in snap.resourceclaims:
        states = (["allocated"] if "allocation" in claim.mapping("status") else []) + \
            (["reserved"] if claim.sequence("status", "reservedFor") else [])
        got.append({**({"namespace": claim.text("metadata", "namespace")} if claim.text("metadata", "namespace") else {}), "name": claim.name,
                    "state": ",".join(states) or "pending"})
    assert got == entry["expect"]
    assert len(snap.pods) == entry.get("pods", 0)


@pytest.mark.parametrize("entry", _of("resourceslices"), ids=_ids(_of("resourceslices")))
def test_a_slices_table_reads_as_its_rows(entry):
    snap = _read(entry)
    got = [{"name": s.name, "node": s.text("spec", "nodeName"), "driver": s.text("spec", "driver"),
            "pool": s.text("spec", "pool", "name")} for s in snap.resourceslices]
    assert got == entry["expect"]


def _container(spec: dict, status: dict, shown: dict) -> dict:
    """What the paste shows of a container, from the pod read: the keys the expectation names, no others (a cut
    paste does not show a container's readiness, and its default is not judged)."""
    state = status.get("state") or {}
    last = status.get("lastState") or {}
    kind = next(iter(state), None)
    last_kind = next(iter(last), None)
    resources = spec.get("resources") or {}
    known = {"name": spec.get("name"), "image": spec.get("image"), "state": kind,
             "reason": (state.get(kind) or {}).get("reason") if kind else None,
             "message": (state.get(kind) or {}).get("message") if kind else None,
             "exit_code": (state.get(kind) or {}).get("exitCode") if kind else None,
             "gpu": {k: (resources.get(k) or {}).get("nvidia.com/gpu") for k in ("limits", "requests")},
             "ready": status.get("ready"), "restarts": status.get("restartCount"), "last": last_kind,
             "last_reason": (last.get(last_kind) or {}).get("reason") if last_kind else None,
             "last_exit_code": (last.get(last_kind) or {}).get("exitCode") if last_kind else None,
             "last_message": (last.get(last_kind) or {}).get("message") if last_kind else None}
    return {k: known[k] for k in shown}


@pytest.mark.parametrize("entry", _of("describe-pod"), ids=_ids(_of("describe-pod")))
def test_a_described_pod_reads_as_the_states_it_shows(entry):
    snap = _read(entry)
    assert [p.name for p in snap.pods] == [e["name"] for e in entry["expect"]]
    assert snap.nodes == []  # (a describe of a pod, even cut above its containers, is no node: it has a namespace)
    for pod, want in zip(snap.pods, entry["expect"]):
        owner = pod.sequence("metadata", "ownerReferences")
        assert (pod.text("metadata", "namespace"), pod.text("spec", "nodeName"),
                f"{owner[0]['kind']}/{owner[0]['name']}" if owner else None) == \
            (want["namespace"], want["node"], want["owner"])
        if want.get("terminating"):  # ("Terminating (lasts 105s)": kubectl's word for a pod being deleted)
            assert pod.text("metadata", "deletionTimestamp")
        else:
            assert (pod.text("status", "phase"), pod.text("metadata", "deletionTimestamp")) == (want["phase"], None)
        assert pod.text("status", "reason") == want.get("reason")  # the pod's own (Evicted), where printed
        for group, statuses, key in (("containers", "containerStatuses", "containers"),
                                     ("initContainers", "initContainerStatuses", "init")):
            specs, states = pod.sequence("spec", group), pod.sequence("status", statuses)
            of = {state["name"]: state for state in states}
            assert [_container(s, of.get(s["name"], {}), w) for s, w in zip(specs, want.get(key, []))] == \
                want.get(key, [])
            for state in states:  # (a ContainerStatus: its container's name, these fields only)
                assert isinstance(state["ready"], bool) and isinstance(state["restartCount"], int) and \
                    isinstance(state["state"], dict)
                assert set(state) <= {"name", "ready", "restartCount", "state", "lastState"}
            # a status for each container describe printed one for (a State, Ready or Restart Count line), in order
            assert [s["name"] for s in states] == [w["name"] for w in want.get(key, []) if w.get("state") or
                                                   w.get("ready") is not None or w.get("restarts") is not None]
            assert len(specs) == len(want.get(key, []))
        assert _events(snap, pod.name) == want.get("events", [])
        warnings = [e.text("message") for e in snap.events
                    if e.mapping("involvedObject").get("name") == pod.name and e.text("type") == "Warning"]
        assert warnings[-1:] == ([want["last_warning"]] if "last_warning" in want else [])
    if entry.get("events_of"):
        about = entry["events_of"]
        assert _events(snap, about["name"], about["namespace"]) == about["events"]


def _events(snap, name: str, namespace: str | None = None) -> list[str]:
    out = []
    for e in snap.events:
        about = e.mapping("involvedObject")
        if about.get("name") == name and namespace in (None, about.get("namespace")):
            count = e.get("count")
            out.append(f"{e.text('type')} {e.text('reason')}" + (f" x{count}" if count else ""))
    return out

def test_the_namespace_of_a_command_pasted_on_the_header_line_is_the_rows():
    """The claims of dra-example-driver's paste, its command and header joined on one line as the Intel slices paste
    shows them: the rows are the namespace the command names."""
    lines = (CORPUS / "pastes" / "claims-dra-example-binding-conditions.txt").read_text().splitlines()
    joined = "\n".join([lines[0] + "      " + lines[1], *lines[2:]]) + "\n"
    snap, findings = snapshot.load(joined.encode(), "joined.txt")
    assert [(c.text("metadata", "namespace"), c.name) for c in snap.resourceclaims] == \
        [("binding-conditions", "pod0-gpu-xxxxx")]


# (the states' files, tests/live-corpus/states.yaml gives their sources; written from the paste and the kinds' API:
# kubectl prints a field's name in words, "Clique Id", the API's integers as digits, and a list of one mapping as
# that mapping's fields, as for the one condition here: status.conditions is a list, []metav1.Condition)
CUSTOM = [
    ("dra-driver-1050-computedomain-notready.txt", {
        "apiVersion": "resource.nvidia.com/v1beta1", "kind": "ComputeDomain",
        "metadata": {"name": "(pasted ComputeDomain)"},
        "status": {"nodes": [
            {"cliqueID": "9f410827-489f-46fd-8203-51266ca08eb7.32766", "index": 0, "ipAddress": "10.42.3.138",
             "name": "cluster1-mgx-00011", "status": "NotReady"},
            {"cliqueID": "9f410827-489f-46fd-8203-51266ca08eb7.32766", "index": 1, "ipAddress": "10.42.1.100",
             "name": "cluster1-mgx-00017", "status": "NotReady"}], "status": "NotReady"}}),
    ("docs-kubernetes-devicetaintrule-noexecute.txt", {
        "apiVersion": "resource.k8s.io/v1alpha3", "kind": "DeviceTaintRule", "metadata": {"name": "example"},
        "spec": {"deviceSelector": {"driver": "dra.example.com"},
                 "taint": {"effect": "NoExecute", "key": "dra.example.com/unhealthy",
                           "timeAdded": "2025-11-05T18:15:37Z", "value": "Broken"}},
        "status": {"conditions": [{"lastTransitionTime": "2025-11-05T18:15:37Z",
                                   "message": "1 pod evicted since starting the controller.", "observedGeneration": 1,
                                   "reason": "Completed", "status": "False", "type": "EvictionInProgress"}]}}),
]


@pytest.mark.parametrize("name,want", CUSTOM, ids=[c[0] for c in CUSTOM])
def test_a_described_custom_resource_reads_as_its_fields(name, want):
    snap, findings = snapshot.load((CORPUS / "states" / name).read_bytes(), name)
    read = snap.computedomains + snap.devicetaintrules
    assert [item.data for item in read] == [want]


# (where each paste shows what its rule judges: the ComputeDomain's "Status:" heading is the paste's line 1; the
# DeviceTaintRule's "Taint:" is line 6, indented two spaces under "Spec:")
@pytest.mark.parametrize("name,where", [
    ("dra-driver-1050-computedomain-notready.txt", "1:1: warning computedomain-not-ready"),
    ("docs-kubernetes-devicetaintrule-noexecute.txt", "6:3: warning dra-device-tainted"),
])
def test_a_described_custom_resources_finding_is_at_its_line_in_the_paste(run, tmp_path, name, where):
    import shutil

    shutil.copy(CORPUS / "profiles" / "onprem-gb200-dra.yaml", tmp_path)
    shutil.copy(CORPUS / "states" / name, tmp_path)
    result = run("check", "onprem-gb200-dra.yaml", "--snapshot", name, cwd=tmp_path)
    assert [line.split(" ", 3)[:3] for line in result.stdout.splitlines() if line.startswith(name)] == \
        [f"{name}:{where}".split(" ")]


def test_a_described_node_reads_as_its_fields():
    """`oc describe node` of a p3.2xlarge after the GPU Operator ran (states.yaml gives its source), held to the paste
    field by field as the API names them: 32 labels, no taint, four conditions, both resource sections as printed,
    the kubelet's version (System Info) and the provider ID."""
    name = "openshift-psap-blog-artifacts-pt1-017-p3-gpu-after-operator.txt"
    snap, findings = snapshot.load((CORPUS / "states" / name).read_bytes(), name)
    (node,) = snap.nodes
    labels = node.labels
    assert (node.name, len(labels), labels["beta.kubernetes.io/instance-type"], labels["node-role.kubernetes.io/worker"],
            labels["feature.node.kubernetes.io/pci-10de.present"]) == \
        ("ip-10-0-170-127.ec2.internal", 32, "p3.2xlarge", "", "true")
    assert node.sequence("spec", "taints") == [] and not node.get("spec", "unschedulable")
    assert [(c["type"], c["status"], c.get("reason"), c.get("message")) for c in node.sequence("status", "conditions")] == [
        ("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
        ("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
        ("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
        ("Ready", "True", "KubeletReady", "kubelet is posting ready status")]
    common = {"attachable-volumes-aws-ebs": "39", "hugepages-1Gi": "0", "hugepages-2Mi": "0", "nvidia.com/gpu": "1",
              "pods": "250"}
    assert node.mapping("status", "capacity") == {**common, "cpu": "8", "ephemeral-storage": "125277164Ki",
                                                  "memory": "62867992Ki"}
    assert node.mapping("status", "allocatable") == {**common, "cpu": "7500m", "ephemeral-storage": "115455434152",
                                                     "memory": "62253592Ki"}
    assert (node.text("status", "nodeInfo", "kubeletVersion"), node.text("spec", "providerID")) == \
        ("v1.16.2", "aws:///us-east-1c/i-0c0c8a83dcd5c6ae2")


@pytest.mark.parametrize("entry", _of("show-labels"), ids=_ids(_of("show-labels")))
def test_a_show_labels_table_reads_as_its_rows(entry):
    snap = _read(entry)
    got = []
    for node in snap.nodes:
        ready = [c["status"] for c in node.sequence("status", "conditions") if c.get("type") == "Ready"]
        got.append({"name": node.name, "status": {"True": "Ready", "False": "NotReady"}.get(ready[0] if ready else "",
                                                                                            "?"),
                    "labels": len(node.labels), "some": {k: node.labels.get(k) for k in
                                                         next(r["some"] for r in entry["expect"]
                                                              if r["name"] == node.name)}})
    assert got == entry["expect"]


@pytest.mark.parametrize("entry", _of("describe-node"), ids=_ids(_of("describe-node")))
def test_a_described_nodes_taints_read_as_printed(entry):
    snap = _read(entry)
    got = [{"name": n.name,
            "taints": [t["key"] + (f"={t['value']}" if "value" in t else "") + f":{t['effect']}"
                       for t in n.sequence("spec", "taints")],
            "unschedulable": bool(n.get("spec", "unschedulable"))} for n in snap.nodes]
    assert got == entry["expect"]
    # each taint placed where its text starts, found by a search of the paste's own lines
    lines = (CORPUS / "pastes" / entry["file"]).read_text().splitlines()
    for node, want in zip(snap.nodes, entry["expect"]):
        where = [next((i + 1, line.index(t) + 1) for i, line in enumerate(lines)
                      if line.rstrip().endswith((" " + t, "\t" + t))) for t in want["taints"]]
        assert [node.position("spec", "taints", k) for k in range(len(want["taints"]))] == where


@pytest.mark.parametrize("entry", _of("upgrade-states"), ids=_ids(_of("upgrade-states")))
def test_driver_upgrade_states_read_as_the_last_poll_shows_them(entry):
    """Each node at the state of the last poll that shows it, and placed at that line (found by a search of the
    paste's lines for the node's name at a line's start)."""
    snap = _read(entry)
    assert [{"name": n.name, "state": n.labels.get("nvidia.com/gpu-driver-upgrade-state")} for n in snap.nodes] == \
        entry["expect"]
    lines = (CORPUS / "pastes" / entry["file"]).read_text().splitlines()
    last = [max(i for i, line in enumerate(lines) if line.split()[:1] == [n.name]) for n in snap.nodes]
    assert [n.doc.position(n.path) for n in snap.nodes] == [(i + 1, 1) for i in last]


def _pods_tables() -> list[str]:
    return [e["file"] for e in live_index.states() if e.get("format") == "pods-table"] + \
        [f"pastes/{e['file']}" for e in PASTES if e.get("pods")]


def _rows(text: str) -> list[dict]:
    """Each pod row of a paste as kubectl's columns name its cells (kubectl pads columns with two spaces or more; a
    RESTARTS cell "7 (2m ago)" has single spaces; a row a grep kept has no header above it): the paste read
    without gengpu."""
    import re

    rows = []
    for line in text.splitlines():
        cells = re.split(r"\s{2,}", line.strip())
        at = next((i for i, c in enumerate(cells[:3]) if re.match(r"^\d+/\d+$", c)), None)
        if at is None or at == 0 or len(cells) < at + 4 or cells[at - 1] == "NAME":
            continue
        rows.append({"NAME": cells[at - 1], "READY": cells[at], "STATUS": cells[at + 1], "RESTARTS": cells[at + 2],
                     **({"NAMESPACE": cells[0]} if at == 2 else {}),
                     **({"NODE": cells[at + 5]} if len(cells) > at + 5 else {})})  # (-o wide: AGE, IP, NODE)
    return rows


@pytest.mark.parametrize("name", _pods_tables())
def test_every_pod_row_reads_back_as_kubectl_printed_it(name):
    """A pods table's row becomes the pod whose container states kubectl would print as the same READY, STATUS
    and RESTARTS (live/stack.py computes them as kubectl's printPod does): every row of every pods table of the
    corpus, read back."""
    from gengpu.live import stack

    raw = (CORPUS / name).read_bytes()
    snap, _ = snapshot.load(raw, name)
    rows = _rows(raw.decode())
    assert rows
    pods = {p.name: p for p in snap.pods}
    for row in rows:
        pod = pods[row["NAME"].removeprefix("pod/")]
        shown = stack.state(pod)
        assert (shown.ready, shown.shown.replace("Init: ", "Init:"), shown.restarts) == \
            (row["READY"], row["STATUS"].replace("Init: ", "Init:"), int(row["RESTARTS"].split()[0])), row
        if "NAMESPACE" in row:
            assert pod.text("metadata", "namespace") == row["NAMESPACE"]
        # (and a v1 Pod as the API has one: a container per READY's count, each status of its container's name with
        # a ContainerStatus's fields, all in one state)
        data, total = pod.data, int(row["READY"].split("/")[1])
        assert (data["apiVersion"], data["kind"], data["metadata"]["name"]) == ("v1", "Pod", pod.name)
        specs = data["spec"]["containers"]
        assert len(specs) == total and all(set(c) == {"name"} for c in specs)
        for key in ("containerStatuses", "initContainerStatuses"):
            for status in data["status"].get(key, []):
                assert {"name", "ready", "restartCount", "state"} <= set(status) and len(status["state"]) == 1
                assert status["state"].keys() <= {"running", "waiting", "terminated"} and \
                    isinstance(status["ready"], bool) and isinstance(status["restartCount"], int)
        assert [s["name"] for s in data["status"]["containerStatuses"]] == [c["name"] for c in specs]
        if "NODE" in row:  # -o wide: the pod's node as printed
            assert data["spec"].get("nodeName") == row["NODE"]
        elif not re.search(r"\sNODE\s", raw.decode()):  # (no -o wide: the pod's node is not shown, so not guessed)
            assert "nodeName" not in data["spec"]


def _aligned(rows: list[list[str]]) -> str:
    """Rows as kubectl's tab writer prints them: each column as wide as its widest cell, three spaces apart."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "".join("   ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() + "\n" for r in rows)


@pytest.mark.parametrize("shown, state", [
    # kubectl's printPod prints a terminated container without a reason as ExitCode:%d of the API's int32 (signed: a
    # Windows code such as 0xC000013A shows as -1073741510), or as Signal:%d where a signal is set
    ("ExitCode:3", {"terminated": {"exitCode": 3}}),
    ("ExitCode:-1073741510", {"terminated": {"exitCode": -1073741510}}),
    ("ExitCode:2147483647", {"terminated": {"exitCode": 2147483647}}),
    ("ExitCode:-2147483648", {"terminated": {"exitCode": -2147483648}}),
    # (the signal's exit code is not shown: unknown, so a failure)
    ("Signal:9", {"terminated": {"exitCode": 1, "signal": 9}}),
    # past int32, which no cluster prints: a failure of unknown code, never a figure the API would refuse
    ("ExitCode:2147483648", {"terminated": {"exitCode": 1}}),
    ("ExitCode:-2147483649", {"terminated": {"exitCode": 1}}),
    ("ExitCode:4294967296", {"terminated": {"exitCode": 1}}),
    ("ExitCode:" + "9" * 40, {"terminated": {"exitCode": 1}}),
])
@pytest.mark.parametrize("init", [False, True])
def test_an_ended_containers_exit_code_or_signal_reads_as_the_int32_kubectl_printed(shown, state, init):
    """A row whose STATUS is an ended container's exit code or signal is that container, terminated, with its
    restarts (not a reason of the pod's own, which has none): the row's kubectl figures are kept whole."""
    from gengpu.live import stack

    text = "$ kubectl get pods -n gpu-operator\n" + _aligned([
        ["NAME", "READY", "STATUS", "RESTARTS", "AGE"],
        ["nvidia-device-plugin-daemonset-abcde", "0/1", f"Init:{shown}" if init else shown, "4", "1d"]])
    snap, findings = snapshot.load(text.encode(), "pods.txt")
    assert findings == []
    [pod] = snap.pods
    statuses = pod.data["status"]["initContainerStatuses" if init else "containerStatuses"]
    assert statuses[-1]["state"] == state and statuses[-1]["restartCount"] == 4
    code = state["terminated"]
    printed = f"Signal:{code['signal']}" if "signal" in code else f"ExitCode:{code['exitCode']}"
    assert (stack.state(pod).shown, stack.state(pod).restarts) == (("Init:" if init else "") + printed, 4)


def _json_pastes() -> list[str]:
    states = live_index.states()
    return [e["file"] for e in states if e.get("format") == "labels-json" or
            any(w in str(e.get("format")) for w in ("jq", "jsonpath")) and "upgrade-state" not in e["format"]]


@pytest.mark.parametrize("name", _json_pastes())
def test_a_node_pasted_as_json_or_jq_lines_holds_every_pair_it_shows(name):
    """A node's labels or resources pasted as JSON (`jq .metadata.labels`, `-ojsonpath={.status.capacity}`) or as
    the lines of one (a grep of them): every "key": value pair of the paste (read here with a regex over the text,
    without gengpu) is the node's label or resource, and nothing else is."""
    import json
    import re

    raw = (CORPUS / name).read_bytes()
    pairs = {m.group(1): str(json.loads(m.group(2))).lower() if m.group(2) in ("true", "false") else
             str(json.loads(m.group(2)))
             for m in re.finditer(r'"([^"]+)"\s*:\s*("(?:[^"\\]|\\.)*"|true|false|-?\d+(?:\.\d+)?)', raw.decode())}
    snap, _ = snapshot.load(raw, name)
    (node,) = snap.nodes
    read = {**node.labels, **node.mapping("status", "capacity"), **node.mapping("status", "allocatable")}
    assert read == pairs


@pytest.mark.parametrize("bad,reason", [("\\q", "Invalid \\escape"), ("\t", "Invalid control character")])
def test_jq_lines_whose_value_is_not_json_are_a_finding_at_that_value(bad, reason):
    """A jq-lines paste (states: docs-openshift-time-slicing-t4-g4dn-labels.json) with one value JSON refuses, an
    escape JSON has not or a raw tab (what a hand edit leaves): its reading stops with a finding at that value, never
    a traceback (scripts/fuzz-style mutation of the corpus found the crash) nor YAML's complaint about line 1."""
    text = (CORPUS / "states" / "docs-openshift-time-slicing-t4-g4dn-labels.json").read_text()
    broken = text.replace('"Tesla-T4"', f'"Tesla{bad}T4"', 1)
    assert broken != text
    snap, findings = snapshot.load(broken.encode(), "labels.json")
    # (line 6 is `"nvidia.com/device-plugin.config": "Tesla-T4",`: its value's quote at column 36, the bad character
    # six further on)
    assert snap is None
    assert [(f.file, f.line, f.column, f.severity, f.rule, f.message) for f in findings] == [
        ("labels.json", 6, 42, "error", "yaml-syntax",
         f"invalid JSON: {reason} in the value of 'nvidia.com/device-plugin.config'")]
    assert findings[0].fix == ("a line of jq's output holds a JSON value: a backslash is written \\\\ and a tab "
                               "\\t; or paste the whole `kubectl get node NAME -o json`")


@pytest.mark.parametrize("collapse", [False, True])
def test_pod_rows_without_their_header_read_as_the_tables_pods(collapse):
    """`kubectl get pods | grep nvidia` prints the rows without the header: each row is still the pod the table
    shows (an OpenShift docs page's state, one STATUS printed "Init: 0/1"), aligned or with its spaces collapsed,
    and no line of them is left to the other readers."""
    from gengpu.live import tables

    text = (CORPUS / "states" / "docs-openshift-driver-crashloop-operands-init.txt").read_text()
    rows = text.splitlines()[1:]
    if collapse:
        rows = [" ".join(row.split()) for row in rows]
    with_header, _ = snapshot.load(text.encode(), "pods.txt")
    alone, findings = snapshot.load(("\n".join(rows) + "\n").encode(), "pods.txt")
    assert findings == [] and [p.data for p in alone.pods] == [p.data for p in with_header.pods]
    assert [p.position("metadata", "name") for p in alone.pods] == [(i, 1) for i in range(1, len(rows) + 1)]
    assert tables.read("\n".join(rows), "pods.txt")[2].strip() == ""


def _described_nodes() -> list[str]:
    return sorted(f"states/{p.name}" for p in (CORPUS / "states").glob("*.txt")
                  if re.search(r"^(Labels|Taints|Conditions):", p.read_text(errors="replace"), re.M)
                  and not re.search(r"^(Namespace|Kind):", p.read_text(errors="replace"), re.M))


@pytest.mark.parametrize("name", _described_nodes())
def test_each_label_taint_and_condition_of_a_described_node_is_where_the_paste_shows_it(name):
    """A finding about a described node's label, taint or condition points at it. Where each is, is found here in
    the paste's own lines, without gengpu: a label as `name=value` and a taint as printed (key[=value]:Effect), at
    the first line of the node's block that shows it and the column it starts; a condition's row by its type, first
    in an indented line of the Conditions table."""
    text = (CORPUS / name).read_text(errors="replace")
    lines = text.splitlines()
    snap, _ = snapshot.load(text.encode(), name)
    starts = [i for i, line in enumerate(lines) if line.startswith("Name:")] or [0]
    checked = 0
    for node, start, end in zip(snap.nodes, starts, starts[1:] + [len(lines)]):
        def where(pattern: str, after: int = start) -> tuple[int, int]:
            for i in range(after, end):
                m = re.search(pattern, lines[i])
                if m:
                    return i + 1, m.start(1) + 1
            raise AssertionError(f"{pattern} not in the paste")

        place = node.doc.position
        for label, value in node.labels.items():
            assert place(node.path + ("metadata", "labels", label)) == \
                where(rf"(?:^Labels:\s+|^\s+)({re.escape(label)}={re.escape(value)})\s*$"), label
            checked += 1
        for n, taint in enumerate(node.sequence("spec", "taints")):
            shown = taint["key"] + (f"={taint['value']}" if "value" in taint else "") + f":{taint['effect']}"
            assert place(node.path + ("spec", "taints", n)) == \
                where(rf"(?:^Taints:\s+|^\s+)({re.escape(shown)})\s*$"), shown
            checked += 1
        conditions = node.sequence("status", "conditions")
        table = where(r"^(Conditions):")[0] if conditions else start
        for n, condition in enumerate(conditions):
            assert place(node.path + ("status", "conditions", n)) == \
                where(rf"^\s+({re.escape(condition['type'])})\s", table), condition["type"]
            checked += 1
        if node.text("status", "nodeInfo", "kubeletVersion"):  # (at its line's start: a node's version)
            assert place(node.path + ("status", "nodeInfo", "kubeletVersion")) == \
                (where(r"^(\s+)Kubelet Version:")[0], 1)
            checked += 1
    assert checked


def test_a_command_line_in_another_encoding_above_yaml_is_still_a_command_line():
    """A prompt from a Latin-1 terminal (a host named hôte: one byte 0xE9, no UTF-8) above `kubectl get node -o yaml`:
    the command line is blanked as any other, and the node below it read, not an internal error."""
    raw = b"user@h\xf4te:~$ kubectl get node gpu-1 -o yaml\napiVersion: v1\nkind: Node\nmetadata:\n  name: gpu-1\n"
    snap, findings = snapshot.load(raw, "node.yaml")
    assert ([n.name for n in snap.nodes], findings) == (["gpu-1"], [])
    assert snap.nodes[0].position("metadata", "name") == (5, 9)


# shells' command lines as real pastes show them (RHEL's bash: openshift-psap's describe paste; Ubuntu's root
# prompt; a `k` alias: the resourceslices paste with its header on the command line), put above each kind of paste
PROMPTS = ["$ kubectl get {what}", "[user@host ~]$ kubectl get {what}", "root@host:~# kubectl get {what}",
           "k get {what}", "% oc get {what}"]


@pytest.mark.parametrize("name,what", [
    ("docs-openshift-a100-mixed-all-2g.10gb-gfd-labels.txt", "node x -o json | jq -r '.metadata.labels'"),
    ("docs-openshift-time-slicing-t4-g4dn-labels.json", "node x -o json | jq '.metadata.labels'"),
    ("k8s-device-plugin-112-node-yaml-1gpu-allocatable-1.yaml", "node x -o yaml"),
    ("docs-gpu-operator-getting-started-pods-healthy.txt", "pods"),
])
@pytest.mark.parametrize("prompt", PROMPTS)
def test_a_command_line_above_a_paste_is_read_alike_by_every_reader(name, what, prompt):
    """One definition of a shell's command line (pasted.COMMAND) for every pasted form: the objects read under any
    prompt are the paste's own (a label paste under RHEL's prompt was refused, a YAML node under a `k` alias was
    YAML's error)."""
    raw = (CORPUS / "states" / name).read_bytes()
    alone, _ = snapshot.load(raw, name)
    under, findings = snapshot.load(prompt.format(what=what).encode() + b"\n" + raw, name)
    assert findings == [] and under is not None
    read = [(item.data, item.doc.position(item.path) if hasattr(item.doc, "places") else None)
            for item in (*alone.nodes, *alone.pods)]
    assert [item.data for item in (*under.nodes, *under.pods)] == [data for data, _ in read]


# (the paste's lines: "Status:" 1, "  Nodes:" 2, the first node's "    Status: NotReady" 7, the second's "    Name:" 11,
# the domain's "  Status: NotReady" 13; the rule's "    Effect:" 7 and the condition's "    Type:" 18)
@pytest.mark.parametrize("name,path,where", [
    ("dra-driver-1050-computedomain-notready.txt", ("status",), (1, 1)),
    ("dra-driver-1050-computedomain-notready.txt", ("status", "nodes"), (2, 3)),
    ("dra-driver-1050-computedomain-notready.txt", ("status", "nodes", 0, "status"), (7, 5)),
    ("dra-driver-1050-computedomain-notready.txt", ("status", "nodes", 0, "cliqueID"), (3, 5)),
    ("dra-driver-1050-computedomain-notready.txt", ("status", "nodes", 1, "name"), (11, 5)),
    ("dra-driver-1050-computedomain-notready.txt", ("status", "status"), (13, 3)),
    ("docs-kubernetes-devicetaintrule-noexecute.txt", ("spec", "taint", "effect"), (7, 5)),
    ("docs-kubernetes-devicetaintrule-noexecute.txt", ("status", "conditions", 0, "type"), (18, 5)),
])
def test_each_field_of_a_described_custom_resource_is_where_the_paste_shows_it(name, path, where):
    snap, _ = snapshot.load((CORPUS / "states" / name).read_bytes(), name)
    (item,) = snap.computedomains + snap.devicetaintrules
    assert item.doc.position(item.path + path) == where


@pytest.mark.parametrize("entry", _of("show-labels"), ids=_ids(_of("show-labels")))
def test_every_show_labels_row_reads_back_whole_at_its_line(entry):
    """Each row under the LABELS header, found here with a split of the paste's own lines, is one v1 Node at that
    row's line: its name, every key=value of the LABELS cell (a key without = is none), Ready as the STATUS's first
    word says, unschedulable where STATUS says SchedulingDisabled."""
    lines = (CORPUS / "pastes" / entry["file"]).read_text().splitlines()
    header = next(i for i, line in enumerate(lines) if line.split()[:2] == ["NAME", "STATUS"] and
                  line.split()[-1] == "LABELS")
    want = []
    for i in range(header + 1, len(lines)):
        cells = lines[i].split()
        if len(cells) < len(lines[header].split()):
            continue
        labels = dict(pair.split("=", 1) for pair in cells[-1].split(",") if "=" in pair and not pair.startswith("="))
        node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": cells[0], "labels": labels}}
        ready = cells[1].split(",")[0]
        if ready in ("Ready", "NotReady"):
            node["status"] = {"conditions": [{"type": "Ready", "status": str(ready == "Ready")}]}
        if "SchedulingDisabled" in cells[1].split(","):
            node["spec"] = {"unschedulable": True}
        want.append((node, (i + 1, 1)))
    snap = _read(entry)
    assert [(n.data, n.doc.position(n.path)) for n in snap.nodes] == want


@pytest.mark.parametrize("entry", _of("events-all-namespaces"), ids=_ids(_of("events-all-namespaces")))
def test_an_all_namespaces_events_table_reads_each_row_in_its_namespace(entry):
    """`kubectl get events -A`: each row an event in the row's NAMESPACE about the object printed (kind/name, a Pod
    by its API kind), of its type, reason and whole message, at the row's line (the header's line plus its row)."""
    lines = (CORPUS / "pastes" / entry["file"]).read_text().splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("NAMESPACE"))
    snap = _read(entry)
    got = [(e.text("metadata", "namespace"), e.mapping("involvedObject").get("namespace"),
            f"{e.mapping('involvedObject').get('kind')}/{e.mapping('involvedObject').get('name')}", e.text("type"),
            e.text("reason"), e.text("message"), e.doc.position(e.path)) for e in snap.events]
    assert got == [(r["namespace"], r["namespace"], r["object"].replace("pod/", "Pod/", 1), r["type"], r["reason"],
                    r["message"], (header + 2 + n, 1)) for n, r in enumerate(entry["expect"])]


@pytest.mark.parametrize("entry", _of("describe-pod"), ids=_ids(_of("describe-pod")))
def test_a_described_pod_and_its_events_are_placed_at_their_lines(entry):
    """A finding about a described pod points at its Name: line (the first line, where the paste is cut above it), and
    one about an event at its row of the Events table: each found by a search of the paste's own lines."""
    lines = (CORPUS / "pastes" / entry["file"]).read_text().splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith("Name:")] or \
        [next(i for i, line in enumerate(lines) if line.strip())]
    snap = _read(entry)
    assert [p.doc.position(p.path) for p in snap.pods] == [(i + 1, 1) for i in starts][:len(entry["expect"])]
    rows = [i for i, line in enumerate(lines) if re.match(r"^\s+(Warning|Normal)\s", line)]
    assert [e.doc.position(e.path) for e in snap.events] == [(i + 1, 1) for i in rows]


# (not `kubectl get events -o wide`: collapsed, its row cannot be told apart by words: SUBOBJECT may be empty, SOURCE
# ("kubelet, node") and MESSAGE are several words each, and neither is the last column)
_TABLES = [e for e in PASTES if not e["kind"].startswith("describe-") and e["kind"] != "upgrade-states"
           and not e["file"].startswith("events-wide-")]
_HEADER = re.compile(r"(^|\s)(NAME|NAMESPACE|LAST SEEN)\s{2,}[A-Z]")  # (after a command, where its newline was lost)


# (and a state's table whose STATUS is "Init: 0/1", two words, as an OpenShift docs page printed it)
@pytest.mark.parametrize("name", [f"pastes/{e['file']}" for e in _TABLES] +
                         ["states/docs-openshift-driver-crashloop-operands-init.txt"])
def test_a_row_whose_spaces_were_collapsed_reads_as_the_aligned_row(name):
    """A row pasted where runs of spaces became one (a table copied from rendered text) no longer lies under its
    header's columns: it is read by its words, as the same object as the aligned row. Two misreadings did this
    before: a collapsed row shorter than the header was taken as aligned (its whole text the pod's name), and an
    event message starting "(combined from similar events)" was glued to the OBJECT before it."""
    raw = (CORPUS / name).read_text()
    lines, header = [], False
    for line in raw.splitlines():
        header = header or bool(_HEADER.search(line))
        table_row = header and line.strip() and not _HEADER.search(line) and not pasted.COMMAND.match(line)
        lines.append(" ".join(line.split()) if table_row else line)

    def objects(text: str) -> list:
        snap, _ = snapshot.load(text.encode(), name)
        return [i.data for kind in ("nodes", "pods", "daemonsets", "events", "resourceclaims", "resourceslices")
                for i in getattr(snap, kind)]

    assert lines != raw.splitlines() and objects("\n".join(lines) + "\n") == objects(raw)


def _described_nodes() -> list[str]:
    states = live_index.states()
    files = [f"pastes/{e['file']}" for e in PASTES if e["kind"] == "describe-node"] + [e["file"] for e in states]
    texts = {f: (CORPUS / f).read_text() for f in files}
    return [f for f, text in texts.items() if re.search(r"^Name:\s+\S", text, re.M) and
            re.search(r"^(Capacity|Allocatable|Conditions):", text, re.M)]


@pytest.mark.parametrize("name", _described_nodes())
def test_a_described_nodes_name_and_sections_are_placed_at_their_lines(name):
    """A finding about a described node points at its Name: line, one about its capacity, allocatable or conditions
    at that section's heading: each found by a search of the paste's own lines, within the node's block."""
    lines = (CORPUS / name).read_text().splitlines()
    starts = [i for i, line in enumerate(lines) if re.match(r"^Name:\s+\S", line)]
    snap, _ = snapshot.load((CORPUS / name).read_bytes(), name)
    assert [(n.name, n.position()) for n in snap.nodes] == \
        [(lines[i].split(None, 1)[1].strip(), (i + 1, 1)) for i in starts]
    for node, start, end in zip(snap.nodes, starts, starts[1:] + [len(lines)]):
        assert node.position("metadata", "name") == (start + 1, 1)
        for heading, path in (("Capacity", ("status", "capacity")), ("Allocatable", ("status", "allocatable")),
                              ("Conditions", ("status", "conditions"))):
            at = next((i for i in range(start, end) if lines[i].startswith(heading + ":")), None)
            if at is not None:
                assert node.position(*path) == (at + 1, 1), heading


def test_a_field_no_line_of_the_paste_holds_is_placed_at_the_nearest_that_does():
    """A finding about a field the paste placed nowhere (a condition's message, a node's status) points at the
    nearest enclosing field it did place (the condition's row, the node's Name: line); about nothing placed, at the
    paste's first line."""
    doc = pasted.TextDoc("pasted.txt", {("items", 0): (5, 1), ("items", 0, "status", "conditions", 0): (12, 3)})
    assert doc.position(("items", 0, "status", "conditions", 0, "message")) == (12, 3)
    assert doc.position(("items", 0, "status", "conditions", 0)) == (12, 3)
    assert doc.position(("items", 0, "status")) == (5, 1)
    assert doc.position(("items", 0, "status", "capacity", "nvidia.com/gpu")) == (5, 1)
    assert doc.position(("items", 1, "metadata")) == (1, 1)
    assert doc.position(()) == (1, 1)



def test_a_described_node_cut_above_its_name_is_placed_at_the_lines_the_paste_has():
    """A `kubectl describe node` pasted from its Labels down has no Name: line: the node is unnamed, at the paste's
    first line, and each label and count at its own line as the paste numbers them (not one further down)."""
    text = ("Labels:             nvidia.com/gpu.present=true\n"
            "                    nvidia.com/gpu.product=NVIDIA-L4\n"
            "Capacity:\n  nvidia.com/gpu:  1\nAllocatable:\n  nvidia.com/gpu:  1\n")
    snap, findings = snapshot.load(text.encode(), "cut.txt")
    (node,) = snap.nodes
    assert (node.name, findings) == ("(pasted node)", [])
    assert [node.position(*path) for path in [
        ("metadata", "name"), ("metadata", "labels", "nvidia.com/gpu.present"),
        ("metadata", "labels", "nvidia.com/gpu.product"), ("status", "capacity", "nvidia.com/gpu"),
        ("status", "allocatable", "nvidia.com/gpu")]] == [(1, 1), (1, 21), (2, 21), (4, 3), (6, 3)]


def test_a_pending_pods_node_none_is_no_node():
    """`kubectl get pods -o wide` prints a pod not yet scheduled with NODE and IP `<none>` (printPod): it is no pod
    of a node named "<none>". A scheduled one is its node's."""
    text = "$ kubectl get pods -n gpu-operator -o wide\n" + _aligned([
        ["NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "NOMINATED NODE", "READINESS GATES"],
        ["nvidia-dcgm-exporter-4xk2p", "0/1", "Pending", "0", "5m", "<none>", "<none>", "<none>", "<none>"],
        ["nvidia-device-plugin-daemonset-q8w4c", "1/1", "Running", "0", "5m", "10.0.3.7", "gpu-1", "<none>",
         "<none>"]])
    snap, findings = snapshot.load(text.encode(), "pods.txt")
    assert findings == []
    assert [(p.name, p.text("metadata", "namespace"), p.data["spec"].get("nodeName")) for p in snap.pods] == [
        ("nvidia-dcgm-exporter-4xk2p", "gpu-operator", None), ("nvidia-device-plugin-daemonset-q8w4c", "gpu-operator",
                                                               "gpu-1")]


@pytest.mark.parametrize("row", [
    {"NAME": "", "READY": "0/1", "STATUS": "Pending", "RESTARTS": "0"},  # no name
    {"NAME": "nvidia-dcgm-exporter-4xk2p", "READY": "0/1", "STATUS": "", "RESTARTS": "0"},  # no status
    {"NAME": "nvidia-dcgm-exporter-4xk2p", "READY": "Pending", "STATUS": "0/1", "RESTARTS": "0"},  # shifted
    {"NAME": "nvidia-dcgm-exporter-4xk2p", "READY": "", "STATUS": "Pending", "RESTARTS": "0"},
])
def test_a_pods_row_without_a_name_a_status_or_a_ready_count_is_no_pod(row):
    from gengpu.live import tables

    assert tables._pod_row(row) is None


def test_a_pods_row_of_the_columns_a_table_may_leave_out():
    """Without -A there is no NAMESPACE, without -o wide no NODE, and a collapsed row may leave RESTARTS empty: the
    pod is read from what the row shows, in no namespace, on no node, with no restarts."""
    from gengpu.live import stack, tables

    data = tables._pod_row({"NAME": "pod/nvidia-dcgm-exporter-4xk2p", "READY": "0/1", "STATUS": "CrashLoopBackOff",
                            "RESTARTS": ""})
    assert data["metadata"] == {"name": "nvidia-dcgm-exporter-4xk2p"} and "nodeName" not in data["spec"]
    assert stack.state(snapshot.Item(data)).restarts == 0


_TAINT = {"key": "nvidia.com/gpu-health", "value": "xid-79", "effect": "NoExecute"}
_SELECTOR = {"device": {"driver": "gpu.nvidia.com", "pool": "gpu-1", "device": "gpu-0"}}


@pytest.mark.parametrize("fields, kind, name", [
    # a ComputeDomain is told by its status's nodes carrying a clique ID; nodes without one are no ComputeDomain's
    ({"name": "imex", "status": {"nodes": [{"name": "gpu-1", "cliqueID": "c1.0", "status": "Ready"}]}},
     "ComputeDomain", "imex"),
    ({"name": "imex", "status": {"nodes": [{"name": "gpu-1", "status": "Ready"}]}}, None, None),
    ({"name": "imex", "status": {"nodes": ["gpu-1"]}}, None, None),
    # a DeviceTaintRule by its spec's device selector and taint, both; unnamed (a paste cut above its Name:)
    ({"spec": {"deviceSelector": _SELECTOR, "taint": _TAINT}}, "DeviceTaintRule", "(pasted DeviceTaintRule)"),
    ({"name": "xid", "spec": {"taint": _TAINT}}, None, None),
    ({"name": "xid", "spec": {"deviceSelector": _SELECTOR, "taint": "nvidia.com/gpu-health=xid-79:NoExecute"}},
     None, None),
    ({"name": "xid", "spec": "deviceSelector taint"}, None, None),
])
def test_a_described_custom_resource_is_the_kind_its_fields_are_only_that_kinds(fields, kind, name):
    from gengpu.live import described

    obj = described._custom(fields, {}, ("items", 0))
    assert (obj and obj["kind"], obj and obj["metadata"]["name"]) == (kind, name)
    if kind == "DeviceTaintRule":
        assert "status" not in obj  # (none described: none made up)


@pytest.mark.parametrize("lines, custom", [
    (["Name: xid", "Spec:", "  Device Selector:", "    Device:", "  Taint:", "    Effect: NoExecute"], True),
    (["Name: xid", "Spec:", "  Device Selector:", "    Device:"], False),
    (["Name: xid", "Spec:", "  Taint:", "    Effect: NoExecute"], False),
    (["Name: imex", "Status:", "  Nodes:", "    Clique ID: c1.0"], True),
    (["Name: imex", "Status:", "  Nodes:"], False),
    (["Name: imex", "    Clique ID: c1.0"], False),
])
def test_only_text_of_both_fields_of_a_kind_is_read_as_a_described_custom_resource(lines, custom):
    """A DeviceTaintRule's describe shows a Device Selector and a Taint, a ComputeDomain's nodes a Clique ID: one of
    a pair alone leaves the text to the other readers."""
    from gengpu.live import described

    assert described.looks_like_custom_resource("\n".join(lines) + "\n") is custom


@pytest.mark.parametrize("row", [
    {"NAME": "gpu-claim", "STATE": ""}, {"NAME": "", "STATE": "pending"},
])
def test_a_claims_row_without_a_name_or_a_state_is_no_claim(row):
    from gengpu.live import tables

    assert tables._claim_row(row) is None


@pytest.mark.parametrize("row", [
    {"NAME": "gpu-1-gpu.nvidia.com-abcde", "NODE": "gpu-1", "DRIVER": "", "POOL": "gpu-1"},
    {"NAME": "", "NODE": "gpu-1", "DRIVER": "gpu.nvidia.com", "POOL": "gpu-1"},
])
def test_a_slices_row_without_a_name_or_a_driver_is_no_slice(row):
    from gengpu.live import tables

    assert tables._slice_row(row) is None


def test_an_allocated_and_reserved_claims_row_is_a_claim_allocated_devices_and_reserved_for_a_pod():
    """STATE allocated,reserved (printResourceClaim: an allocation, and consumers in reservedFor): an allocation
    result of devices (resource.k8s.io/v1 AllocationResult.devices), reserved for a pod (a consumer of resource
    "pods"); pending is neither."""
    from gengpu.live import tables

    status = tables._claim_row({"NAME": "gpu-claim", "NAMESPACE": "team-a", "STATE": "allocated,reserved"})["status"]
    assert set(status) == {"allocation", "reservedFor"} and set(status["allocation"]) == {"devices"}
    assert [(c["resource"], bool(c["name"])) for c in status["reservedFor"]] == [("pods", True)]
    assert tables._claim_row({"NAME": "gpu-claim", "STATE": "pending"})["status"] == {}


@pytest.mark.parametrize("name", [f"pastes/{e['file']}" for e in PASTES
                                  if not e["kind"].startswith("describe-") and e["kind"] != "upgrade-states"])
def test_a_table_pasted_indented_reads_as_the_table(name):
    """A table pasted indented (a list item's code block, a quoted reply) keeps its columns under its header: read
    by position as before, -o wide's empty SUBOBJECT cells included, the same objects as the table at the margin."""
    raw = (CORPUS / name).read_text()
    indented = "".join("    " + line if line.strip() else line for line in raw.splitlines(keepends=True))

    def objects(text: str) -> list:
        snap, findings = snapshot.load(text.encode(), name)
        assert findings == []
        return [i.data for kind in ("nodes", "pods", "daemonsets", "events", "resourceclaims", "resourceslices")
                for i in getattr(snap, kind)]

    assert objects(indented) == objects(raw) != []


@pytest.mark.parametrize("row", [
    # (cells shifted by a misread row: a TYPE that is no event type, an OBJECT that is no kind/name)
    {"LAST SEEN": "5m", "TYPE": "pod/nvidia-driver-daemonset-x7k2p", "REASON": "Warning", "OBJECT": "BackOff",
     "MESSAGE": "Back-off restarting failed container"},
    {"LAST SEEN": "5m", "TYPE": "Warning", "REASON": "BackOff", "OBJECT": "nvidia-driver-daemonset-x7k2p",
     "MESSAGE": "Back-off restarting failed container"},
])
def test_an_events_row_without_an_event_type_or_an_object_is_no_event(row):
    from gengpu.live import tables

    assert tables._event_row(row) is None


def test_a_line_above_a_table_that_is_no_command_asks_for_no_namespace():
    """Only a command line (`$ kubectl get pods -n gpu-operator`) says which namespace a table's rows are in; prose
    that mentions a flag does not."""
    table = _aligned([["NAME", "READY", "STATUS", "RESTARTS", "AGE"],
                      ["nvidia-dcgm-exporter-4xk2p", "0/1", "CrashLoopBackOff", "7", "5m"]])
    for above, namespace in (("$ kubectl get pods -n gpu-operator", "gpu-operator"),
                             ("The pods, listed with -n gpu-operator:", None)):
        snap, _ = snapshot.load(f"{above}\n{table}".encode(), "pods.txt")
        assert [(p.name, p.text("metadata", "namespace") or None) for p in snap.pods] == \
            [("nvidia-dcgm-exporter-4xk2p", namespace)]


def test_rows_that_print_their_namespace_keep_it_whatever_namespace_the_command_names():
    """`kubectl get pods -A -n default`: -A wins (kubectl's get asks every namespace and prints NAMESPACE), so each
    row is in the namespace it prints, not the one -n names."""
    table = _aligned([["NAMESPACE", "NAME", "READY", "STATUS", "RESTARTS", "AGE"],
                      ["gpu-operator", "nvidia-dcgm-exporter-4xk2p", "0/1", "CrashLoopBackOff", "7", "5m"],
                      ["default", "cuda-vectoradd", "0/1", "Pending", "0", "5m"]])
    snap, _ = snapshot.load(f"$ kubectl get pods -A -n default\n{table}".encode(), "pods.txt")
    assert [(p.name, p.text("metadata", "namespace")) for p in snap.pods] == [
        ("nvidia-dcgm-exporter-4xk2p", "gpu-operator"), ("cuda-vectoradd", "default")]


@pytest.mark.parametrize("row, pods", [
    # (its spaces collapsed and its AGE cut: every column but the last still there, the pod is read)
    ("nvidia-dcgm-exporter-4xk2p 0/1 Pending 0", [("nvidia-dcgm-exporter-4xk2p", "Pending")]),
    # (cut before RESTARTS: too little of the row to say which cell is which)
    ("nvidia-dcgm-exporter-4xk2p 0/1 Pending", []),
])
def test_a_collapsed_row_cut_short_is_read_only_while_its_columns_can_be_told(row, pods):
    text = "NAME                          READY   STATUS    RESTARTS   AGE\n" + row + "\n"
    snap, _ = snapshot.load(text.encode(), "pods.txt")
    assert [(p.name, p.data["status"]["phase"]) for p in snap.pods] == pods


_THREE_NODES = """Name:         imex
Status:
  Nodes:
    Clique ID:   c1.0
    Index:       0
    Name:        gpu-1
    Status:      Ready
    Clique ID:   c1.0
    Index:       1
    Name:        gpu-2
    Status:      NotReady
    Clique ID:   c1.0
    Index:       2
    Name:        gpu-3
    Status:      Ready
  Status:        NotReady"""


def test_a_described_list_of_three_mappings_is_three_items_each_at_its_lines():
    """kubectl prints a list of mappings as their fields one after another: each repeat of the first key starts the
    next item, the third as well as the second; each field is at its own line."""
    from gengpu.live import described

    lines, places = _THREE_NODES.splitlines(), {}
    nodes = [{"cliqueID": "c1.0", "index": i, "name": f"gpu-{i + 1}", "status": status}
             for i, status in enumerate(("Ready", "NotReady", "Ready"))]
    assert described.described(lines, 0, len(lines), places, ("items", 0)) == {
        "name": "imex", "status": {"nodes": nodes, "status": "NotReady"}}
    assert [places[("items", 0, "status", "nodes", i, "status")] for i in range(3)] == [(7, 5), (11, 5), (15, 5)]


@pytest.mark.parametrize("lines, fields", [
    # a key with nothing after it, the text's next-to-last line: a mapping of the last line
    (["Spec:", "  Device Selector:", "    Driver:  gpu.nvidia.com"], {"spec": {"deviceSelector": {
        "driver": "gpu.nvidia.com"}}}),
    # a key with nothing after it, the text's last line: empty
    (["Spec:", "  Device Selector:"], {"spec": {"deviceSelector": ""}}),
    (["Status:", "  Conditions:", "Name:  xid"], {"status": {"conditions": ""}, "name": "xid"}),
])
def test_a_described_key_is_a_mapping_only_of_the_lines_under_it(lines, fields):
    from gengpu.live import described

    assert described.described(lines, 0, len(lines), {}, ()) == fields


_DESCRIBED_DS = """Name:           nvidia-device-plugin-daemonset
Selector:       app=nvidia-device-plugin-daemonset
Node-Selector:  nvidia.com/gpu.deploy.device-plugin=true
Labels:         app=nvidia-device-plugin-daemonset
Desired Number of Nodes Scheduled: 2
Current Number of Nodes Scheduled: 2
Number of Nodes Scheduled with Up-to-date Pods: 2
Number of Nodes Scheduled with Available Pods: 1
Number of Nodes Misscheduled: 0
Pods Status:  1 Running / 1 Waiting / 0 Succeeded / 0 Failed
Pod Template:
  Labels:           app=nvidia-device-plugin-daemonset
  Containers:
   nvidia-device-plugin:
    Image:      nvcr.io/nvidia/k8s-device-plugin:v0.18.0
Events:
  Type     Reason            Age   From                  Message
  ----     ------            ----  ----                  -------
  Normal   SuccessfulCreate  5m    daemonset-controller  Created pod: nvidia-device-plugin-daemonset-q8w4c
  Warning  FailedCreate      2m    daemonset-controller  Error creating: pods "nvidia-device-plugin-daemonset-" is forbidden
"""


@pytest.mark.parametrize("above, namespace", [
    ("$ kubectl describe ds nvidia-device-plugin-daemonset -n gpu-operator", "gpu-operator"),
    # (kubectl before 1.33 printed no Namespace line: only the describe command's -n says it; another command's not)
    ("$ kubectl get pods -n kube-system", None),
])
def test_a_described_daemonset_and_its_events_are_at_their_lines_in_the_namespace_the_describe_asked(above, namespace):
    snap, findings = snapshot.load(f"{above}\n{_DESCRIBED_DS}".encode(), "ds.txt")
    assert findings == [] or {f.rule for f in findings} == {"snapshot-incomplete"}
    [ds] = snap.daemonsets
    assert (ds.name, ds.text("metadata", "namespace"), ds.doc.position(ds.path)) == (
        "nvidia-device-plugin-daemonset", namespace, (2, 1))
    assert [(e.text("involvedObject", "kind"), e.text("involvedObject", "name"), e.text("metadata", "namespace"),
             e.text("reason"), e.doc.position(e.path)) for e in snap.events] == [
        ("DaemonSet", "nvidia-device-plugin-daemonset", namespace, "SuccessfulCreate", (20, 1)),
        ("DaemonSet", "nvidia-device-plugin-daemonset", namespace, "FailedCreate", (21, 1))]


@pytest.mark.parametrize("text, objects", [
    # a header whose spaces collapsed: its columns cannot be told apart; the pods rows are still read one by one
    ("NAME READY STATUS RESTARTS AGE\nnvidia-dcgm-exporter-4xk2p 0/1 Pending 0 5m\n",
     [("Pod", "nvidia-dcgm-exporter-4xk2p")]),
    # one space lost between two columns: the two read as one ("AVAILABLE NODE SELECTOR", "OBJECT MESSAGE")
    ("NAME   DESIRED   CURRENT   READY   UP-TO-DATE   AVAILABLE NODE SELECTOR   AGE\n"
     "nvidia-device-plugin-daemonset   2   2   2   2   2   <none>   5d\n", []),
    ("LAST SEEN   TYPE      REASON    OBJECT MESSAGE\n5m          Warning   BackOff   pod/x   Back-off\n", []),
])
def test_a_header_whose_columns_cannot_be_told_apart_is_no_table(text, objects):
    """Found by scripts/fuzz (surfaces case 650): such a header was taken for its kind's, and reading a row by a
    column it did not have was an internal error."""
    snap, _ = snapshot.load(text.encode(), "pasted.txt")
    assert [(o.data["kind"], o.name) for kind in ("pods", "daemonsets", "events") for o in getattr(snap, kind)] == objects


# The Events part of a `kubectl describe pod`, pasted alone: Project-HAMi/HAMi issue 39 (issue body,
# https://github.com/Project-HAMi/HAMi/issues/39), as its source shows it.
HAMI_39_EVENTS = """\
Events:
  Type     Reason                    Age               From           Message
  ----     ------                    ----              ----           -------
  Warning  FailedScheduling          73s               4pd-scheduler  AssumePod failed: pod c4c9c2a8-83d3-4e9b-b6fa-ed47719d3d19 is in the cache, so can't be assumed
  Normal   Scheduled                 73s               4pd-scheduler  Successfully assigned default/gpu-pod to pkm-05
  Warning  UnexpectedAdmissionError  73s               kubelet        Allocate failed due to rpc error: code = Unavailable desc = transport is closing, which is unexpected
  Warning  FailedMount               9s (x8 over 73s)  kubelet        MountVolume.SetUp failed for volume "kube-api-access-8hcmj" : object "default"/"kube-root-ca.crt" not registered
"""


def _event(reason: str, message: str, type_: str = "Warning", about: tuple = ("", "", ""), **more) -> dict:
    kind, namespace, name = about
    return {"apiVersion": "v1", "kind": "Event", "metadata": {"namespace": namespace} if namespace else {},
            "involvedObject": {"kind": kind, "name": name, **({"namespace": namespace} if namespace else {})},
            "type": type_, "reason": reason, "message": message, **more}


@pytest.mark.parametrize("above", ["", "$ kubectl get pods\nNAME      READY   STATUS    RESTARTS   AGE\n"
                                       "gpu-pod   0/1     Pending   0          80s\n\n"])
def test_a_described_pods_events_pasted_alone_are_that_pods_each_in_its_namespace(above):
    """The scheduler's "Successfully assigned default/gpu-pod" names the pod the run of events is about: every event
    of the run is about it, in its namespace, as the API server holds them. Lines another reader took (a table above
    the events) do not stop the events below them from being read."""
    snap, findings = snapshot.load((above + HAMI_39_EVENTS).encode(), "events.txt")
    pod = ("Pod", "default", "gpu-pod")
    assert findings == [] and [e.data for e in snap.events] == [
        _event("FailedScheduling", "AssumePod failed: pod c4c9c2a8-83d3-4e9b-b6fa-ed47719d3d19 is in the cache, so "
               "can't be assumed", about=pod),
        _event("Scheduled", "Successfully assigned default/gpu-pod to pkm-05", "Normal", about=pod),
        _event("UnexpectedAdmissionError", "Allocate failed due to rpc error: code = Unavailable desc = transport is "
               "closing, which is unexpected", about=pod),
        _event("FailedMount", 'MountVolume.SetUp failed for volume "kube-api-access-8hcmj" : object "default"/'
               '"kube-root-ca.crt" not registered', about=pod, count=8)]
    assert [p.name for p in snap.pods] == (["gpu-pod"] if above else [])


def test_events_of_a_run_that_names_two_pods_are_each_only_what_its_own_message_says():
    """A run of events whose messages name two pods is no one pod's: an event naming its pod (the kubelet's "in pod
    NAME_NAMESPACE(uid)") is about that pod, the others about no object the paste shows."""
    text = HAMI_39_EVENTS + (
        "  Warning  FailedSync                10s               kubelet        error determining status: rpc error: "
        "code = Unknown desc = Error: No such container: 3f2a in pod gpu-pod-2_team-a(4c9a1e52-1b7e-4a43-8d0c)\n")
    snap, _ = snapshot.load(text.encode(), "events.txt")
    assert [(e.text("reason"), e.mapping("involvedObject"), e.mapping("metadata")) for e in snap.events] == [
        ("FailedScheduling", {"kind": "", "name": ""}, {}),
        ("Scheduled", {"kind": "", "name": ""}, {}),
        ("UnexpectedAdmissionError", {"kind": "", "name": ""}, {}),
        ("FailedMount", {"kind": "", "name": ""}, {}),
        ("FailedSync", {"kind": "Pod", "name": "gpu-pod-2", "namespace": "team-a"}, {"namespace": "team-a"})]


def test_a_schedulers_message_pasted_alone_is_a_failedscheduling_event_of_no_named_object():
    """The kube-scheduler's message copied out of an issue (kubernetes-sigs/dra-driver-nvidia-gpu issue 338, the live
    corpus's state): one FailedScheduling Warning about no object the paste names, its line taken."""
    from gengpu.live import tables

    text = (CORPUS / "states" / "dra-driver-338-scheduler-deviceclass-missing.txt").read_text()
    objects, where, rest = tables.read(text, "scheduler.txt")
    assert objects == [{"apiVersion": "v1", "kind": "Event", "metadata": {}, "involvedObject": {"kind": "", "name": ""},
                        "type": "Warning", "reason": "FailedScheduling", "message": text.strip()}]
    assert (where.position(("items", 0)), rest.strip()) == ((1, 1), "")


# a List of one kind alone, as `kubectl get KIND -o yaml` prints it: (apiVersion, kind)
_ONE_KIND = [("v1", "Pod"), ("v1", "Event"), ("apps/v1", "DaemonSet"), ("nvidia.com/v1", "ClusterPolicy"),
             ("nvidia.com/v1alpha1", "NVIDIADriver"), ("nvidia.com/v1alpha1", "GPUCluster"),
             ("resource.nvidia.com/v1beta1", "ComputeDomain"), ("resource.k8s.io/v1", "ResourceClaim"),
             ("resource.k8s.io/v1", "ResourceSlice"), ("resource.k8s.io/v1alpha3", "DeviceTaintRule")]


@pytest.mark.parametrize("api, kind", _ONE_KIND + [("v1", "ConfigMap"), (None, None)])
def test_a_snapshot_without_nodes_needs_the_gpu_stacks_objects_of_one_kind_or_more(api, kind):
    """Each kind that shows the GPU stack without its nodes is enough on its own (a pasted `kubectl get pods -n
    gpu-operator -o yaml`, a claims list); a ConfigMap alone, or nothing, is a snapshot of nothing to check."""
    items = [{"apiVersion": api, "kind": kind, "metadata": {"name": "x", "namespace": "gpu-operator"}}] if kind else []
    snap, findings = snapshot.load(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items}).encode(),
                                   "one.yaml")
    incomplete = [("one.yaml", 1, 1, "snapshot-incomplete",
                   "the snapshot holds no Node: nothing to check the profiles' promises against")]
    assert [(f.file, f.line, f.column, f.rule, f.message) for f in findings] == \
        ([] if (api, kind) in _ONE_KIND else incomplete)
