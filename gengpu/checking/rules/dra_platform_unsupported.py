from gengpu import catalog
from gengpu.checking.rules.base import Hit, Rule, pool_path


def check(profile, ctx=None):
    reason = catalog.software()["draDriver"]["unsupportedPlatforms"].get(profile.platform)
    if not reason:
        return
    for pool in profile.dra_pools:
        yield Hit(pool_path(pool, "allocation"), f"nodePools[{pool.index}] uses DRA on {profile.platform}: {reason}")


RULE = Rule(
    id="dra-platform-unsupported",
    severity="error",
    summary="A DRA pool on a platform where NVIDIA's DRA driver cannot run.",
    fix="Use allocation: device-plugin on this platform, or move the pool to GKE Standard, EKS or AKS.",
    explanation="The DRA driver's kubelet plugin is a privileged DaemonSet that must run on the GPU nodes. Where the "
    "platform does not allow it (GKE Autopilot), the claims are never allocated and pods stay Pending.",
    source="GKE docs 'Prepare GKE infrastructure for DRA workloads' (limitations)",
    check=check,
)
