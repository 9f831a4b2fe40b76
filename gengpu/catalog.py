"""Capability tables (GPU models, platforms, GPU Operator releases), loaded once from data files."""

from __future__ import annotations

import functools
from gengpu.schemas_dir import data_path

import yaml


@functools.cache
def data_file(name: str) -> dict:
    """A data file, parsed once per run (callers only read it). The parsed form is kept in gengpu's cache as JSON,
    keyed by the file's bytes: YAML parsing the price table alone takes 90 ms, reading its JSON 2 ms, and a
    pre-commit run pays for every data file a rule reads."""
    import hashlib

    from gengpu import fleet

    raw = (data_path() / name).read_bytes()
    store = fleet.Cache()
    key = store.key("data", name, hashlib.sha256(raw).hexdigest())
    cached = store.get_json(key)
    if isinstance(cached, dict):
        return cached
    data = yaml.load(raw.decode("utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    if store.root.is_dir():  # a repo gengpu has run in: elsewhere (`gengpu explain` in $HOME) it creates nothing
        store.put_json(key, data)  # every data file is plain JSON types (tests/test_rendering_units.py holds it)
    return data


def platforms() -> dict:
    return data_file("platforms.yaml")["platforms"]


def operator() -> dict:
    return data_file("operator.yaml")


def gpus() -> dict:
    return data_file("gpus.yaml")["gpus"]


def unattributed_mig_profiles() -> set[str]:
    """MIG profile names NVIDIA's default config uses for a GPU it does not name."""
    return set(data_file("gpus.yaml").get("unattributedMigProfiles", []))


@functools.cache
def _gpu_index() -> dict[str, str]:
    index = {}
    for gpu_id, gpu in gpus().items():
        for name in [gpu_id, *gpu.get("aliases", [])]:
            index[name.lower()] = gpu_id
    return index


def resolve_gpu(name: str) -> str | None:
    """Canonical GPU id for an id or alias (case-insensitive), or None."""
    return _gpu_index().get(str(name).lower())


def gpu(name: str) -> dict | None:
    gpu_id = resolve_gpu(name)
    return gpus()[gpu_id] if gpu_id else None


def version_tuple(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in str(version).lstrip("v").split(".") if part.isdecimal())


def chart_has(version: str | None, since: str) -> bool:
    """The chart version values go to is `since` or later; values that pin none go to gengpu's default release,
    the newest it knows."""
    return version is None or version_tuple(version) >= version_tuple(since)


def device_plugin_lacks(operator_version: str, feature: str) -> tuple[str, str] | None:
    """(device plugin, first version with the feature) when the GPU Operator release runs a device plugin older than
    the one that first has it (operator.yaml devicePluginMinFor), else None."""
    plugin = str((operator()["releases"].get(operator_version) or {}).get("devicePlugin", ""))
    since = operator()["devicePluginMinFor"][feature]
    return (plugin, since) if plugin and version_tuple(plugin) < version_tuple(since) else None


def dcgm_exporter_version(operator_version: str) -> str | None:
    """The dcgm-exporter a GPU Operator release deploys: the part after the DCGM version of its tag (4.6.0-4.8.3)."""
    tag = str((operator()["releases"].get(operator_version) or {}).get("dcgmExporter", ""))
    return tag.rpartition("-")[2] or None


def clouds() -> dict:
    return data_file("clouds.yaml")


def software() -> dict:
    return data_file("software.yaml")


def instance_type(platform: str, name: str) -> dict | None:
    """GPU model, GPU count and flags of an instance type, VM size or machine type; None if unknown.

    EKS pools may name a whole family (g5) or one size (g5.xlarge): a family
    gives {'gpu', 'family': True, 'counts': [...]}.
    """
    import re

    table = clouds()
    if platform == "eks":
        families = table["eks"]["families"]
        family, _, size = name.partition(".")
        spec = families.get(family)
        if spec is None:
            return None
        if not size:
            return {"gpu": spec["gpu"], "family": True, "counts": sorted(set(spec["sizes"].values())),
                    "arch": spec["arch"], "gpuName": spec["gpuName"]}
        if size not in spec["sizes"]:
            return None
        return {"gpu": spec["gpu"], "gpus": spec["sizes"][size], "arch": spec["arch"], "gpuName": spec["gpuName"]}
    if platform in ("gke", "gke-autopilot"):
        gke = table["gke"]
        if name in gke["machineTypes"]:
            return dict(gke["machineTypes"][name])
        if re.match(gke["attachable"]["pattern"], name):
            return {"attachable": gke["attachable"]["gpus"], "counts": gke["attachable"]["counts"]}
        return None
    if platform == "aks":
        return dict(table["aks"]["vmSizes"][name]) if name in table["aks"]["vmSizes"] else None
    return None


def platform_gpus(platform: str) -> set[str]:
    """GPU models a platform offers on some instance type."""
    table = clouds()
    if platform == "eks":
        return {f["gpu"] for f in table["eks"]["families"].values()}
    if platform == "gke":
        return {m["gpu"] for m in table["gke"]["machineTypes"].values()} | set(table["gke"]["attachable"]["gpus"])
    if platform == "gke-autopilot":
        allowed = table["gke"]["autopilot"]["allowedCounts"]
        named = {m["gpu"] for m in table["gke"]["machineTypes"].values() if m.get("accelerator") in allowed}
        return {g for g, acc in table["gke"]["accelerators"].items() if acc in allowed} | named
    if platform == "aks":
        return {v["gpu"] for v in table["aks"]["vmSizes"].values()}
    return set()


def gke_accelerator(gpu_id: str, machine_type: str | None = None) -> str | None:
    gke = clouds()["gke"]
    if machine_type and gke["machineTypes"].get(machine_type, {}).get("accelerator"):
        return gke["machineTypes"][machine_type]["accelerator"]
    return gke["accelerators"].get(gpu_id)


def gpu_resource_vendor(name: str) -> dict | None:
    """The vendor entry of a GPU resource name that is not NVIDIA's device plugin's (HAMi, nos, AMD, ...)."""
    import re

    return next((v for v in data_file("resources.yaml")["vendors"] if re.match(v["pattern"], name)), None)


def removed_gpu_resource(name: str) -> dict | None:
    return next((r for r in data_file("resources.yaml")["removed"] if r["name"] == name), None)
