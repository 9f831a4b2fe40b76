from gengpu import catalog
from gengpu.checking.rules.base import Hit, Rule, gpu_path


def check(profile, ctx=None):
    if catalog.platforms()[profile.platform].get("anyGpu"):
        return  # nodes you bring: any GPU the catalog knows
    offered = catalog.platform_gpus(profile.platform)
    for pool in profile.node_pools:
        for i, gpu_id in enumerate(pool.gpu_ids):
            if gpu_id and gpu_id not in offered:
                yield Hit(gpu_path(pool, i), f"nodePools[{pool.index}].gpu {gpu_id} is not offered on "
                          f"{profile.platform} (it offers {', '.join(sorted(offered))})")


RULE = Rule(
    id="gpu-not-offered-on-platform",
    severity="error",
    summary="The platform has no instance type with this GPU.",
    fix="Pick a GPU the platform offers (`gengpu catalog clouds`), or move the pool to a platform that has it.",
    explanation="Each cloud sells a different set of NVIDIA GPUs: A10G only on AWS, L40S on AWS, A10 on Azure, "
    "P100 on GKE. A pool for a GPU the platform does not sell never gets a node.",
    source="gengpu/data/clouds.yaml (Karpenter instance-type reference, GKE GPU machine types, Azure GPU VM sizes)",
    check=check,
)
