from gengpu import catalog
from gengpu.checking.rules.base import Hit, Rule, pool_path


def check(profile, ctx=None):
    for pool in profile.node_pools:
        if pool.sharing.mode != "mps" or pool.sharing.replicas is None:
            continue
        known = [g for g in pool.gpu_ids if g]
        if not known:
            continue
        gpu_id = min(known, key=lambda g: catalog.gpus()[g]["mpsMaxClients"])
        limit = catalog.gpus()[gpu_id]["mpsMaxClients"]
        if pool.sharing.replicas > limit:
            yield Hit(pool_path(pool, "sharing", "replicas"),
                      f"nodePools[{pool.index}].sharing.replicas is {pool.sharing.replicas}; MPS on "
                      f"{gpu_id} allows at most {limit} clients per GPU")


RULE = Rule(
    id="mps-replicas-over-limit",
    severity="error",
    summary="MPS replicas exceed the GPU's MPS client limit.",
    fix="Lower replicas to the limit (48 from compute capability 7.5, 16 below), or use time-slicing.",
    explanation="The MPS control daemon refuses more replicas than the GPU's client limit ('maximum allowed replicas "
    "exceeded') and the pool gets no shared GPUs.",
    source="NVIDIA/k8s-device-plugin cmd/mps-control-daemon/mps/device.go (assertReplicas, maxClients)",
    check=check,
)
