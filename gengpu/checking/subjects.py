"""Recognise what a YAML document is, from one table (gengpu/data/kinds.yaml): Kubernetes objects by API group and
kind, plain files by documented shape. Embedded configs (ConfigMap keys, Helm values) become subjects of their own,
with lines inside the host file; pod specs are found wherever a kind nests them, and by shape in kinds gengpu does
not know. Each subject says why it was recognised (`gengpu validate -v`)."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from gengpu import catalog
from gengpu.checking import targets as T
from gengpu.findings import Finding
from gengpu.checking.podspecs import (containers, containers_of, dig, expand, find_pod_specs,
                                      fraction_annotations, mentions_gpu, uses_gpu)
from gengpu.loading import Document, load_embedded, shapes
from gengpu.checking.kindtable import loosecontainers, operator_gpus, operator_parallelism, renamed

SUPPRESS_PREFIX = "gengpu.dev/suppress."


@dataclass
class Subject:
    kind: str
    doc: Document  # where positions come from
    data: dict
    label: str  # how messages name it
    key: str | None = None  # ConfigMap key holding the config
    namespace: str | None = None
    suppressed: dict = field(default_factory=dict)  # rule id -> reason
    pods: list = field(default_factory=list)  # workloads: (path, pod spec) of every pod spec in the object
    containers: list = field(default_factory=list)  # workloads: (path, container) of every container
    why: str = ""  # what made gengpu recognise it
    host: str | None = None  # embedded configs: what holds them (ConfigMap, Helm values)
    chart: str | None = None  # Helm values: whose chart (gpu-operator, nvidia-device-plugin)
    # a chart a HelmRelease or Application installs (with values or not): the release its pin selects (gengpu/
    # versions.py: a semver range is the newest release gengpu knows that it admits; None: unknown), and the pin as
    # messages quote it ("v26.x (taken as v26.7.0, ...)")
    chart_version: str | None = None
    chart_pin: str | None = None
    outer: Document | None = None  # embedded configs: the document of the file that holds them
    kubernetes_version: str | None = None  # objects: the Kubernetes release they are checked for
    queries: list = field(default_factory=list)  # queries: (path, PromQL expression) that read DCGM's metrics
    renamed: dict = field(default_factory=dict)  # paths rules see -> where the file writes them (loosecontainers)

    def written(self, path: tuple) -> tuple:
        """Where the file writes what a rule's path names."""
        for seen, real in self.renamed.items():
            if tuple(path[:len(seen)]) == seen:
                return real + tuple(path[len(seen):])
        return tuple(path)

    @property
    def in_configmap(self) -> bool:
        return self.key is not None


@dataclass(frozen=True)
class Documents:
    """What an overlay rule looks at: every subject and every well-shaped document of one file or overlay."""

    subjects: list[Subject]
    docs: list[Document]


@functools.cache
def table() -> dict:
    return catalog.data_file("kinds.yaml")


@functools.cache
def _objects() -> dict:
    return {(e["group"], e["kind"]): e for e in table()["objects"]}


def group_version(obj: dict) -> tuple[str, str]:
    api = str(obj.get("apiVersion", ""))
    group, _, version = api.rpartition("/")
    return group, version


def entry(obj: dict) -> dict | None:
    """The table's entry for a Kubernetes object, by API group and kind."""
    group, _ = group_version(obj)
    return _objects().get((group, obj.get("kind")))


def suppressions(obj: dict) -> dict:
    annotations = ((obj.get("metadata") or {}).get("annotations") or {}) if isinstance(obj, dict) else {}
    if not isinstance(annotations, dict):
        return {}
    return {k[len(SUPPRESS_PREFIX):]: str(v) for k, v in annotations.items() if str(k).startswith(SUPPRESS_PREFIX)}


def shape_of(data) -> tuple[str, str] | tuple[None, None]:
    """(subject kind, reason) for a plain mapping by its documented shape (loading/shapes.py)."""
    shape = shapes.match(data)
    return (shape["subject"], shape["why"]) if shape else (None, None)


def config_kind(data) -> str | None:
    """The config kind of a plain device-plugin or mig-parted config (a ConfigMap value), or None."""
    return shapes.config_kind(data)


def pod_specs(obj: dict) -> list[tuple[tuple, dict]]:
    """The pod specs of an object: where the table says its kind keeps them, or wherever they are."""
    known = entry(obj) if isinstance(obj, dict) else None
    if known is not None and known.get("pods"):
        found = [(p, v) for pattern in known["pods"] for p, v in expand(obj, pattern)]
        if found:
            return found
    return find_pod_specs(obj)  # a kind gengpu does not know, or another version of one it does


def component_of(image: str) -> str | None:
    """The part of NVIDIA's GPU stack an image is (the table's `images`), or None."""
    return next((known["component"] for known in table().get("images", []) if re.search(known["pattern"], image)),
                None)


def components(obj: dict) -> list[str]:
    """The parts of NVIDIA's GPU stack an object runs, by container image."""
    out = []
    for _, spec in pod_specs(obj):
        for _, c in containers_of(spec):
            found = component_of(str(c.get("image", "")))
            if found and found not in out:
                out.append(found)
    return out


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
    docs = [d for d in docs if d.role is None or d.role.judged]  # what loading found not to be gengpu's
    objects = any(isinstance(d.data, dict) and "kind" in d.data and "apiVersion" in d.data for d in docs)
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
        if objects and shape_of(data)[0] is None and not ("kind" in data and "apiVersion" in data):
            missing = [k for k in ("apiVersion", "kind") if k not in data]
            findings.append(_malformed(doc, (), f"document {doc.index + 1} has no {' and no '.join(missing)}",
                                       "give every Kubernetes object its apiVersion and kind"))
            continue
        good.append(doc)
    return good, findings


# ConfigMaps named like this hold GPU configs (NVIDIA's docs and defaults, the operator's and gengpu's names):
# a value that is not a config there is an error, where in any other ConfigMap it is just data.
_GPU_CONFIGMAP = re.compile(r"device-plugin|time-slic|mig-parted|mig-config|\bmps\b|sharing|gpu-clients")


def _embedded(doc: Document, path: tuple, label: str, host: str, meant: str | None, suppressed: dict,
              namespace=None) -> tuple[list[Subject], list[Finding]]:
    """A config held in a string field: a subject of its own, with positions in the host file."""
    from gengpu.checking import wrapped

    inner, errors = load_embedded(doc, path)
    kind = config_kind(inner[0].data) if len(inner) == 1 and not errors else None
    shape = shapes.match(inner[0].data) if len(inner) == 1 and not errors and not kind and not meant else None
    if shape and shape["subject"] == T.QUERIES:  # a dashboard or rule file kept in a ConfigMap
        found = wrapped.queries(inner[0], inner[0].data, label, shape["why"])
        for subject in found:
            subject.outer = doc
        return found, []
    if shape and shape["subject"] == T.HELM_VALUES:  # chart values kept for a HelmRelease's valuesFrom
        found, more = wrapped.values(inner[0], shape["chart"], f"{label}: {shape['why']}",
                                     f"{label} ({shape['chart']} values)")
        for subject in found:
            subject.outer = doc
        return found, more
    if kind:
        _, why = shape_of(inner[0].data)
        return [Subject(kind, inner[0], inner[0].data, label, path[-1], namespace, suppressed, why=why,
                        host=host, outer=doc)], []
    if meant:
        return [], errors or [_not_a_config(doc, path, label, meant, inner)]
    return [], []


def _not_a_config(doc: Document, path: tuple, label: str, what: str, inner) -> Finding:
    from gengpu.checking.rules import RULES

    rule = RULES["gpu-configmap-invalid"]
    line, col = doc.position(path, key=True)
    found = "nothing" if not inner or inner[0].data is None else (
        f"{len(inner)} documents" if len(inner) > 1 else f"a {type(inner[0].data).__name__}"
        if not isinstance(inner[0].data, dict) else "a mapping without version, sharing, flags or mig-configs")
    return Finding(doc.file, line, col, rule.severity, rule.id, f"{label} holds {found}, not a {what} config",
                   rule.fix)


def _configmap(doc: Document, data: dict, name: str, namespace) -> tuple[list[Subject], list[Finding]]:
    from gengpu.loading.embedded import embedded_counters

    subjects, findings = [], []
    meant = ("mig-parted" if "mig" in name else "device-plugin") if _GPU_CONFIGMAP.search(name) else None
    for key, value in data["data"].items():
        counters = embedded_counters(doc, ("data", key)) if isinstance(value, str) else None
        if counters is not None:  # dcgm-exporter's counters file, as the exporter mounts it
            subjects.append(Subject(T.DCGM_COUNTERS, counters, counters.data, f"ConfigMap {name} key {key}", key,
                                    namespace, suppressions(data), why="a counters file of dcgm-exporter "
                                    "(DCGM field, Prometheus type, help)", host=f"ConfigMap {name}", outer=doc))
            continue
        if isinstance(value, str):
            found, errors = _embedded(doc, ("data", key), f"ConfigMap {name} key {key}", f"ConfigMap {name}", meant,
                                      suppressions(data), namespace)
            subjects += found
            findings += errors
    return subjects, findings


def _unescape(segment: str) -> str:
    return segment.replace("~1", "/").replace("~0", "~")  # JSON pointer (RFC 6901)


def _kustomization(doc: Document, data: dict) -> tuple[list[Subject], list[Finding]]:
    """Device-plugin and mig-parted configs a Kustomization patches into a ConfigMap: a JSON 6902 patch that adds or
    replaces /data (a mapping of keys) or /data/<key>, or a strategic-merge patch that is a ConfigMap; each config a
    subject with positions in the kustomization file."""
    subjects, findings = [], []
    for field in ("patches", "patchesJson6902"):
        for i, patch in enumerate(data.get(field) if isinstance(data.get(field), list) else []):
            if not isinstance(patch, dict) or not isinstance(patch.get("patch"), str):
                continue
            target = patch.get("target") if isinstance(patch.get("target"), dict) else {}
            inner, errors = load_embedded(doc, (field, i, "patch"))
            if errors or len(inner) != 1:
                continue
            body, name = inner[0].data, str(target.get("name", ""))
            if isinstance(body, dict) and body.get("kind") == "ConfigMap" and isinstance(body.get("data"), dict):
                more, errs = _configmap(inner[0], body, str(dig(body, "metadata", "name") or name), None)
                subjects, findings = subjects + more, findings + errs
                continue
            if target.get("kind") != "ConfigMap" or not isinstance(body, list):
                continue
            meant = ("mig-parted" if "mig" in name else "device-plugin") if _GPU_CONFIGMAP.search(name) else None
            host = f"Kustomization patch of ConfigMap {name}"
            for j, op in enumerate(body):
                if not isinstance(op, dict) or op.get("op") not in ("add", "replace"):
                    continue
                path, value = str(op.get("path", "")), op.get("value")
                places = [((j, "value", k), str(k)) for k, v in value.items() if isinstance(v, str)] \
                    if path == "/data" and isinstance(value, dict) else \
                    [((j, "value"), _unescape(path.removeprefix("/data/")))] \
                    if path.startswith("/data/") and isinstance(value, str) else []
                for where, key in places:
                    more, errs = _embedded(inner[0], where, f"{host} key {key}", host, meant, suppressions(data))
                    subjects, findings = subjects + more, findings + errs
    for subject in subjects:
        subject.outer = doc  # held by the kustomization file, through its patch
    return subjects, findings


def classify(doc: Document) -> tuple[list[Subject], list[Finding]]:
    """The subjects of one document, by the role loading gave it (roles.py), or, for a document loading never saw
    (gengpu's own overlay files, a config embedded in a string), by its content alone."""
    from gengpu.checking import wrapped  # (it builds Subjects: imported here, not at the top)
    from gengpu.loading import roles as R

    data = doc.data
    if not isinstance(data, dict):
        return [], []
    role = doc.role or R.content_role(data)
    if not role.judged:
        return [], []
    if role.name == R.VALUES:
        return wrapped.values(doc, role.chart, role.why, version=role.version)
    if role.name in (R.NVIDIA_CONFIG, R.DOCUMENTED):
        shape = role.shape or shapes.match(data)
        if shape["subject"] == T.QUERIES:
            return wrapped.queries(doc, data, "dashboard" if "panels" in data else "rule file", shape["why"]), []
        label = "counters file" if shape["subject"] == T.DCGM_COUNTERS else shape["subject"]
        return [Subject(shape["subject"], doc, data, label, why=shape["why"])], []
    if role.name == R.FRAGMENT:
        return _fragment(doc, data)
    if role.name == R.KUSTOMIZATION:
        return _kustomization(doc, data)  # kustomize's own file, no Kubernetes object: the configs it patches in
    if "kind" not in data or "apiVersion" not in data:
        return [], []
    meta = data.get("metadata") if isinstance(data.get("metadata"), dict) else {}
    name = str(meta.get("name", meta.get("generateName", "?")))
    namespace = meta.get("namespace")
    found = entry(data)
    label = f"{data['kind']} {name}"
    subjects = [Subject(T.OBJECT, doc, data, label, namespace=namespace, suppressed=suppressions(data),
                        why=f"apiVersion {data['apiVersion']}, kind {data['kind']}"
                            + (" (gengpu's table)" if found else ""))]
    target = found["subject"] if found else None
    if target == "configmap" and isinstance(data.get("data"), dict):
        more, findings = _configmap(doc, data, name, namespace)
        return subjects + more, findings
    if target == "kustomization":
        more, findings = _kustomization(doc, data)
        return subjects + more, findings
    if target == T.QUERIES:
        return subjects + wrapped.queries(doc, data, label, subjects[0].why), []
    if target == "gitops-release":
        more, findings = wrapped.release(doc, data, label)
        return subjects + more, findings
    if target == T.QUOTA and not mentions_gpu(data.get("spec")):
        target = None  # a quota that counts no GPUs
    if target == T.GKE_NODEPOOL and not dig(data, "spec", "nodeConfig", "guestAccelerator"):
        target = "none"  # a node pool without GPUs
    if target and target not in ("none", "configmap", "kustomization", "gitops-release", T.QUERIES, T.WORKLOAD):
        subjects.append(Subject(target, doc, data, label, namespace=namespace, suppressed=suppressions(data),
                                why=subjects[0].why))
    if target in (T.WORKLOAD, None):
        specs = pod_specs(data)
        loose = loosecontainers(data)
        if (specs or loose) and (uses_gpu(specs) or uses_gpu([((), {"containers": [c for _, c in loose]})])
                                 or fraction_annotations(data)):
            where = ", ".join(".".join(map(str, p)) or "(top)" for p, _ in specs + loose)
            how = "where gengpu's table says" if found and (found.get("pods") or found.get("containers")) \
                else "found by shape"
            subjects.append(Subject(T.WORKLOAD, doc, data, label, namespace=namespace, suppressed=suppressions(data),
                                    pods=specs, containers=containers(specs) + loose, renamed=renamed(data),
                                    why=f"pod specs at {where} ({how}) ask for GPUs"))
        elif operated := operator_gpus(data) or operator_parallelism(data):
            where = ", ".join(".".join(map(str, p)) for p in operated)
            how = "asks for GPUs in the operator's own resource blocks" if operator_gpus(data) else \
                "sets the GPUs its operator gives the pods (parallelism)"
            subjects.append(Subject(T.WORKLOAD, doc, data, label, namespace=namespace, suppressed=suppressions(data),
                                    pods=specs, containers=containers(specs),
                                    why=f"{how} at {where} (gengpu's table)"))
        elif specs and components(data):
            subjects.append(Subject(T.GPU_STACK, doc, data, label, namespace=namespace, suppressed=suppressions(data),
                                    pods=specs, containers=containers(specs),
                                    why=f"runs {', '.join(components(data))} (by image)"))
    return subjects, []


def _fragment(doc: Document, data: dict) -> tuple[list[Subject], list[Finding]]:
    """A piece of a manifest (as quoted in docs and issues): containers, or a container's resources."""
    specs = find_pod_specs(data)
    if specs and uses_gpu(specs):
        return [Subject(T.WORKLOAD, doc, data, "pod spec (a fragment)", pods=specs, containers=containers(specs),
                        why="a fragment with containers that ask for GPUs")], []
    if isinstance(data.get("resources"), dict) and uses_gpu([((), {"containers": [data]})]):
        return [Subject(T.WORKLOAD, doc, data, "container (a fragment)", containers=[((), data)],
                        why="a fragment with a container's resources that ask for GPUs")], []
    return [], []
