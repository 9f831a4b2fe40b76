from gengpu import catalog
from gengpu.checking.rules.base import Hit, Rule, pool_path


def check(profile, ctx=None):
    if profile.platform == "gke-autopilot":
        return
    for pool in profile.node_pools:
        if pool.gpus_per_node is None:
            continue
        for i, name in enumerate(pool.instance_types):
            spec = catalog.instance_type(profile.platform, name)
            if spec is None:
                continue
            counts = spec.get("counts") or [spec["gpus"]]
            if pool.gpus_per_node not in counts:
                yield Hit(pool_path(pool, "gpusPerNode"),
                          f"nodePools[{pool.index}].gpusPerNode is {pool.gpus_per_node}, but {name} has "
                          f"{' or '.join(map(str, counts))} GPU(s)")


RULE = Rule(
    id="gpus-per-node-mismatch",
    severity="error",
    summary="gpusPerNode does not match the instance types' GPU count.",
    fix="Set gpusPerNode to the instance type's GPU count, or leave it out when the pool mixes sizes.",
    explanation="The GPU count per node sizes the pool's capacity (GPUs x replicas for shared pools) and the "
    "provisioner's requirements. A wrong count makes the scheduler's and the autoscaler's sums wrong.",
    source="gengpu/data/clouds.yaml",
    check=check,
)
