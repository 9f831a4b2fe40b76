from gengpu.checking.rules._platform_feature import platform_feature
from gengpu.checking.rules.base import pool_path


def _uses(profile):
    for pool in profile.dra_pools:
        yield pool_path(pool, "allocation"), f"nodePools[{pool.index}] uses DRA"


RULE = platform_feature(
    id="dra-platform-unsupported",
    feature="dra",
    uses=_uses,
    summary="A DRA pool on a platform where NVIDIA's DRA driver cannot run.",
    fix="Use allocation: device-plugin on this platform, or move the pool to GKE Standard, EKS or AKS.",
    explanation="The DRA driver's kubelet plugin is a privileged DaemonSet that must run on the GPU nodes. Where the "
    "platform does not allow it (GKE Autopilot), the claims are never allocated and pods stay Pending.",
    source="GKE docs 'Prepare GKE infrastructure for DRA workloads' (limitations)",
)
