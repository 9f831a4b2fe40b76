"""Right-sizing a pool that already shares its GPUs (time-slicing or MPS replicas), from each pod's own figures.

dcgm-exporter gives a pod on a shared GPU its own memory and utilisation only from NVML's per-process data (4.8.2
and later, with KUBERNETES_VIRTUAL_GPUS; docs/research/dcgm-exporter.md, section 4): it maps each process to its pod
through the pod UID in the process's cgroup, so it needs the host's PIDs (hostPID) and the pod UIDs (the operator's
dcgmExporter.enablePodUID, which mounts the API token). Without KUBERNETES_VIRTUAL_GPUS every pod's series repeats
its GPU's figures; without hostPID or the UIDs they read 0. Only per-process figures size pods apart: the others
keep the pool as it is, and say which case it is.
"""

from __future__ import annotations

import math

from gengpu import sizing
from gengpu.metrics.usage import Device, Figures

PER_PROCESS = "per-process"
COPIES = "copies"
ZERO = "zero"
MIXED = "mixed"  # GPUs whose pods' series are of different kinds: which to trust is not known
UNKNOWN = "unknown"  # no GPU held by two pods in the window: nothing tells the kind


def pods_of(units: list[Device]) -> tuple[list[Device], str]:
    """(a unit per pod on a shared GPU, with the pod's own figures, and what the pods' series are), judged on every
    GPU that two or more pods share: copies when each pod's peak is its GPU's, zero when they read 0 while the GPU
    holds memory, per-process when every such GPU shows pods' own figures; mixed when GPUs disagree, unknown when no
    GPU had two pods."""
    pods, seen = [], set()
    for d in units:
        named = {pod: f for pod, f in d.pods.items() if pod[1]}
        for (namespace, name), figures in sorted(named.items()):
            # a pod's activity is its own GPU_UTIL (per process); the engine activity on its series is the GPU's
            own = Figures(mem_peak=figures.mem_peak, mem_p95=figures.mem_p95, util_mean=figures.util_mean,
                          util_p95=figures.util_p95)
            pods.append(Device(d.node, d.gpu, d.uuid, d.mig, d.model, d.instance, own, {(namespace, name): own}))
        device = d.figures.mem_peak
        if len(named) < 2 or device is None or not math.isfinite(device):
            continue
        peaks = [f.mem_peak or 0.0 for f in named.values()]
        if device > 0 and not any(peaks):
            seen.add(ZERO)
        elif all(abs(p - device) <= 0.02 * max(device, 1.0) for p in peaks):
            seen.add(COPIES)
        else:
            seen.add(PER_PROCESS)
    return pods, (seen.pop() if len(seen) == 1 else MIXED if seen else UNKNOWN)


def recommend(rec, usage, units: list[Device], gpus: int, total_mib: float, headroom: float):
    """Replicas per GPU that hold every pod's own peak memory and p95 utilisation plus headroom: more than today's
    frees GPUs (proposed with limits that admit as many pods), fewer means today's replicas over-commit memory."""
    pool = usage.pool
    mode, now = pool.sharing.mode, pool.sharing.replicas or 1
    pods, what = pods_of(units)
    rec.evidence["perPodFigures"] = what
    rec.verdict = "keep"
    if what == COPIES:
        rec.reason = (f"already {mode}: every pod's series carries its whole GPU's figures (dcgm-exporter before "
                      "4.8.2, or without KUBERNETES_VIRTUAL_GPUS), so pods cannot be sized apart")
        return rec
    if what == MIXED:
        rec.reason = (f"already {mode}: the pods' series are their own on some GPUs and not on others (copies of the "
                      "GPU's figures, or 0), so pods cannot be sized apart; is one exporter older or set up "
                      "differently?")
        return rec
    if what == UNKNOWN:
        rec.reason = (f"already {mode}: no GPU was held by two pods in the window, so nothing tells whether each "
                      "pod's series are its own figures or its GPU's; nothing is proposed")
        return rec
    if what == ZERO:
        rec.reason = (f"already {mode}: the pods' own series read 0 while their GPUs hold memory: dcgm-exporter's "
                      "per-process attribution needs hostPID and the pods' UIDs (dcgmExporter.hostPID and "
                      "enablePodUID, which gengpu sets on operator v26.7.0 and later)")
        return rec
    rec.evidence["notes"].append("per-pod figures from NVML's per-process data (dcgm-exporter 4.8.2 and later): "
                                 "memory and GPU_UTIL of each pod's own processes")
    per_gpu = sizing._replicas(pods, total_mib, headroom)
    biggest = max((p.figures.mem_peak or 0) for p in pods)
    busiest = max(sizing.activity(p) for p in pods)
    observed = (f"{len(pods)} pod(s) on {gpus} GPU(s) whose own peaks reached {biggest / 1024:.1f} GiB of "
                f"{total_mib / 1024:.0f} GiB and {busiest:.0%} p95 utilisation over {usage.hours:.1f} h")
    per_node = pool.gpus_per_node or 1
    needed = math.ceil(math.ceil(len(pods) / per_gpu) / per_node) * per_node
    if per_gpu < now:
        rec.reason = (f"{observed}: {now} {mode} replicas over-commit a GPU, {per_gpu} hold them with "
                      f"{headroom:.0%} headroom; lower the replicas by hand (and raise the limits to keep the pods)")
        return rec
    if per_gpu == now or needed >= gpus:
        rec.reason = f"busy: {observed}; more replicas free no GPU"
        return rec
    # only the replicas change: the rest of the pool's sharing block (renameByDefault, MPS settings) stays as written
    proposed = {**rec.current["sharing"], "replicas": per_gpu}
    sizing.propose(rec, usage, proposed, now, per_gpu, needed, gpus, headroom, [(("sharing", "replicas"), per_gpu)])
    rec.reason = f"{observed}: {mode}, {per_gpu} pods per GPU holds them on {needed} GPU(s)"
    return rec
