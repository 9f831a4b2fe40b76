from gengpu import catalog
from gengpu.checking.rules.base import Hit, Rule, pool_path


def check(profile, ctx=None):
    allowed = set(catalog.platforms()[profile.platform]["provisioners"])
    for pool in profile.node_pools:
        if pool.provisioner not in allowed:
            yield Hit(pool_path(pool, "provisioner"), f"nodePools[{pool.index}].provisioner is {pool.provisioner}, "
                      f"which {profile.platform} does not have (use {' or '.join(sorted(allowed))})")


RULE = Rule(
    id="provisioner-platform-mismatch",
    severity="error",
    summary="The pool's provisioner does not exist on the platform.",
    fix="EKS: karpenter or managed; GKE Standard and AKS: node-auto-provisioning or managed; GKE Autopilot: autopilot.",
    explanation="Karpenter NodePools run on EKS (and as AKS node auto-provisioning), node auto-provisioning is GKE's "
    "and AKS's, and Autopilot provisions every node itself. A provisioner the cluster lacks never creates nodes.",
    source="Karpenter, AKS node auto-provisioning and GKE node auto-provisioning documentation",
    check=check,
)
