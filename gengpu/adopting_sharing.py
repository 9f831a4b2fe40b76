"""The sharing a node shows, read for `gengpu import`: what it registers (capacity, allocatable) and GPU Feature
Discovery's labels, as MIG devices (time-sliced or not), time-slicing or MPS replicas, renamed shared GPUs."""

from __future__ import annotations

import re

from gengpu import mig
from gengpu.live import pools as live_pools
from gengpu.live.snapshot import Item

STRATEGY = "nvidia.com/gpu.sharing-strategy"
REPLICAS = "nvidia.com/gpu.replicas"


def counts(item: Item) -> dict[str, int]:
    """What the node registered: capacity (allocatable where the snapshot has no capacity), without a name the
    node no longer serves (allocatable 0 beside another GPU resource that is offered: the kubelet keeps a renamed
    resource's capacity for a while)."""
    out, offered = {}, {}
    for section in ("allocatable", "capacity"):
        for k, v in item.mapping("status", section).items():
            if str(k).startswith(live_pools.GPU_PREFIXES) and str(v).isdecimal():
                out[str(k)] = int(v)
                if section == "allocatable":
                    offered[str(k)] = int(v)
    if any(offered.values()):
        out = {k: v for k, v in out.items() if offered.get(k, v) > 0 or k not in offered}
    return out


def sharing_of(item: Item, gpus: int | None, gpu_id: str | None) -> dict | None:
    """The sharing the node shows: MIG devices (mixed: per resource; single: GFD's -MIG-<profile> product), else
    GFD's sharing strategy and replicas, with the shared GPUs renamed where they are advertised as .shared."""
    labels, registered_by = item.labels, counts(item)
    devices, ways = mig_devices(item)
    if not devices:  # GFD's per-profile labels under the mixed strategy (nvidia.com/mig-<profile>.count)
        devices = {m.group(1): int(v) for k, v in labels.items()
                   if (m := re.match(r"^nvidia\.com/mig-(\d+g\.\d+gb)\.count$", k)) and str(v).isdecimal() and int(v)}
    product = labels.get(live_pools.PRODUCT, "")
    sliced = {"replicas": ways} if ways > 1 else {}
    if devices and gpus:
        layout = {p: n // gpus for p, n in sorted(devices.items()) if n // gpus}
        return {"mode": "mig", "mig": {"strategy": "mixed", **_layout_or_preset(layout, labels, gpu_id), **sliced}}
    single = re.search(r"-MIG-(\d+g\.\d+gb)(?:-SHARED)?$", product)
    # under the single strategy GFD counts the MIG devices in gpu.count; the plugin registers each once per replica
    replicas = labels.get(REPLICAS, "")
    ways = int(replicas) if replicas.isdecimal() and int(replicas) > 1 else 1
    registered = (registered_by.get("nvidia.com/gpu") or 0) // ways or (
        int(labels[live_pools.COUNT]) if labels.get(live_pools.COUNT, "").isdecimal() else 0)
    if single and gpus and registered:
        layout = {single.group(1): registered // gpus}
        return {"mode": "mig", "mig": {"strategy": "single", **_layout_or_preset(layout, labels, gpu_id),
                                       **({"replicas": ways} if ways > 1 else {})}}
    strategy, replicas = labels.get(STRATEGY), labels.get(REPLICAS)
    shared = registered_by.get("nvidia.com/gpu.shared") or registered_by.get("nvidia.com/gpu")
    if not (replicas and replicas.isdecimal()) and shared and gpus and shared > gpus and shared % gpus == 0:
        replicas = str(shared // gpus)  # no GFD label: what the plugin registered per GPU
    if replicas and replicas.isdecimal() and int(replicas) > 1 and strategy in (None, "time-slicing", "mps"):
        # GFD before the sharing-strategy label knew only time-slicing
        out = {"mode": strategy or "time-slicing", "replicas": int(replicas)}
        if "nvidia.com/gpu.shared" in registered_by:
            out["renameByDefault"] = True
        return out
    return None


def mig_devices(item: Item) -> tuple[dict, int]:
    """(profile -> the MIG devices the node has, how many ways each is time-sliced): what it registers over GFD's
    nvidia.com/mig-<profile>.replicas, as the plugin registers a time-sliced device once per replica; ways 1 where
    the profiles are not all sliced alike."""
    out, ways = {}, set()
    for resource, n in counts(item).items():
        if resource.startswith("nvidia.com/mig-") and n:
            said = item.labels.get(f"{resource}.replicas", "")
            k = int(said) if said.isdecimal() and int(said) > 1 and n % int(said) == 0 else 1
            out[resource.removeprefix("nvidia.com/mig-")] = n // k
            ways.add(k)
    return out, (ways.pop() if len(ways) == 1 else 1)


def _layout_or_preset(layout: dict, labels: dict, gpu_id: str | None) -> dict:
    """NVIDIA's stock config name where the node runs one and it is this layout, else the layout itself."""
    config = labels.get("nvidia.com/mig.config", "")
    if gpu_id and config.startswith("all-") and mig.preset_layout(gpu_id, config) == layout:
        return {"preset": config}
    return {"layout": layout}


def laid_out_per_gpu(item: Item, gpus: int | None) -> str | None:
    """Why the node's MIG devices are no one layout for every GPU (whole GPUs registered beside them, counts its GPUs
    do not divide), for the team to write sharing.mig.layouts; None where one layout fits. Which GPU holds what is
    the MIG manager's config to say, not the node's counts."""
    devices, _ = mig_devices(item)
    whole = counts(item).get("nvidia.com/gpu", 0)
    if not devices or not gpus or not (whole or any(n % gpus for n in devices.values())):
        return None
    listed = ", ".join(f"{n} {p}" for p, n in sorted(devices.items())) + (f" and {whole} whole GPU(s)" if whole else "")
    config = item.labels.get("nvidia.com/mig.config")
    return (f"its MIG devices ({listed} on {gpus} GPUs) differ GPU by GPU: no sharing is written; write "
            "sharing.mig.layouts (GPU indices with their layout, or whole: true) from "
            + (f"the MIG manager's config {config}" if config else "the MIG manager's config"))

