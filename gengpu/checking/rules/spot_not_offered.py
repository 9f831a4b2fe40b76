from gengpu import catalog
from gengpu.checking.rules.base import Hit, Rule, pool_path


def check(profile, ctx=None):
    platform = catalog.platforms()[profile.platform]
    for pool in profile.node_pools:
        if "spot" in pool.capacity_types and not platform["spot"]:
            yield Hit(pool_path(pool, "capacityTypes"),
                      f"nodePools[{pool.index}].capacityTypes has spot, which {platform['title']} does not offer")
        if "spot" in pool.capacity_types:
            continue
        for i, name in enumerate(pool.instance_types):
            spec = catalog.instance_type(profile.platform, name) or {}
            if spec.get("spotOnly"):
                yield Hit(pool_path(pool, "instanceTypes", i),
                          f"nodePools[{pool.index}].instanceTypes[{i}] {name} is offered only as Spot (or "
                          "Flex-start), but the pool asks for on-demand capacity only")


RULE = Rule(
    id="spot-not-offered",
    severity="error",
    summary="The capacity type is not offered for this platform or machine type.",
    fix="Add spot to capacityTypes for Spot-only machine types (A3 High 1g/2g/4g), or pick another machine type.",
    explanation="GKE sells the a3-highgpu-1g, -2g and -4g shapes only as Spot or Flex-start VMs: an on-demand pool "
    "of them never scales up.",
    source="Google Cloud 'GPU machine types' (AI Hypercomputer, 2026-04-06)",
    check=check,
)
