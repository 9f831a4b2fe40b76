from gengpu.checking.rules._platform_feature import platform_feature
from gengpu.checking.rules.base import pool_path


def _uses(profile):
    for pool in profile.node_pools:
        if pool.sharing.mode == "mps":
            yield pool_path(pool, "sharing", "mode"), f"nodePools[{pool.index}].sharing.mode is mps"


RULE = platform_feature(
    id="mps-on-autopilot",
    feature="mps",
    uses=_uses,
    summary="GKE Autopilot has no MPS sharing.",
    fix="Use time-slicing on Autopilot, or a GKE Standard cluster for MPS.",
    explanation="GKE lists NVIDIA MPS as 'Available on: Standard'; Autopilot rejects pods that select the MPS "
    "sharing strategy.",
    source="GKE 'About GPUs in GKE' (GPU sharing strategies)",
)
