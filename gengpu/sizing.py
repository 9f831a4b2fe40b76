"""Right-sizing: from what a pool's GPUs did (gengpu/metrics/usage.py) to the profile change that packs its pods on
fewer GPUs, priced with `gengpu plan`'s tables.

A pool of whole GPUs (one pod per GPU) whose pods use little of them is proposed MIG instances (on MIG-capable
GPUs: the smallest profile that holds every pod's peak memory plus headroom and its p95 activity, placed by
gengpu's MIG engine) or time-slicing replicas (elsewhere: as many pods per GPU as memory and activity allow). A
busy pool is kept. Nothing is proposed below an observed peak, nor on less data than --min-hours.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from gengpu import catalog, mig, planning
from gengpu.metrics.usage import ENGINE_ACTIVE, GPU_UTIL, Device
from gengpu.model import NodePool, Profile

HEADROOM = 0.2  # above each pod's peak memory: allocations are not steady
SHARED_USABLE = 0.95  # of a whole GPU's memory for time-sliced pods together (the driver and contexts keep some)
IDLE = 0.01  # activity and memory share under which an allocated GPU did nothing
MAX_REPLICAS = 8  # time-slicing beyond this multiplies context switches more than it packs


@dataclass
class PoolUsage:
    """A pool of a profile, its nodes in the cluster and what dcgm-exporter said of their devices."""

    profile: Profile
    doc: object  # the profile's Document, for findings
    pool: NodePool
    nodes: list[str]
    devices: list[Device]
    window: str
    source: str
    spot: dict[str, bool | None] = field(default_factory=dict)  # node -> on spot capacity, as its labels say

    @property
    def hours(self) -> float:
        return max((d.figures.hours for d in self.devices), default=0.0)

    def presence(self) -> dict[tuple, float]:
        """(node, GPU) -> the steps of the window at which the GPU had a sample (a MIG instance counts for its GPU):
        how long each GPU was there, autoscaled or not. Empty when the source gave no coverage figure."""
        per_gpu: dict[tuple, float] = {}
        for d in self.devices:
            if d.figures.present is not None and math.isfinite(d.figures.present):
                key = (d.node, d.uuid or d.gpu)
                per_gpu[key] = max(per_gpu.get(key, 0.0), d.figures.present)
        return per_gpu


@dataclass
class Recommendation:
    profile: str
    pool: str
    verdict: str  # mig | time-slicing | keep | none
    reason: str
    current: dict
    proposed: dict | None = None
    monthly_delta: float | None = None
    evidence: dict = field(default_factory=dict)
    changes: list[tuple[tuple, object]] = field(default_factory=list)  # (path in the pool, new value) for --write
    idle: list[str] = field(default_factory=list)  # allocated devices that did nothing
    usage: PoolUsage | None = None

    def as_json(self) -> dict:
        return {"profile": self.profile, "pool": self.pool, "verdict": self.verdict, "reason": self.reason,
                "current": self.current, "proposed": self.proposed,
                "monthlyDelta": None if self.monthly_delta is None else round(self.monthly_delta, 2),
                "evidence": self.evidence}


def _sharing(pool: NodePool) -> dict:
    s = pool.sharing
    out: dict = {"mode": s.mode}
    if s.replicas:
        out["replicas"] = s.replicas
    if s.mig is not None:
        out["mig"] = {"strategy": s.mig.strategy, **({"layout": dict(s.mig.layout)} if s.mig.layout else {}),
                      **({"preset": s.mig.preset} if s.mig.preset else {}),
                      **({"replicas": s.mig.replicas} if s.mig.replicas else {}),
                      **({"layouts": [{"gpus": list(g), **({"layout": dict(lay)} if lay is not None else
                                                          {"whole": True})} for g, lay in s.mig.layouts]}
                         if s.mig.layouts else {})}
    return out


def _gpu_mib(pool: NodePool, devices: list[Device]) -> float:
    """The GPU's memory: used + free as the exporter saw it, where that is a figure a GPU of the model can have."""
    nominal = float(catalog.gpus()[pool.gpu_id]["memoryGB"]) * 1024 if pool.gpu_id else None
    totals = [d.figures.mem_total for d in devices if d.figures.mem_total and math.isfinite(d.figures.mem_total)
              and (nominal is None or d.figures.mem_total <= nominal * 1.1)]
    if totals:
        return max(totals)
    return nominal if nominal is not None else float("nan")


def _names(devices) -> list[str]:
    """The devices' names, each once, in the order of their numbers."""
    return list(dict.fromkeys(d.shown for d in sorted(devices, key=lambda d: d.order)))


def _round(value: float | None, digits: int = 1):
    return None if value is None else round(value, digits)


def _evidence(usage: PoolUsage, units: list[Device], total_mib: float) -> dict:
    figures = [d.figures for d in units]
    pods = sorted({pod for d in units for pod in d.pods if pod[1]})
    activity = [f.activity_p95 for f in figures if f.activity_p95 is not None]
    means = [f.activity_mean for f in figures if f.activity_mean is not None]
    peaks = [f.mem_peak for f in figures if f.mem_peak is not None]
    p95s = [f.mem_p95 for f in figures if f.mem_p95 is not None]
    out = {
        "source": usage.source, "window": usage.window, "hours": round(usage.hours, 1),
        "nodes": len({d.node for d in usage.devices}), "gpus": len(units), "pods": len(pods),
        "gpuMemoryMiB": round(total_mib) if math.isfinite(total_mib) else None,
        "memPeakMiB": _round(max(peaks, default=None), 0), "memP95MiB": _round(max(p95s, default=None), 0),
        "activityMean": _round(max(means, default=None), 3), "activityP95": _round(max(activity, default=None), 3),
        "activityMetric": next((f.activity_source for f in figures if f.activity_source), None),
        "devices": [{"node": d.node, "gpu": d.gpu, "uuid": d.uuid,
                     **({"mig": d.mig, "instance": d.instance} if d.mig else {}),
                     "pods": [f"{ns}/{name}" for ns, name in sorted(d.pods) if name],
                     "memPeakMiB": _round(d.figures.mem_peak, 0), "memP95MiB": _round(d.figures.mem_p95, 0),
                     "activityMean": _round(d.figures.activity_mean, 3),
                     "activityP95": _round(d.figures.activity_p95, 3)} for d in units],
        "notes": [],
    }
    return out


def _price(profile: Profile, pool: NodePool, spot: dict[str, bool | None] | None = None) -> tuple[float | None, str]:
    """The pool's cheapest price per GPU-hour and what it rests on: where the nodes' labels say their capacity type,
    the spot and on-demand prices weighted by how many nodes ran on each; else on-demand where the pool runs it,
    else its first capacity type."""
    plan = planning.plan_pool(profile, pool)
    said = [v for v in (spot or {}).values() if v is not None]
    if said and any(said):
        on_spot = sum(said) / len(said)
        spot_price, on_demand = plan.per_gpu_hour("spot"), plan.per_gpu_hour("on-demand")
        if spot_price and (on_demand or on_spot == 1):
            blended = on_spot * spot_price[0] + (1 - on_spot) * (on_demand[0] if on_demand else 0.0)
            return blended, f"{sum(said)} of {len(said)} node(s) spot"
    capacity = "on-demand" if "on-demand" in pool.capacity_types else (pool.capacity_types or ("on-demand",))[0]
    per = plan.per_gpu_hour(capacity)
    return (per[0] if per else None), capacity


ALWAYS_ON = 0.9  # of the window's GPU-hours, above which a pool is priced as running all month


def _run_share(usage: PoolUsage) -> float | None:
    """The share of the window's GPU-hours the pool's GPUs were there (1: always on; less: autoscaled), against the
    GPU there longest (so a scrape interval longer than PromQL's lookback does not read as absence)."""
    present = usage.presence()
    longest = max(present.values(), default=0.0)
    if longest <= 0:
        return None
    return sum(present.values()) / (len(present) * longest)


def _known(value: float | None) -> bool:
    return value is not None and math.isfinite(value) and 0 <= value <= 1


def activity(device: Device) -> float:
    """A device's p95 activity, 0..1; no figure, or one that cannot be (NaN, below 0, above 1), counts as busy."""
    value = device.figures.activity_p95
    return value if _known(value) else 1.0


def memory_ok(value: float | None, total_mib: float) -> bool:
    """A memory figure that can be: a number, not negative, not above the GPU's memory."""
    return value is not None and math.isfinite(value) and 0 <= value <= total_mib * 1.02


def share(gpu_id: str, device: Device) -> float:
    """A device's p95 activity as a share of its whole GPU: a MIG instance's engine activity is of its own compute
    slices (DCGM reports profiling metrics per GPU instance). No figure is not idle: it counts as a busy GPU."""
    if not _known(device.figures.activity_p95):
        return 1.0
    value = device.figures.activity_p95
    if not device.mig:
        return value
    spec = mig.profiles(gpu_id).get(device.mig)
    if spec is None:
        return value  # a profile gengpu does not know: count it as a whole GPU, never below what was seen
    return value * spec["compute"] / catalog.gpus()[gpu_id]["mig"]["slices"]["compute"]


def _mig_choice(gpu_id: str, units: list[Device], headroom: float) -> tuple[str, int] | None:
    """The MIG profile that holds every unit (peak memory + headroom, p95 activity) most times over on one GPU."""
    table = mig.profiles(gpu_id)
    compute = catalog.gpus()[gpu_id]["mig"]["slices"]["compute"]
    best = None
    for name, spec in table.items():
        if "+" in name:  # +me/+gfx variants: the same memory with media engines; never the packing choice
            continue
        gib = mig.usable_gib(gpu_id, name)
        if gib is None:
            continue  # no published size: never sized from the name
        usable = gib * 1024
        fits = spec["compute"] / compute
        # the same headroom on compute: a pod at 12% of an A100 would run a 1g slice (1/7) at 84%
        if all((d.figures.mem_peak or 0) * (1 + headroom) <= usable and share(gpu_id, d) * (1 + headroom) <= fits
               for d in units):
            count = max(c for c in range(1, spec["max"] + 1) if mig.check_layout(gpu_id, {name: c}).valid)
            key = (count, usable)
            if best is None or key > best[0]:
                best = (key, name, count)
    return (best[1], best[2]) if best else None


def _replicas(units: list[Device], total_mib: float, headroom: float) -> int:
    memory = max((d.figures.mem_peak or 0) * (1 + headroom) for d in units)
    busiest = max(activity(d) for d in units)
    by_memory = math.floor(total_mib * SHARED_USABLE / memory) if memory else MAX_REPLICAS
    by_activity = math.floor(1 / (busiest * (1 + headroom))) if busiest > 0 else MAX_REPLICAS
    return max(1, min(by_memory, by_activity, MAX_REPLICAS))


def _limits(pool: NodePool, per_gpu_now: int, per_gpu_new: int, needed: int) -> list[tuple[tuple, object]]:
    """Limits that admit as many pods as today's on the packed GPUs, in whole nodes (a GPU limit below one node's
    GPUs launches no node) and never below the GPUs today's pods need."""
    per_node = pool.gpus_per_node or 1
    changes = []
    if pool.limits.get("gpus") is not None:
        gpus = max(needed, math.ceil(int(pool.limits["gpus"]) * per_gpu_now / per_gpu_new))
        changes.append((("limits", "gpus"), math.ceil(gpus / per_node) * per_node))
    if pool.limits.get("nodes") is not None:
        nodes = math.ceil(int(pool.limits["nodes"]) * per_gpu_now / per_gpu_new)
        changes.append((("limits", "nodes"), max(1, nodes, math.ceil(needed / per_node))))
    return changes


def _multi_gpu_pods(devices: list[Device]) -> dict[str, int]:
    """Pods whose series sit on more than one GPU: `namespace/name` -> how many."""
    held: dict[tuple, set] = {}
    for d in devices:
        for pod in d.pods:
            if pod[1]:
                held.setdefault(pod, set()).add((d.node, d.uuid or d.gpu))
    return {f"{ns}/{name}": len(gpus) for (ns, name), gpus in sorted(held.items()) if len(gpus) > 1}


def recommend(usage: PoolUsage, min_hours: float, headroom: float = HEADROOM,
              gone: dict[str, str] | None = None, doubt: str | None = None) -> Recommendation:
    """gone: nodes of the window's series that the cluster no longer has and that may have been this pool's (its
    GPU model), each with why its pool is not known: while they cannot be placed, nothing is proposed. doubt: why
    the nodes joined into the pool make its figures untrustworthy (nothing is proposed either)."""
    profile, pool = usage.profile, usage.pool
    current = {"sharing": _sharing(pool), "limits": dict(pool.limits)}
    rec = Recommendation(profile.name, pool.name, "none", "", current, usage=usage)
    if not usage.devices:
        rec.reason = (f"no dcgm-exporter series for the pool's {len(usage.nodes)} node(s) in {usage.window}: "
                      "nothing to size on")
        return rec
    on_mig = pool.sharing.mode == "mig"
    # a MIG pool is sized from its instances' series (each carries its parent GPU's UUID), any other from its GPUs'
    devices = [d for d in usage.devices if bool(d.mig) == on_mig] or usage.devices
    allocated = [d for d in devices if any(name for _, name in d.pods)]
    units = allocated or devices
    gpus = len({(d.node, d.uuid or d.gpu) for d in devices})
    total_mib = _gpu_mib(pool, [d for d in usage.devices if not d.mig])
    rec.evidence = _evidence(usage, units, total_mib)
    rec.evidence["gpus"] = gpus
    if on_mig:
        rec.evidence["migDevices"] = len(units)
    current["gpus"] = gpus
    if usage.hours < min_hours:
        rec.reason = f"too little data: {usage.hours:.1f} h of samples, at least {min_hours:g} h are needed"
        return rec
    if gone:
        names = sorted(gone)
        rec.evidence["nodesGone"] = names
        rec.reason = (f"{len(names)} node(s) with this pool's GPU reported in the window but are not in the cluster "
                      f"now ({', '.join(names[:3])}{', ...' if len(names) > 3 else ''}): autoscaled away, their jobs "
                      f"may need more than the survivors show; their pool is not known ({names[0]}: {gone[names[0]]})")
        return rec
    if doubt:
        rec.reason = doubt
        return rec
    unusable = _names(d for d in units if not memory_ok(d.figures.mem_peak, total_mib))
    if unusable:
        rec.evidence["memoryUnusable"] = unusable
        rec.reason = (f"the memory figures of {len(unusable)} device(s) ({', '.join(unusable[:3])}"
                      f"{', ...' if len(unusable) > 3 else ''}) are missing or cannot be (not a number, below 0, "
                      f"above the GPU's memory): nothing is proposed on them")
        return rec
    unknown = _names(d for d in units if not _known(d.figures.activity_p95))
    if unknown:
        rec.evidence["notes"].append(f"no activity figure ({ENGINE_ACTIVE} or {GPU_UTIL}) for {len(unknown)} "
                                     f"device(s) ({', '.join(unknown[:3])}): sized as busy")
    several = _multi_gpu_pods([d for d in usage.devices if not d.mig])
    if several:
        rec.verdict = "keep"
        rec.evidence["multiGpuPods"] = several
        first = next(iter(several))
        rec.reason = (f"{len(several)} pod(s) hold several GPUs ({first}: {several[first]}): a process sees one MIG "
                      "device and MIG has no NVLink or peer-to-peer, time-slicing would put them on slices of one "
                      "GPU; the pool stays whole GPUs")
        return rec
    rec.idle = [d.shown for d in allocated if _known(d.figures.activity_p95) and d.figures.activity_p95 < IDLE
                and (d.figures.mem_peak or 0) < IDLE * total_mib]
    rec.evidence["idleGpus"] = len(rec.idle)
    if pool.dra or len(pool.gpus) != 1:
        rec.verdict = "keep"
        rec.reason = "DRA pools are not sized from metrics yet" if pool.dra else \
            "several GPU models: sized per model by hand"
        return rec
    if pool.sharing.mig is not None and pool.sharing.mig.layouts and pool.sharing.mode == "mig":
        rec.verdict = "keep"
        rec.reason = "per-GPU MIG layouts: no one layout is proposed for GPUs laid out apart; size them by hand"
        return rec
    if pool.sharing.mig_replicas > 1:
        rec.verdict = "keep"
        rec.reason = (f"time-sliced MIG devices ({pool.sharing.mig_replicas} pods take turns on each): a device's "
                      "figures are its pods' together, so no layout is proposed from them; size it by hand")
        return rec
    if pool.sharing.mode in ("time-slicing", "mps"):
        from gengpu import shared_sizing

        return shared_sizing.recommend(rec, usage, units, gpus, total_mib, headroom)
    gpu_id = pool.gpu_id
    per_node = pool.gpus_per_node or 1
    per_gpu_now = planning.slices_per_gpu(pool) if on_mig else 1
    choice = _mig_choice(gpu_id, units, headroom) if mig.profiles(gpu_id) and profile.platform != "gke-autopilot" \
        else None
    if choice:
        name, per_gpu = choice
        # the cluster has one MIG strategy (the operator sets it for every node): the one other pools already use
        strategy = next((p.sharing.mig.strategy for p in profile.node_pools if p is not pool and not p.dra
                         and p.sharing.mode == "mig" and p.sharing.mig), "single")
        proposed_sharing = {"mode": "mig", "mig": {"strategy": strategy, "layout": {name: per_gpu}}}
        how = f"MIG {per_gpu} x {name} per GPU"
    elif on_mig:
        rec.verdict = "keep"
        rec.reason = f"no MIG profile of {gpu_id} holds every pod with {headroom:.0%} headroom"
        return rec
    else:
        per_gpu = _replicas(units, total_mib, headroom)
        proposed_sharing = {"mode": "time-slicing", "replicas": per_gpu}
        how = f"time-slicing, {per_gpu} pods per GPU"
    needed = math.ceil(math.ceil(len(units) / per_gpu) / per_node) * per_node
    busiest = max(share(gpu_id, d) for d in units)
    biggest = max((d.figures.mem_peak or 0) for d in units)
    held = f"{len(units)} MIG device(s) on {gpus} GPU(s)" if on_mig else f"{gpus} GPU(s)"
    # no activity series at all (neither engine activity nor GPU_UTIL): each GPU counts as busy, and says so
    busy = f"{busiest:.0%} of a GPU's p95 activity" if on_mig else f"{busiest:.0%} p95 activity"
    if not any(_known(d.figures.activity_p95) for d in units):
        busy = "no activity series (each GPU counted as busy)"
    observed = (f"{held} whose pods peaked at {biggest / 1024:.1f} GiB and {busy} over {usage.hours:.1f} h" if on_mig
                else f"{held} whose pods peaked at {biggest / 1024:.1f} GiB of {total_mib / 1024:.0f} GiB and {busy} "
                f"over {usage.hours:.1f} h")
    if per_gpu < 2 or needed >= gpus or (on_mig and proposed_sharing["mig"]["layout"] == dict(
            current["sharing"].get("mig", {}).get("layout") or {})):
        rec.verdict = "keep"
        rec.reason = f"busy: {observed}; packing them frees no GPU"
        return rec
    propose(rec, usage, proposed_sharing, per_gpu_now, per_gpu, needed, gpus, headroom)
    if choice and biggest:
        rec.evidence["headroomLeft"] = round(mig.usable_gib(gpu_id, choice[0]) * 1024 / biggest - 1, 3)
        rec.evidence["instanceGiB"] = mig.usable_gib(gpu_id, choice[0])
    rec.reason = f"{observed}: {how} holds them on {needed} GPU(s)"
    return rec


def propose(rec: Recommendation, usage: PoolUsage, sharing: dict, per_gpu_now: int, per_gpu: int, needed: int,
            gpus: int, headroom: float, edits: list | None = None) -> None:
    """The proposal's sharing, limits and saving, with the saving's basis. edits: the changes to the pool's sharing
    for --write (default: the whole sharing block)."""
    pool = usage.pool
    per_hour, capacity = _price(usage.profile, pool, usage.spot)
    run_share = _run_share(usage)
    rec.verdict = sharing["mode"]
    limit_changes = _limits(pool, per_gpu_now, per_gpu, needed)
    rec.proposed = {"sharing": sharing, "limits": {**pool.limits, **{k[1]: v for k, v in limit_changes}},
                    "gpus": needed}
    rec.changes = [*(edits or [(("sharing",), sharing)]), *limit_changes]
    # an autoscaled pool pays for the hours its GPUs ran: the saving scales with that share of the month
    autoscaled = run_share is not None and run_share < ALWAYS_ON
    rec.monthly_delta = ((needed - gpus) * per_hour * planning.HOURS_PER_MONTH * (run_share if autoscaled else 1)
                         if per_hour is not None else None)
    rec.evidence.update({"capacity": capacity, "pricePerGpuHour": per_hour, "headroom": headroom,
                         "runShare": None if run_share is None else round(run_share, 3),
                         "basis": (f"autoscaled: the GPUs ran {run_share:.0%} of the {usage.hours:.1f} h" if autoscaled
                                   else "always on")})
