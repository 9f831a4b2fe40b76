"""Loading a snapshot: the objects of one cluster, each kept with its place in the file for findings.

A snapshot is what `kubectl get nodes,pods,... -A -o yaml` prints (a `v1 List`, or a List per kind one after
another), what `gengpu snapshot` writes, or the same as JSON. Read the way every input is (bounded, regular files
or standard input). Objects of kinds the checks do not use are kept out; Secrets are never kept.
"""

from __future__ import annotations

import functools

import re
from dataclasses import dataclass, field

from gengpu.findings import Finding
from gengpu.live import pasted
from gengpu.loading import Document, load_bytes, load_json_fast, reading

# (apiVersion group, kind) -> the attribute of Snapshot that holds them
KINDS = {
    ("", "Node"): "nodes",
    ("", "Pod"): "pods",
    ("", "ConfigMap"): "configmaps",
    ("nvidia.com", "ClusterPolicy"): "clusterpolicies",
    ("nvidia.com", "NVIDIADriver"): "nvidiadrivers",
    ("nvidia.com", "GPUCluster"): "gpuclusters",
    ("resource.k8s.io", "ResourceClaim"): "resourceclaims",
    ("resource.k8s.io", "ResourceSlice"): "resourceslices",
    ("resource.k8s.io", "DeviceClass"): "deviceclasses",
    ("karpenter.sh", "NodePool"): "nodepools",
    ("karpenter.sh", "NodeClaim"): "nodeclaims",
    ("apps", "DaemonSet"): "daemonsets",
    ("", "Event"): "events",
    ("events.k8s.io", "Event"): "events",
    ("resource.nvidia.com", "ComputeDomain"): "computedomains",
    ("resource.k8s.io", "DeviceTaintRule"): "devicetaintrules",
}


def label_text(value) -> str:
    """A label's value as written in a hand-edited snapshot: YAML reads `true` and `8` unquoted as a boolean and a
    number, where Kubernetes holds the text "true" and "8" (str() would make the boolean "True")."""
    return ("true" if value else "false") if isinstance(value, bool) else "" if value is None else str(value)


@dataclass
class Item:
    """One object of the snapshot and where it is written (None when it came from the API server)."""

    data: dict
    doc: Document | None = None
    path: tuple = ()  # inside doc: ("items", i) for an object of a List

    @property
    def name(self) -> str:
        meta = self.data.get("metadata")
        name = str(meta.get("name", "")) if isinstance(meta, dict) else ""
        return name or ("(pasted node)" if self.data.get("kind") == "Node" else "")

    @functools.cached_property
    def labels(self) -> dict:
        """(read once: a check asks a node's labels many times, and a GPU node has sixty)"""
        meta = self.data.get("metadata") if isinstance(self.data.get("metadata"), dict) else {}
        labels = meta.get("labels")
        if not isinstance(labels, dict):
            return {}
        if all(type(k) is str and type(v) is str for k, v in labels.items()):
            return labels  # (as the API server gives them: no copy of sixty labels on each of 20,000 nodes)
        return {label_text(k): label_text(v) for k, v in labels.items()}

    def get(self, *path, default=None):
        node = self.data
        for part in path:
            if not isinstance(node, dict) or part not in node:
                return default
            node = node[part]
        return node

    # typed reads: a snapshot is input like any other, and a field of another shape reads as absent
    def mapping(self, *path) -> dict:
        value = self.get(*path)
        return value if isinstance(value, dict) else {}

    def sequence(self, *path) -> list:
        value = self.get(*path)
        return value if isinstance(value, list) else []

    def text(self, *path) -> str | None:
        value = self.get(*path)
        return str(value) if isinstance(value, (str, int, float)) and not isinstance(value, bool) else None

    def position(self, *inner) -> tuple[int, int]:
        return self.doc.position(self.path + inner) if self.doc is not None else (0, 0)


@dataclass
class Snapshot:
    source: str  # the file as shown, or "context NAME"
    nodes: list[Item] = field(default_factory=list)
    pods: list[Item] = field(default_factory=list)
    configmaps: list[Item] = field(default_factory=list)
    clusterpolicies: list[Item] = field(default_factory=list)
    nvidiadrivers: list[Item] = field(default_factory=list)
    gpuclusters: list[Item] = field(default_factory=list)
    resourceclaims: list[Item] = field(default_factory=list)
    resourceslices: list[Item] = field(default_factory=list)
    deviceclasses: list[Item] = field(default_factory=list)
    nodepools: list[Item] = field(default_factory=list)
    nodeclaims: list[Item] = field(default_factory=list)
    daemonsets: list[Item] = field(default_factory=list)  # of NVIDIA's GPU stack (live/stack.py)
    events: list[Item] = field(default_factory=list)  # Warning events about the GPU stack and GPU nodes
    computedomains: list[Item] = field(default_factory=list)
    devicetaintrules: list[Item] = field(default_factory=list)
    captured: set[str] = field(default_factory=set)  # the kinds the snapshot holds lists of (absent: not looked at)
    notes: list[str] = field(default_factory=list)  # what the capture could not read, and why

    def add(self, item: Item) -> None:
        group = str(item.data.get("apiVersion", "")).rpartition("/")[0]
        where = KINDS.get((group, str(item.data.get("kind", ""))))
        if where:
            getattr(self, where).append(item)
            self.captured.add(where)


def from_objects(source: str, objects: list[dict], captured: set[str], notes: list[str]) -> Snapshot:
    """A snapshot of objects read from the API server (no file positions)."""
    snap = Snapshot(source, notes=list(notes))
    for obj in objects:
        snap.add(Item(obj))
    snap.captured |= captured
    return snap


def load(raw: bytes, shown: str) -> tuple[Snapshot | None, list[Finding]]:
    """Parse a snapshot file; its problems are findings (a broken file is one error, never a traceback).

    Besides YAML and JSON (`gengpu snapshot`, `kubectl get -o yaml|json`), what people paste: `kubectl describe
    node` text, `kubectl get nodes --show-labels`, a node's labels alone (`jq .metadata.labels`), a node without
    its kind."""
    from gengpu.live import tables

    text = raw.decode("utf-8", errors="replace")
    if _structured(text):
        return _load_structured(raw, shown)
    snap = Snapshot(shown)
    if tables.has_tables(text):  # the GPU stack's pods, events, DaemonSets; what is left is read as below
        objects, where, text = tables.read(text, shown)
        for i, obj in enumerate(objects):
            snap.add(Item(obj, where, ("items", i)))
    for looks, read in ((pasted.looks_like_describe, pasted.read_describe),
                        (pasted.looks_like_show_labels, pasted.read_show_labels),
                        (pasted.looks_like_upgrade_states, pasted.read_upgrade_states)):
        if looks(text):
            objects, where = read(text, shown)
            for i, obj in enumerate(objects):
                snap.add(Item(obj, where, ("items", i)))
            snap.captured.add("nodes")
            return snap, _no_node(snap, shown)
    if snap.captured:
        return snap, []
    for looks, read in ((pasted.looks_like_jq_lines, pasted.read_jq_lines),
                        (pasted.looks_like_label_lines, pasted.read_label_lines)):
        node = _kindless_node(read(text)) if looks(text) else None
        if node is not None and read is pasted.read_label_lines and pasted.read_resource_lines(text):
            node["status"] = pasted.read_resource_lines(text)
        if node is not None:
            snap = Snapshot(shown)
            snap.add(Item(node, pasted.TextDoc(shown), ()))
            return snap, []
    bad = pasted.jq_line_error(text)
    if bad:
        return None, [Finding(shown, bad[0], bad[1], "error", "yaml-syntax", f"invalid JSON: {bad[2]}",
                              "a line of jq's output holds a JSON value: a backslash is written \\\\ and a tab \\t; "
                              "or paste the whole `kubectl get node NAME -o json`")]
    return _load_structured(raw, shown)


_STRUCTURED = re.compile(r"(\{|\[|---|apiVersion:|kind:|items:|metadata:)")


def _structured(text: str) -> bool:
    """YAML or JSON as kubectl or gengpu writes it (its first line says so): no pasted form to look for, which would
    read every line of a large snapshot in vain."""
    for line in text[:65536].splitlines()[:50]:
        if line.strip() and not line.lstrip().startswith("#") and not pasted.COMMAND.match(line):
            return bool(_STRUCTURED.match(line))
    return False


def _load_structured(raw: bytes, shown: str) -> tuple[Snapshot | None, list[Finding]]:
    # JSON (`kubectl get -o json`, gengpu snapshot -o x.json) by the json module: a 5,000-node cluster in a second,
    # positions worked out only for the findings that need them
    fast = load_json_fast(raw, shown) if raw.lstrip()[:1] in (b"{", b"[") else None
    docs, findings = (fast, []) if fast is not None else load_bytes(_without_prompt(raw), shown,
                                                                    reading.snapshot_max_bytes())
    if findings:
        return None, findings
    snap = Snapshot(shown)
    for doc in docs:
        data = doc.data
        if isinstance(data, list) and data and all(isinstance(c, dict) and {"type", "status"} <= set(c) for c in data):
            # a node's conditions alone (status.conditions as `kubectl get node -o yaml` prints them)
            snap.add(Item({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "(pasted node)"},
                           "status": {"conditions": data}}, doc, ()))
            continue
        if not isinstance(data, dict):
            continue
        if "kind" not in data and "apiVersion" not in data:
            node = _kindless_node(data)
            if node is not None:
                snap.add(Item(node, doc, ()))
                continue
        items = data.get("items")
        meta = data.get("metadata") if isinstance(data.get("metadata"), dict) else {}
        notes = meta.get("annotations") if isinstance(meta.get("annotations"), dict) else {}
        if isinstance(notes.get("gengpu.dev/captured"), str):  # written by `gengpu snapshot`
            snap.captured |= {k for k in notes["gengpu.dev/captured"].split(",") if k}
        if isinstance(notes.get("gengpu.dev/not-read"), str):
            snap.notes += [n for n in notes["gengpu.dev/not-read"].split("; ") if n]
        if str(data.get("kind", "")).endswith("List") and isinstance(items, list):
            # a List of one kind (NodeList) says it in its own kind: its items may carry no kind of their own
            inner = str(data.get("kind"))[:-4] if data.get("kind") != "List" else None
            for i, obj in enumerate(items):
                if isinstance(obj, dict):
                    if inner and "kind" not in obj:
                        obj = {**obj, "kind": inner, "apiVersion": data.get("apiVersion", "v1")}
                    snap.add(Item(obj, doc, ("items", i)))
            if inner and inner.lower() + "s" in {v for v in KINDS.values()}:
                snap.captured.add(inner.lower() + "s")
        elif "kind" in data:
            snap.add(Item(data, doc, ()))
    return snap, findings + _no_node(snap, shown)




def _without_prompt(raw: bytes) -> bytes:
    """The pasted YAML or JSON without the shell command lines above it (`$ kubectl get node x -o yaml`), blanked
    rather than removed so that lines keep their numbers."""
    lines = raw.split(b"\n")
    i = 0
    while i < len(lines) and (not lines[i].strip() or pasted.COMMAND.match(lines[i].decode("utf-8", "replace"))):
        lines[i] = b""
        i += 1
    return b"\n".join(lines)


def _no_node(snap: Snapshot, shown: str) -> list[Finding]:
    """A snapshot must hold nodes, or at least what the GPU stack shows without them: the GPU Operator's objects (a
    pasted `kubectl get clusterpolicy`), its pods (`kubectl get pods -n gpu-operator`), events, DRA objects."""
    if snap.nodes or snap.clusterpolicies or snap.nvidiadrivers or snap.gpuclusters or snap.pods or snap.events or \
            snap.daemonsets or snap.computedomains or snap.resourceclaims or snap.resourceslices or \
            snap.devicetaintrules:
        return []
    return [Finding(shown, 1, 1, "error", "snapshot-incomplete",
                    "the snapshot holds no Node: nothing to check the profiles' promises against",
                    "capture nodes too: `gengpu snapshot` or `kubectl get nodes,... -o yaml`")]


_STATUS_KEYS = {"capacity", "allocatable", "conditions", "addresses", "daemonEndpoints", "nodeInfo", "images",
                "volumesAttached", "volumesInUse", "phase", "config", "runtimeHandlers", "features"}
_BUILTIN_RESOURCES = {"cpu", "memory", "pods", "ephemeral-storage"}
# The resource names NVIDIA's device plugin registers (GFD's labels of the same prefixes carry a further suffix)
# (and NVIDIA's sandbox device plugin: nvidia.com/pgpu, a passed-through GPU by its device name, nvidia.com/GA102GL_A10,
# or a vGPU by its type, nvidia.com/NVIDIA_A10-8Q: upper case, where GFD's labels are lower case)
_GPU_RESOURCE = re.compile(r"^nvidia\.com/(gpu|gpu\.shared|pgpu|mig-\d+g\.\d+gb(\.me|\.gfx|-me)?|"
                           r"[A-Z0-9][A-Za-z0-9]*_[A-Za-z0-9_-]+)$")


def _is_resources(data: dict) -> bool:
    keys = {str(k) for k in data}
    return bool(keys) and all(not isinstance(v, (dict, list)) for v in data.values()) and (
        bool(keys & _BUILTIN_RESOURCES) or all(_GPU_RESOURCE.match(k) for k in keys))


_LABEL_KEY = re.compile(r"^([a-z0-9.-]+/)?[A-Za-z0-9][-A-Za-z0-9_.]*$")


def _kindless_node(data: dict) -> dict | None:
    """A node pasted without its kind: its status alone, its capacity or allocatable alone, or its labels alone
    (`kubectl get node -o json | jq .metadata.labels`), where the labels are a node's (GPU Feature Discovery's or
    Kubernetes' own node labels)."""
    if set(data) == {"status"} and isinstance(data["status"], dict) and \
            {"capacity", "allocatable"} & set(data["status"]):
        return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "(pasted node)"}, **data}
    if {"capacity", "allocatable"} & set(data) and set(data) <= _STATUS_KEYS:  # status's fields, without status:
        return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "(pasted node)"}, "status": data}
    if _is_resources(data):  # `kubectl get node -o jsonpath={.status.capacity}`: taken as capacity (>= allocatable)
        return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "(pasted node)"},
                "status": {"capacity": {str(k): str(v) for k, v in data.items()}}}
    keys = [str(k) for k in data]
    if keys and all(_LABEL_KEY.match(k) and not isinstance(v, (dict, list)) for k, v in data.items()) and \
            any(k.startswith(("nvidia.com/", "kubernetes.io/", "node.kubernetes.io/", "beta.kubernetes.io/"))
                for k in keys):
        name = str(data.get("kubernetes.io/hostname", "(pasted labels)"))
        return {"apiVersion": "v1", "kind": "Node",
                "metadata": {"name": name, "labels": {k: label_text(v) for k, v in data.items()}}}
    return None
