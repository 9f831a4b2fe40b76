from gengpu import catalog
from gengpu.checking.rules.base import Hit, Rule, pool_path


def check(profile, ctx=None):
    reasons = catalog.software()["draDriver"]["unsupportedProvisioners"]
    for pool in profile.dra_pools:
        reason = reasons.get(pool.provisioner)
        if reason:
            yield Hit(pool_path(pool, "provisioner"), f"nodePools[{pool.index}] uses DRA with provisioner "
                      f"{pool.provisioner}: {' '.join(reason.split())}")


RULE = Rule(
    id="dra-provisioner-unsupported",
    severity="error",
    summary="A DRA pool whose provisioner does not launch nodes for pods with ResourceClaims.",
    fix="Use provisioner: managed for DRA pools (a node pool or node group scaled by the cluster autoscaler), or "
    "allocation: device-plugin to keep this provisioner.",
    explanation="An autoscaler must simulate a pending pod's claims to pick a node for it. Karpenter v1.14 refuses "
    "pods with ResourceClaims by default, and GKE and AKS node auto-provisioning do not provision for them: the "
    "workloads stay Pending while the pool has no node. A managed node pool scaled by the cluster autoscaler works.",
    source="kubernetes-sigs/karpenter v1.14.1 pkg/operator/options/options.go (IgnoreDRARequests, default true); "
    "GKE docs 'Prepare GKE infrastructure for DRA workloads'",
    check=check,
)
