import re

from gengpu import catalog
from gengpu.checking.rules._placed import placed_pool
from gengpu.checking.rules.base import WORKLOAD, Hit, Rule
from gengpu.checking.podspecs import dig

# What a workload says one replica needs of GPU memory: gengpu's own annotation (a Kubernetes quantity), or the
# KAI Scheduler / Run:ai annotation (MiB).
ANNOTATION = "gengpu.dev/gpu-memory"
KAI = "gpu-memory"
_UNITS = {"": 1, "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40}


def _bytes(value) -> int | None:
    m = re.fullmatch(r"([0-9]+(?:\.[0-9]+)?)(k|M|G|T|Ki|Mi|Gi|Ti)?", str(value).strip())
    return int(float(m.group(1)) * _UNITS[m.group(2) or ""]) if m else None


def _declared(subject) -> tuple[tuple, int, str] | None:
    """(path, bytes, as written) of the memory one replica needs, from the workload's or a pod template's metadata."""
    places = [(("metadata", "annotations"), subject.data)] + \
        [(path[:-1] + ("metadata", "annotations"), dig(subject.data, *path[:-1])) for path, _ in subject.pods if path]
    for at, holder in places:
        annotations = dig(holder, "metadata", "annotations") if isinstance(holder, dict) else None
        if not isinstance(annotations, dict):
            continue
        if ANNOTATION in annotations and (n := _bytes(annotations[ANNOTATION])):
            return at + (ANNOTATION,), n, str(annotations[ANNOTATION])
        if KAI in annotations and (n := _bytes(f"{annotations[KAI]}Mi")):
            return at + (KAI,), n, f"{annotations[KAI]} MiB"
    return None


def _slice(pool) -> tuple[int, str] | None:
    """(bytes, how) of one slice of a shared pool's GPU, as sold (decimal GB)."""
    s = pool.sharing
    gpu = catalog.gpu(pool.gpu_id) if pool.gpu_id else None
    if s.mode in ("time-slicing", "mps") and s.replicas and gpu and gpu.get("memoryGB"):
        return gpu["memoryGB"] * 10**9 // s.replicas, f"{gpu['memoryGB']} GB {pool.gpu_id} / {s.replicas} replicas"
    return None


def check(subject, ctx=None):
    placed = placed_pool(subject, ctx)
    if placed is None:
        return
    declared = _declared(subject)
    piece = _slice(placed.pool)
    if declared is None or piece is None:
        return
    path, need, written = declared
    size, how = piece
    if need > size:
        yield Hit(path, f"{subject.label} needs {written} of GPU memory, but a slice of pool {placed.pool.name} has "
                  f"{size / 10**9:.1f} GB ({how})")


RULE = Rule(
    id="shared-slice-too-small",
    severity="warning",
    summary="A workload that needs more GPU memory than one slice of its shared pool has.",
    fix="Lower the pool's replicas (fewer, larger slices), place the workload on a pool with a larger GPU or "
    "without sharing, or correct the workload's gengpu.dev/gpu-memory annotation.",
    explanation="Time-slicing gives every replica the whole GPU memory and no isolation: when the pool's slices "
    "fill, workloads that each use more than memory/replicas fail with CUDA out-of-memory errors, at random and "
    "long after the rollout. MPS caps each client's pinned memory at memory/replicas, so such a workload fails at "
    "once. Workloads state what they need with gengpu.dev/gpu-memory (a Kubernetes quantity, e.g. 12Gi) or the KAI "
    "Scheduler's gpu-memory annotation (MiB), on the workload or its pod template.",
    source="NVIDIA GPU Operator docs 'Time-Slicing GPUs in Kubernetes' (no memory isolation); NVIDIA/k8s-device-plugin "
    "MPS (per-client pinned memory limit); NVIDIA/KAI-Scheduler docs (gpu-memory annotation)",
    check=check,
    applies_to=WORKLOAD,
)
