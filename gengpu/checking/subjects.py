"""Find what gengpu can check in a YAML document: profiles, device-plugin and mig-parted configs
(plain, or embedded in a ConfigMap), ClusterPolicies, and workloads that use GPUs."""

from __future__ import annotations

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
        subjects, findings = [], []
        for key, value in data["data"].items():
            if not isinstance(value, str):
                continue
            inner, errors = load_embedded(doc, ("data", key))
            if len(inner) != 1 or not config_kind(inner[0].data):
                continue  # not a GPU config: nothing of gengpu's to say
            findings += errors
            subjects.append(Subject(config_kind(inner[0].data), inner[0], inner[0].data,
                                    f"ConfigMap {name} key {key}", key, namespace, suppressions(data)))
        return subjects, findings
    if data.get("kind") == "ClusterPolicy":
        return [Subject(CLUSTER_POLICY, doc, data, f"ClusterPolicy {name}", suppressed=suppressions(data))], []
    path, spec = pod_spec(data)
    if spec is not None and uses_gpu(spec):
        return [Subject(WORKLOAD, doc, data, f"{data['kind']} {name}", namespace=namespace,
                        suppressed=suppressions(data))], []
    return [], []
