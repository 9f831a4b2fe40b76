"""Turn a legacy Karpenter v1alpha5 Provisioner into a gengpu node pool (for spec.nodePools).

Mapping from the Karpenter v1beta1/v1 migration guides: requirements on
instance family / type and capacity type become instanceTypes and
capacityTypes, ttlSecondsAfterEmpty becomes consolidationPolicy WhenEmpty with
consolidateAfter, limits.resources becomes limits. Anything without a place in
a profile is listed so nothing is dropped silently.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from gengpu import catalog, names
from gengpu.findings import UsageError
from gengpu.loading import load_file

FAMILY = "karpenter.k8s.aws/instance-family"
TYPE = "node.kubernetes.io/instance-type"
CAPACITY = "karpenter.sh/capacity-type"
ZONE = "topology.kubernetes.io/zone"
IMPLIED = {"karpenter.k8s.aws/instance-gpu-name", "karpenter.k8s.aws/instance-gpu-manufacturer",
           "karpenter.k8s.aws/instance-gpu-count", "kubernetes.io/arch", "kubernetes.io/os"}


def _quantity_int(value, unit: str = "") -> int | None:
    if isinstance(value, bool) or isinstance(value, float):
        return None  # a count is written as a whole number, not true or 2.0
    text = str(value).strip()
    m = re.fullmatch(r"([0-9]+)(Gi|G)?", text) if unit else re.fullmatch(r"([0-9]+)", text)
    return int(m.group(1)) if m else None


def _key(value) -> str:
    """A key of the file as a note names it: as written when it is a plain name, else quoted with its newlines
    escaped, so a note stays one comment line of the YAML a user pastes."""
    text = str(value)
    return text if re.fullmatch(r"[A-Za-z0-9_./-]+", text) else json.dumps(text, ensure_ascii=False)


def _shown(value) -> str:
    """A value of the file as a note shows it: quoted, its newlines escaped, so a note stays one comment line."""
    return json.dumps(value if isinstance(value, (str, int, float, bool)) or value is None else str(value),
                      ensure_ascii=False)


class _Reader:
    """The Provisioner's fields, each checked for the shape Karpenter v1alpha5 gave it; a wrong one stops the
    import with its file, line and field, never a traceback."""

    def __init__(self, path: str, doc):
        self.path, self.doc = path, doc

    def fail(self, where: tuple, message: str, fix: str):
        line, col = self.doc.position(where)
        field = ".".join(str(p) if not isinstance(p, int) else f"[{p}]" for p in where).replace(".[", "[")
        raise UsageError(f"{self.path}:{line}:{col}: {field}: {message}; {fix}")

    def mapping(self, value, where: tuple) -> dict:
        if value is None:
            return {}
        if not isinstance(value, dict):
            self.fail(where, f"is {type(value).__name__}, not a mapping", "write it as key: value pairs")
        return value

    def listing(self, value, where: tuple) -> list:
        if value is None:
            return []
        if not isinstance(value, list):
            self.fail(where, f"is {type(value).__name__}, not a list", "write it as a list (- item per line)")
        return value

    def seconds(self, value, where: tuple) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            self.fail(where, f"{_shown(value)} is not a whole number of seconds", "write a whole number, 0 or more")
        return value


def karpenter_provisioner_text(path: str) -> str:
    """The profile part as YAML, headed by where it came from and what was not imported, as comments."""
    from gengpu.compiling.yamltext import dump

    result, notes = karpenter_provisioner(path)
    from gengpu.reporting.safe import shown

    head = [f"# Imported by gengpu from {shown(path)} (karpenter.sh/v1alpha5 Provisioner)."]
    head += [f"# not imported: {shown(n)}" for n in notes]
    return "\n".join(head) + "\n" + dump(result)


def karpenter_provisioner(path: str) -> tuple[dict, list[str]]:
    """({'zones': [...], 'nodePools': [pool]}, notes about what was not imported)."""
    docs, findings = load_file(Path(path), path)
    if findings:
        f = findings[0]
        raise UsageError(f"{f.file}:{f.line}:{f.column}: {f.message}")
    found = [d for d in docs if isinstance(d.data, dict) and d.data.get("kind") == "Provisioner"]
    if len(found) != 1:
        raise UsageError(f"{path}: expected one karpenter.sh/v1alpha5 Provisioner, found {len(found)}")
    doc = found[0]
    prov, r = doc.data, _Reader(path, doc)
    if prov.get("apiVersion") != "karpenter.sh/v1alpha5":
        raise UsageError(f"{path}: apiVersion is {_shown(prov.get('apiVersion'))}, not karpenter.sh/v1alpha5")
    spec = r.mapping(prov.get("spec"), ("spec",))
    notes = []
    metadata = r.mapping(prov.get("metadata"), ("metadata",))
    name = names.slug(metadata.get("name", "gpu"), "gpu")
    families, types, capacity, zones = [], [], [], []
    for i, req in enumerate(r.listing(spec.get("requirements"), ("spec", "requirements"))):
        where = ("spec", "requirements", i)
        req = r.mapping(req, where)
        key, op = req.get("key"), req.get("operator")
        if not isinstance(key, str) or not isinstance(op, str):
            r.fail(where, "a requirement needs a key and an operator", "give key: <label> and operator: In (or "
                   "NotIn, Exists, DoesNotExist, Gt, Lt)")
        values = r.listing(req.get("values"), where + ("values",))
        if any(isinstance(v, (dict, list)) for v in values):
            r.fail(where + ("values",), "holds a mapping or a list", "list plain values")
        values = [str(v) for v in values]
        if op != "In":
            notes.append(f"requirement {_key(key)} {_key(op)} {values} has no profile field; add it to the "
                         "NodePool by hand")
        elif key == FAMILY:
            families += values
        elif key == TYPE:
            types += values
        elif key == CAPACITY:
            capacity += values
        elif key == ZONE:
            zones += values
        elif key not in IMPLIED:
            notes.append(f"requirement {_key(key)} In {values} has no profile field")
    instance_types = families + types
    if not instance_types:
        raise UsageError(f"{path}: the Provisioner names no instance family or type; gengpu needs them for a GPU pool")
    gpus = []
    for t in instance_types:
        spec_t = catalog.instance_type("eks", t)
        if spec_t is None:
            notes.append(f"instance type {_key(t)} is not in gengpu's EKS table; set the pool's gpu by hand")
        elif spec_t["gpu"] not in gpus:
            gpus.append(spec_t["gpu"])
    pool: dict = {"name": name, "gpu": gpus[0] if len(gpus) == 1 else (gpus or ["SET-ME"]),
                  "instanceTypes": instance_types, "capacityTypes": capacity or ["on-demand"],
                  "provisioner": "karpenter"}
    taints = []
    for i, t in enumerate(r.listing(spec.get("taints"), ("spec", "taints"))):
        t = r.mapping(t, ("spec", "taints", i))
        if not isinstance(t.get("key"), str) or t.get("effect") not in ("NoSchedule", "PreferNoSchedule", "NoExecute"):
            r.fail(("spec", "taints", i), "a taint needs a key and an effect of NoSchedule, PreferNoSchedule or "
                   "NoExecute", "fix the taint")
        taints.append({k: str(t[k]) for k in ("key", "value", "effect") if t.get(k) is not None})
    pool["taints"] = taints
    labels = {str(k): str(v) for k, v in r.mapping(spec.get("labels"), ("spec", "labels")).items()
              if not str(k).startswith("karpenter.")}
    if labels:
        pool["labels"] = labels
    limits = {}
    resources = r.mapping(r.mapping(spec.get("limits"), ("spec", "limits")).get("resources"),
                          ("spec", "limits", "resources"))
    for key, field, unit in (("cpu", "cpu", ""), ("memory", "memoryGiB", "Gi"), ("nvidia.com/gpu", "gpus", "")):
        if key in resources:
            value = _quantity_int(resources[key], unit)
            if value is None:
                notes.append(f"limits.resources.{key}: {resources[key]!r} is not a whole number; set limits by "
                             "hand")
            else:
                limits[field] = value
    if limits:
        pool["limits"] = limits
    if "ttlSecondsAfterEmpty" in spec:
        pool["consolidationPolicy"] = "WhenEmpty"
        pool["consolidateAfter"] = f"{r.seconds(spec['ttlSecondsAfterEmpty'], ('spec', 'ttlSecondsAfterEmpty'))}s"
    elif r.mapping(spec.get("consolidation"), ("spec", "consolidation")).get("enabled") is True:
        pool["consolidationPolicy"] = "WhenEmptyOrUnderutilized"
        pool["consolidateAfter"] = "0s"
    if "weight" in spec:
        weight = spec["weight"]
        if isinstance(weight, bool) or not isinstance(weight, int) or not 1 <= weight <= 100:
            r.fail(("spec", "weight"), f"{_shown(weight)} is not a whole number from 1 to 100", "fix the weight")
        pool["weight"] = weight
    kubelet = spec.get("kubeletConfiguration")
    if kubelet is not None:
        kubelet = r.mapping(kubelet, ("spec", "kubeletConfiguration"))
        fields = kubelet_fields()
        kept = {k: v for k, v in kubelet.items() if k in fields}
        if kept:
            pool["kubelet"] = kept
        for key in sorted(map(str, set(kubelet) - set(kept))):
            notes.append(f"spec.kubeletConfiguration.{_key(key)} is not imported: EC2NodeClass spec.kubelet "
                         "(Karpenter v1) has no such field")
    for key in ("ttlSecondsUntilExpired", "provider", "providerRef", "startupTaints", "annotations"):
        if key in spec:
            notes.append(f"spec.{key} is not imported: gengpu writes its own EC2NodeClass and expireAfter 720h")
    for key in sorted(map(str, set(spec) - IMPORTED)):
        notes.append(f"spec.{_key(key)} is not imported: the profile has no field for it")
    return {"zones": zones, "nodePools": [pool]}, notes


# Provisioner spec keys the import reads, or names in a note of its own.
IMPORTED = {"requirements", "taints", "labels", "limits", "ttlSecondsAfterEmpty", "consolidation", "weight",
            "kubeletConfiguration", "ttlSecondsUntilExpired", "provider", "providerRef", "startupTaints",
            "annotations"}


def kubelet_fields() -> set[str]:
    """The kubelet fields a profile takes: those of EC2NodeClass spec.kubelet."""
    from gengpu.schemas_dir import profile_schema

    return set(profile_schema()["$defs"]["nodePool"]["properties"]["kubelet"]["properties"])
