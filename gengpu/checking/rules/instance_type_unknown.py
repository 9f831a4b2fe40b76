from gengpu import catalog
from gengpu.checking.rules.base import Hit, Rule, pool_path


def check(profile, ctx=None):
    if profile.platform == "gke-autopilot":
        return  # Autopilot picks machine types itself
    for pool in profile.node_pools:
        for i, name in enumerate(pool.instance_types):
            if catalog.instance_type(profile.platform, name) is None:
                yield Hit(pool_path(pool, "instanceTypes", i),
                          f"nodePools[{pool.index}].instanceTypes[{i}] '{name}' is not a GPU instance type gengpu "
                          f"knows on {profile.platform}; its GPU model and count cannot be checked")


RULE = Rule(
    id="instance-type-unknown",
    severity="warning",
    summary="An instance type, VM size or machine type is not in gengpu's cloud table.",
    fix="Check the spelling (EKS: family or family.size such as g5.xlarge; AKS: Standard_NC4as_T4_v3; GKE: "
    "a2-highgpu-1g), or suppress the rule for a type newer than the table.",
    explanation="gengpu checks that every instance type carries the pool's GPU model and count. A misspelt type "
    "matches nothing in Karpenter or the cloud API, so the pool stays empty; a new type may simply be missing "
    "from the table, hence a warning.",
    source="gengpu/data/clouds.yaml",
    check=check,
)
