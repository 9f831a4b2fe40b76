"""Turn a legacy Karpenter v1alpha5 Provisioner into a gengpu node pool (for spec.nodePools).

Mapping from the Karpenter v1beta1/v1 migration guides: requirements on
instance family / type and capacity type become instanceTypes and
capacityTypes, ttlSecondsAfterEmpty becomes consolidationPolicy WhenEmpty with
consolidateAfter, limits.resources becomes limits. Anything without a place in
a profile is listed so nothing is dropped silently.
"""

from __future__ import annotations

import re

from gengpu import catalog
from gengpu.findings import UsageError
from gengpu.loading import load_file

FAMILY = "karpenter.k8s.aws/instance-family"
TYPE = "node.kubernetes.io/instance-type"
CAPACITY = "karpenter.sh/capacity-type"
ZONE = "topology.kubernetes.io/zone"
IMPLIED = {"karpenter.k8s.aws/instance-gpu-name", "karpenter.k8s.aws/instance-gpu-manufacturer",
           "karpenter.k8s.aws/instance-gpu-count", "kubernetes.io/arch", "kubernetes.io/os"}


def _quantity_int(value, unit: str = "") -> int | None:
    text = str(value).strip()
    m = re.fullmatch(r"([0-9]+)(Gi|G)?", text) if unit else re.fullmatch(r"([0-9]+)", text)
    return int(m.group(1)) if m else None


def karpenter_provisioner(path: str) -> tuple[dict, list[str]]:
    """({'zones': [...], 'nodePools': [pool]}, notes about what was not imported)."""
    docs, findings = load_file(path)
    if findings:
        f = findings[0]
        raise UsageError(f"{f.file}:{f.line}:{f.column}: {f.message}")
    provisioners = [d.data for d in docs if isinstance(d.data, dict) and d.data.get("kind") == "Provisioner"]
    if len(provisioners) != 1:
        raise UsageError(f"{path}: expected one karpenter.sh/v1alpha5 Provisioner, found {len(provisioners)}")
    prov = provisioners[0]
    if prov.get("apiVersion") != "karpenter.sh/v1alpha5":
        raise UsageError(f"{path}: apiVersion is {prov.get('apiVersion')}, not karpenter.sh/v1alpha5")
    spec = prov.get("spec") or {}
    notes = []
    name = re.sub(r"[^a-z0-9-]", "-", str((prov.get("metadata") or {}).get("name", "gpu")).lower()).strip("-")[:40]
    families, types, capacity, zones = [], [], [], []
    for req in spec.get("requirements") or []:
        key, op, values = req.get("key"), req.get("operator"), [str(v) for v in req.get("values") or []]
        if op != "In":
            notes.append(f"requirement {key} {op} {values} has no profile field; add it to the NodePool by hand")
        elif key == FAMILY:
            families += values
        elif key == TYPE:
            types += values
        elif key == CAPACITY:
            capacity += values
        elif key == ZONE:
            zones += values
        elif key not in IMPLIED:
            notes.append(f"requirement {key} In {values} has no profile field")
    instance_types = families + types
    if not instance_types:
        raise UsageError(f"{path}: the Provisioner names no instance family or type; gengpu needs them for a GPU pool")
    gpus = []
    for t in instance_types:
        spec_t = catalog.instance_type("eks", t)
        if spec_t is None:
            notes.append(f"instance type {t} is not in gengpu's EKS table; set the pool's gpu by hand")
        elif spec_t["gpu"] not in gpus:
            gpus.append(spec_t["gpu"])
    pool: dict = {"name": name or "gpu", "gpu": gpus[0] if len(gpus) == 1 else (gpus or ["SET-ME"]),
                  "instanceTypes": instance_types, "capacityTypes": capacity or ["on-demand"],
                  "provisioner": "karpenter"}
    taints = [{k: t[k] for k in ("key", "value", "effect") if k in t} for t in spec.get("taints") or []]
    pool["taints"] = taints
    labels = {k: str(v) for k, v in (spec.get("labels") or {}).items() if not k.startswith("karpenter.")}
    if labels:
        pool["labels"] = labels
    limits = {}
    resources = (spec.get("limits") or {}).get("resources") or {}
    for key, field, unit in (("cpu", "cpu", ""), ("memory", "memoryGiB", "Gi"), ("nvidia.com/gpu", "gpus", "")):
        if key in resources:
            value = _quantity_int(resources[key], unit)
            if value is None:
                notes.append(f"limits.resources.{key}: {resources[key]} is not a whole number; set limits by hand")
            else:
                limits[field] = value
    if limits:
        pool["limits"] = limits
    if "ttlSecondsAfterEmpty" in spec:
        pool["consolidationPolicy"] = "WhenEmpty"
        pool["consolidateAfter"] = f"{int(spec['ttlSecondsAfterEmpty'])}s"
    elif (spec.get("consolidation") or {}).get("enabled"):
        pool["consolidationPolicy"] = "WhenEmptyOrUnderutilized"
        pool["consolidateAfter"] = "0s"
    if "weight" in spec:
        pool["weight"] = spec["weight"]
    kubelet = spec.get("kubeletConfiguration")
    if isinstance(kubelet, dict):
        fields = kubelet_fields()
        kept = {k: v for k, v in kubelet.items() if k in fields}
        if kept:
            pool["kubelet"] = kept
        for key in sorted(set(kubelet) - set(kept)):
            notes.append(f"spec.kubeletConfiguration.{key} is not imported: EC2NodeClass spec.kubelet (Karpenter v1) "
                         "has no such field")
    for key in ("ttlSecondsUntilExpired", "provider", "providerRef", "startupTaints", "annotations"):
        if key in spec:
            notes.append(f"spec.{key} is not imported: gengpu writes its own EC2NodeClass and expireAfter 720h")
    for key in sorted(set(spec) - IMPORTED):
        notes.append(f"spec.{key} is not imported: the profile has no field for it")
    return {"zones": zones, "nodePools": [pool]}, notes


# Provisioner spec keys the import reads, or names in a note of its own.
IMPORTED = {"requirements", "taints", "labels", "limits", "ttlSecondsAfterEmpty", "consolidation", "weight",
            "kubeletConfiguration", "ttlSecondsUntilExpired", "provider", "providerRef", "startupTaints",
            "annotations"}


def kubelet_fields() -> set[str]:
    """The kubelet fields a profile takes: those of EC2NodeClass spec.kubelet."""
    from gengpu.schemas_dir import profile_schema

    return set(profile_schema()["$defs"]["nodePool"]["properties"]["kubelet"]["properties"])
