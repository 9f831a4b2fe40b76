from gengpu import catalog
from gengpu.checking.rules.base import Hit, Rule, pool_path


def check(profile, ctx=None):
    if profile.platform != "gke-autopilot":
        return
    allowed = catalog.clouds()["gke"]["autopilot"]["allowedCounts"]
    for pool in profile.node_pools:
        for gpu_id in pool.gpu_ids:
            accelerator = catalog.gke_accelerator(gpu_id) if gpu_id else None
            if accelerator not in allowed:
                yield Hit(pool_path(pool, "gpu"), f"nodePools[{pool.index}].gpu {gpu_id or pool.gpus[0]} is not "
                          f"available on GKE Autopilot (it offers {', '.join(allowed)})")
            elif pool.gpus_per_node is not None and pool.gpus_per_node not in allowed[accelerator]:
                yield Hit(pool_path(pool, "gpusPerNode"),
                          f"nodePools[{pool.index}].gpusPerNode is {pool.gpus_per_node}; Autopilot allows "
                          f"{', '.join(map(str, allowed[accelerator]))} x {accelerator}")


RULE = Rule(
    id="autopilot-gpu-not-allowed",
    severity="error",
    summary="GKE Autopilot does not offer this GPU, or not in this count.",
    fix="Use an Autopilot accelerator and one of its allowed counts (`gengpu catalog clouds gke-autopilot`).",
    explanation="Autopilot rejects a pod whose nvidia.com/gpu limit is not an allowed count for its accelerator "
    "(T4: 1, 2, 4; L4: 1, 2, 4, 8; A100 40GB: 1, 2, 4, 8, 16; B200 and H200: 8 ...).",
    source="GKE 'Deploy GPU workloads in Autopilot' (2026-04-10)",
    check=check,
)
