from gengpu import catalog
from gengpu.checking.rules._limits import replicas_limit


def _limit(profile, pool):
    """The smallest MPS client limit among the pool's known GPUs (gpus.yaml mpsMaxClients)."""
    known = [g for g in pool.gpu_ids if g]
    if pool.sharing.mode != "mps" or not known:
        return None
    gpu_id = min(known, key=lambda g: catalog.gpus()[g]["mpsMaxClients"])
    return catalog.gpus()[gpu_id]["mpsMaxClients"], f"MPS on {gpu_id} allows"


_LIMITS = sorted({spec["mpsMaxClients"] for spec in catalog.gpus().values() if "mpsMaxClients" in spec})

RULE = replicas_limit(
    id="mps-replicas-over-limit",
    severity="error",
    summary="MPS replicas exceed the GPU's MPS client limit.",
    fix=f"Lower replicas to the limit ({_LIMITS[-1]} from compute capability 7.5, {_LIMITS[0]} below), or use "
    "time-slicing.",
    explanation="The MPS control daemon refuses more replicas than the GPU's client limit ('maximum allowed replicas "
    "exceeded') and the pool gets no shared GPUs.",
    source="NVIDIA/k8s-device-plugin cmd/mps-control-daemon/mps/device.go (assertReplicas, maxClients)",
    limit=_limit,
)
