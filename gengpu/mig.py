"""MIG geometry: resolve named presets and place GPU instances on a GPU's slices.

A layout is valid when every profile exists on the GPU, no profile exceeds its
maximum count, compute slices add up to at most the GPU's, and each instance
sits on one of its allowed start slots without sharing a memory slice with
another (NVIDIA MIG User Guide, placement listing of `nvidia-smi mig -lgipp`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gengpu import catalog

_BASE = re.compile(r"^(\d+)g\.\d+gb$")


@dataclass(frozen=True)
class Placement:
    profile: str
    start: int
    size: int


@dataclass(frozen=True)
class Verdict:
    gpu: str
    valid: bool
    problems: tuple[tuple[str | None, str], ...]  # (profile the problem is about, or None; text)
    placement: tuple[Placement, ...] = ()

    @property
    def reasons(self) -> list[str]:
        return [text for _, text in self.problems]


def profiles(gpu_id: str) -> dict:
    return (catalog.gpus()[gpu_id].get("mig") or {}).get("profiles", {})


def usable_gib(gpu_id: str, profile: str) -> float | None:
    """The memory an instance of the profile holds on a real GPU (gengpu/data/mig-memory.yaml: nvidia-smi's figure,
    the least across drivers), or None where none was published: never the profile name's number."""
    entry = (catalog.data_file("mig-memory.yaml")["gpus"].get(gpu_id) or {}).get("usableGiB") or {}
    value = entry.get(profile)
    return float(value) if value is not None else None


def preset_layout(gpu_id: str, preset: str) -> dict | None:
    """all-balanced and all-<profile> as mig-manager generates them (pkg/mig/builder)."""
    table = profiles(gpu_id)
    if not table:
        return None
    if preset == "all-balanced":
        compute = catalog.gpus()[gpu_id]["mig"]["slices"]["compute"]
        wanted = {1: 2, 2: 1, 3: 1} if compute == 7 else {1: 2, 2: 1}
        layout = {}
        for g, count in wanted.items():
            base = [p for p in table if (m := _BASE.match(p)) and int(m.group(1)) == g]
            if not base:
                return None
            best = max(base, key=lambda p: (table[p]["max"], -table[p]["memory"]))
            layout[best] = count
        return layout
    suffix = preset.removeprefix("all-")
    for name, spec in table.items():
        if name.replace("+", ".") == suffix:
            return {name: spec["max"]}
    return None


def aks_instance_profile(gpu_id: str, layout: dict) -> tuple[str | None, str]:
    """AKS's --gpu-instance-profile that gives every GPU this layout, or None and why none does. AKS partitions each
    GPU into as many instances of one size as fit (platforms.yaml aks.managedGpu.migInstanceProfiles)."""
    table = profiles(gpu_id)
    sizes = catalog.platforms()["aks"]["managedGpu"]["migInstanceProfiles"]
    if not table:
        return None, f"{gpu_id} has no MIG"
    if catalog.gpus()[gpu_id]["mig"]["slices"]["compute"] != 7:
        return None, f"AKS's {', '.join(sizes)} partition GPUs of 7 compute slices (A100, H100, H200), not {gpu_id}"
    if len(layout) != 1:
        return None, f"AKS partitions every GPU into one instance size ({', '.join(sizes)}); the layout has {len(layout)}"
    (name, count), = layout.items()
    m = _BASE.match(name)
    if not m or name not in table:
        return None, f"AKS's {', '.join(sizes)} create no {name} instances (only plain profiles, no +me, -me or +gfx)"
    key = f"MIG{m.group(1)}g"
    same_size = [p for p in table if (b := _BASE.match(p)) and b.group(1) == m.group(1)]
    smallest = min(same_size, key=lambda p: table[p]["memory"])
    if name != smallest:
        return None, f"{key} makes {smallest} instances on {gpu_id}, not {name}"
    if count != sizes[key]:
        return None, f"{key} makes {sizes[key]} {name} instance(s) of every GPU, not {count}"
    return key, ""


def check_layout(gpu_id: str, layout: dict) -> Verdict:
    """Decide whether one GPU can hold layout (profile -> count), and where each instance sits."""
    gpu = catalog.gpus()[gpu_id]
    table = profiles(gpu_id)
    if not table:
        return Verdict(gpu_id, False, ((None, f"{gpu_id} does not support MIG"),))
    problems = []
    for name, count in layout.items():
        if name not in table:
            problems.append((name, f"profile {name} does not exist on {gpu_id}; it has {', '.join(table)}"))
        elif count > table[name]["max"]:
            problems.append((name, f"{count} x {name} exceeds the maximum of {table[name]['max']} on {gpu_id}"))
    if problems:
        return Verdict(gpu_id, False, tuple(problems))
    slices = gpu["mig"]["slices"]
    compute = sum(table[n]["compute"] * c for n, c in layout.items())
    if compute > slices["compute"]:
        return Verdict(gpu_id, False, (
            (None, f"the layout needs {compute} compute slices; {gpu_id} has {slices['compute']}"),))
    # Largest first: big instances have the fewest start slots.
    instances = sorted(
        (n for n, c in layout.items() for _ in range(c)),
        key=lambda n: (-table[n]["memory"], len(table[n]["starts"]), n),
    )
    used = [False] * slices["memory"]
    placed: list[Placement] = []

    def place(i: int) -> bool:
        if i == len(instances):
            return True
        name = instances[i]
        size = table[name]["memory"]
        for start in table[name]["starts"]:
            span = range(start, start + size)
            if start + size <= len(used) and not any(used[s] for s in span):
                for s in span:
                    used[s] = True
                placed.append(Placement(name, start, size))
                if place(i + 1):
                    return True
                placed.pop()
                for s in span:
                    used[s] = False
        return False

    if not place(0):
        need = sum(table[n]["memory"] * c for n, c in layout.items())
        return Verdict(gpu_id, False, ((None,
            f"the instances cannot be placed on {gpu_id}'s {slices['memory']} memory slices without overlap"
            f" (they need {need}, on their allowed start slots)"),))
    return Verdict(gpu_id, True, (), tuple(sorted(placed, key=lambda p: (p.start, p.profile))))


def _field(text: str, suffix: str) -> str | None:
    if text.strip() != text:
        return f"leading or trailing spaces on '%d{suffix}'"
    if not text.endswith(suffix):
        return f"missing '{suffix}' from '%d{suffix}'"
    number = text[: -len(suffix)]
    if not re.fullmatch(r"[+-]?[0-9]+", number):
        return f"malformed number in '%d{suffix}'"
    return None


def profile_name_problem(profile: str) -> str | None:
    """Why go-nvlib's parseMigProfile (used by mig-parted) would refuse a profile name, or None."""
    if profile == "":
        return "profile is the empty string"
    plus = profile.split("+", 1)
    minus = profile.split("-", 1)
    if len(plus) == 2 and len(minus) == 2:
        return f"profile '{profile}' contains both '+/-' attributes"
    parts = plus if len(plus) == 2 else minus
    fields = parts[0].split(".", 2)
    if len(fields) == 3:
        suffixes = ("c", "g", "gb")
    elif len(fields) == 2:
        suffixes = ("g", "gb")
    else:
        return f"cannot parse fields of '{profile}': parsed wrong number of fields, expected 2 or 3"
    for text, suffix in zip(fields, suffixes):
        if why := _field(text, suffix):
            return f"cannot parse fields of '{profile}': {why}"
    if len(parts) == 1:
        return None
    seen = set()
    for attr in parts[1].split(","):
        why = None
        if attr in seen:
            why = "non unique attribute in list"
        elif attr == "":
            why = "empty attribute in list"
        elif attr.strip() != attr:
            why = "leading or trailing spaces in attribute"
        elif attr[0].isdecimal():
            why = "attribute begins with a number"
        elif attr[0] == "." or attr[-1] == ".":
            why = "attribute begins/ends with a dot"
        elif not re.fullmatch(r"[A-Za-z0-9.]+", attr):
            why = "non alpha-numeric character or digit in attribute"
        if why:
            return f"cannot parse attributes of '{profile}': {why}"
        seen.add(attr)
    return None


def gpus_for_device_filter(device_filter) -> tuple[list[str], list[str]]:
    """GPU ids matching a mig-parted device-filter ("0x20B010DE" or a list), and the ids gengpu does not know."""
    if device_filter is None:
        return [], []
    if isinstance(device_filter, str):
        filters = [device_filter]
    elif isinstance(device_filter, list):
        filters = device_filter
    else:
        return [], [str(device_filter)]
    known, unknown = [], []
    for raw in filters:
        device = str(raw).split(":")[0].upper()
        device = "0X" + device[2:] if device.startswith("0X") else device
        pci = device[:6].replace("0X", "0x")
        match = [g for g, spec in catalog.gpus().items() if pci in spec.get("pciDeviceIds", [])]
        if match and device.endswith("10DE"):
            known += [g for g in match if g not in known]
        else:
            unknown.append(str(raw))
    return known, unknown


def mig_gpus() -> list[str]:
    return [g for g, spec in catalog.gpus().items() if spec.get("mig")]


def maximal_layouts(gpu_id: str) -> list[dict]:
    """Every valid layout to which no further instance can be added, largest instances first."""
    table = profiles(gpu_id)
    if not table:
        return []
    names = sorted(table, key=lambda n: (-table[n]["memory"], -table[n]["compute"], n))

    def fits(layout):
        return check_layout(gpu_id, layout).valid  # counts, compute slices and placement: the one authority

    valid = []

    def grow(i, layout):
        if i == len(names):
            if layout:
                valid.append(dict(layout))
            return
        name = names[i]
        for count in range(table[name]["max"], -1, -1):
            if count:
                layout[name] = count
                if not fits(layout):
                    continue
            else:
                layout.pop(name, None)
            grow(i + 1, layout)

    grow(0, {})
    maximal = []
    for layout in valid:
        if not any(fits({**layout, n: layout.get(n, 0) + 1}) for n in names):
            maximal.append(layout)
    return maximal


def slot_map(verdict: Verdict) -> str:
    """A picture of where each instance sits on the GPU's memory slices."""
    slices = catalog.gpus()[verdict.gpu]["mig"]["slices"]["memory"]
    width = 10
    head = "slice  " + "".join(f"{i:<{width}}" for i in range(slices))
    cells, at = [], 0
    for p in verdict.placement:
        cells += ["|" + "free".ljust(width - 1)] * (p.start - at)
        cells.append("|" + p.profile.ljust(width * p.size - 1))
        at = p.start + p.size
    cells += ["|" + "free".ljust(width - 1)] * (slices - at)
    return head.rstrip() + "\n       " + "".join(cells) + "|"
