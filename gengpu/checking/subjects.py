"""Find what gengpu can check in a YAML document: profiles, device-plugin and mig-parted configs
(plain, or embedded in a ConfigMap), ClusterPolicies, and workloads that use GPUs."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from gengpu.checking.targets import CLUSTER_POLICY, DEVICE_PLUGIN_CONFIG, MIG_PARTED_CONFIG, WORKLOAD
from gengpu.findings import Finding
from gengpu.loading import Document, load_embedded

SUPPRESS_PREFIX = "gengpu.dev/suppress."

POD_SPEC_PATHS = {
    "Pod": ("spec",),
    "Deployment": ("spec", "template", "spec"),
    "StatefulSet": ("spec", "template", "spec"),
    "DaemonSet": ("spec", "template", "spec"),
    "ReplicaSet": ("spec", "template", "spec"),
    "ReplicationController": ("spec", "template", "spec"),
    "Job": ("spec", "template", "spec"),
    "CronJob": ("spec", "jobTemplate", "spec", "template", "spec"),
}
_DEVICE_PLUGIN_KEYS = {"sharing", "flags", "resources", "imex"}


@dataclass
class Subject:
    kind: str
    doc: Document  # where positions come from
    data: dict
    label: str  # how messages name it
    key: str | None = None  # ConfigMap key holding the config
    namespace: str | None = None
    suppressed: dict = field(default_factory=dict)  # rule id -> reason

    @property
    def in_configmap(self) -> bool:
        return self.key is not None


def suppressions(obj: dict) -> dict:
    annotations = ((obj.get("metadata") or {}).get("annotations") or {}) if isinstance(obj, dict) else {}
    if not isinstance(annotations, dict):
        return {}
    return {k[len(SUPPRESS_PREFIX):]: str(v) for k, v in annotations.items() if str(k).startswith(SUPPRESS_PREFIX)}


def config_kind(data) -> str | None:
    if not isinstance(data, dict) or "kind" in data or "apiVersion" in data:
        return None
    if "mig-configs" in data:
        return MIG_PARTED_CONFIG
    if "version" in data or data.keys() & _DEVICE_PLUGIN_KEYS:
        if data.keys() & _DEVICE_PLUGIN_KEYS or data.get("version") in ("v1", ""):
            return DEVICE_PLUGIN_CONFIG
    return None


def dig(data, *path):
    """The value at path in plain data, or None where a step is missing or not a mapping."""
    for part in path:
        data = data.get(part) if isinstance(data, dict) else None
    return data


def pod_spec(obj: dict):
    path = POD_SPEC_PATHS.get(obj.get("kind"))
    node = dig(obj, *path) if path else None
    return (path, node) if isinstance(node, dict) else (None, None)


def uses_gpu(spec: dict) -> bool:
    for group in ("initContainers", "containers"):
        for c in spec.get(group) or []:
            if not isinstance(c, dict):
                continue
            res = c.get("resources") or {}
            for section in ("limits", "requests"):
                if any(str(k).startswith("nvidia.com/") for k in (res.get(section) or {})):
                    return True
            if any(isinstance(e, dict) and e.get("name") == "NVIDIA_VISIBLE_DEVICES" for e in c.get("env") or []):
                return True
    return False


def _malformed(doc: Document, path: tuple, message: str, fix: str) -> Finding:
    from gengpu.checking.rules import RULES

    rule = RULES["object-malformed"]
    line, col = doc.position(path, key=bool(path))
    return Finding(doc.file, line, col, rule.severity, rule.id, message, fix)


def well_formed(docs: list[Document]) -> tuple[list[Document], list[Finding]]:
    """The documents rules may look at, and findings for those that cannot be Kubernetes objects or GPU configs.

    An object's kind and apiVersion are strings and its metadata a mapping; in a
    file of Kubernetes objects, every other document is one too (kubectl refuses
    a list or a scalar among them).
    """
    good, findings = [], []
    objects = any(isinstance(d.data, dict) and ("kind" in d.data or "apiVersion" in d.data) for d in docs)
    for doc in docs:
        data = doc.data
        if data is None:
            continue
        if not isinstance(data, dict):
            if objects:
                findings.append(_malformed(doc, (), f"document {doc.index + 1} is a {type(data).__name__}, not a "
                                           "Kubernetes object", "remove it, or give it apiVersion, kind and metadata"))
            continue
        bad = [k for k in ("apiVersion", "kind") if k in data and not isinstance(data[k], str)]
        if "metadata" in data and not isinstance(data["metadata"], dict):
            bad.append("metadata")
        if bad:
            findings += [_malformed(doc, (k,), f"'{k}' must be {'a mapping' if k == 'metadata' else 'a string'}, "
                                    f"not {type(data[k]).__name__}", f"write {k} as Kubernetes expects it")
                         for k in bad]
            continue
        if objects and config_kind(data) is None and not ("kind" in data and "apiVersion" in data):
            missing = [k for k in ("apiVersion", "kind") if k not in data]
            findings.append(_malformed(doc, (), f"document {doc.index + 1} has no {' and no '.join(missing)}",
                                       "give every Kubernetes object its apiVersion and kind"))
            continue
        good.append(doc)
    return good, findings


# ConfigMaps named like this hold GPU configs (NVIDIA's docs and defaults, the operator's and gengpu's names):
# a value that is not a config there is an error, where in any other ConfigMap it is just data.
_GPU_CONFIGMAP = re.compile(r"device-plugin|time-slic|mig-parted|mig-config|\bmps\b|sharing")


def _configmap(doc: Document, data: dict, name: str, namespace) -> tuple[list[Subject], list[Finding]]:
    subjects, findings = [], []
    meant = _GPU_CONFIGMAP.search(name)
    for key, value in data["data"].items():
        if not isinstance(value, str):
            continue
        inner, errors = load_embedded(doc, ("data", key))
        kind = config_kind(inner[0].data) if len(inner) == 1 and not errors else None
        if kind:
            subjects.append(Subject(kind, inner[0], inner[0].data, f"ConfigMap {name} key {key}", key, namespace,
                                    suppressions(data)))
        elif meant:
            what = "mig-parted" if "mig" in name else "device-plugin"
            findings += errors or [_not_a_config(doc, key, name, what, inner)]
    return subjects, findings


def _not_a_config(doc: Document, key, name: str, what: str, inner) -> Finding:
    from gengpu.checking.rules import RULES

    rule = RULES["gpu-configmap-invalid"]
    line, col = doc.position(("data", key), key=True)
    found = "nothing" if not inner or inner[0].data is None else (
        f"{len(inner)} documents" if len(inner) > 1 else f"a {type(inner[0].data).__name__}"
        if not isinstance(inner[0].data, dict) else "a mapping without version, sharing, flags or mig-configs")
    return Finding(doc.file, line, col, rule.severity, rule.id,
                   f"ConfigMap {name} key {key} holds {found}, not a {what} config", rule.fix)


def classify(doc: Document) -> tuple[list[Subject], list[Finding]]:
    data = doc.data
    if not isinstance(data, dict):
        return [], []
    kind = config_kind(data)
    if kind:
        return [Subject(kind, doc, data, kind)], []
    meta = data.get("metadata") if isinstance(data.get("metadata"), dict) else {}
    name = meta.get("name", "?")
    namespace = meta.get("namespace")
    if data.get("kind") == "ConfigMap" and isinstance(data.get("data"), dict):
        return _configmap(doc, data, str(name), namespace)
    if data.get("kind") == "ClusterPolicy":
        return [Subject(CLUSTER_POLICY, doc, data, f"ClusterPolicy {name}", suppressed=suppressions(data))], []
    path, spec = pod_spec(data)
    if spec is not None and uses_gpu(spec):
        return [Subject(WORKLOAD, doc, data, f"{data['kind']} {name}", namespace=namespace,
                        suppressed=suppressions(data))], []
    return [], []
