from gengpu import catalog
from gengpu.checking.rules.base import Hit, Rule, pool_path


def check(profile, ctx=None):
    for pool in profile.node_pools:
        if pool.sharing.mode != "mig":
            continue
        if len(pool.gpus) > 1:
            yield Hit(pool_path(pool, "gpu"), f"nodePools[{pool.index}].sharing.mode is mig, but the pool lists "
                      f"{len(pool.gpus)} GPU models; a MIG layout is for one model")
        elif pool.gpu_id and not catalog.gpus()[pool.gpu_id].get("mig"):
            yield Hit(pool_path(pool, "sharing", "mode"),
                      f"nodePools[{pool.index}].sharing.mode is mig, but {pool.gpu_id} does not support MIG")


RULE = Rule(
    id="mig-requires-capable-gpu",
    severity="error",
    summary="MIG is only possible on MIG-capable GPUs.",
    fix="Use time-slicing or mps on this GPU, or move the pool to a MIG-capable GPU (A30, A100, H100, H200, "
    "GH200, B200, GB200, RTX PRO 6000).",
    explanation="MIG exists from Ampere data-center GPUs on (A30, A100, H100, H200, B200, ...). On T4, V100, A10G, "
    "L4 or L40S mig-manager cannot enable MIG mode and the node's nvidia.com/mig.config.state ends in 'failed'.",
    source="NVIDIA MIG User Guide, Supported GPUs",
    check=check,
    suppressible=False,
)
