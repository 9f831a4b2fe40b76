from gengpu import catalog
from gengpu.checking.rules.base import Hit, Rule, pool_path


def check(profile, ctx=None):
    if profile.platform == "gke-autopilot":
        return
    for pool in profile.node_pools:
        known = {g for g in pool.gpu_ids if g}
        if not known:
            continue
        for i, name in enumerate(pool.instance_types):
            spec = catalog.instance_type(profile.platform, name)
            if spec is None:
                continue
            carries = set(spec.get("attachable") or [spec["gpu"]])
            if not carries & known:
                yield Hit(pool_path(pool, "instanceTypes", i),
                          f"nodePools[{pool.index}].instanceTypes[{i}] {name} carries {' or '.join(sorted(carries))}, "
                          f"not the pool's {', '.join(sorted(known))}")


RULE = Rule(
    id="instance-type-gpu-mismatch",
    severity="error",
    summary="An instance type carries a different GPU than the pool declares.",
    fix="Add the instance type's GPU to the pool's gpu list, or use instance types with the declared GPU.",
    explanation="Sharing limits, MIG profiles and driver minimums are chosen for the declared GPU. A node with "
    "another GPU gets configs that do not fit it: a MIG layout its GPU cannot hold, or MPS limits of another model.",
    source="gengpu/data/clouds.yaml",
    check=check,
)
