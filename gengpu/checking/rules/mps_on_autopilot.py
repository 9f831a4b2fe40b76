from gengpu.checking.rules.base import Hit, Rule, pool_path


def check(profile, ctx=None):
    if profile.platform != "gke-autopilot":
        return
    for pool in profile.node_pools:
        if pool.sharing.mode == "mps":
            yield Hit(pool_path(pool, "sharing", "mode"),
                      f"nodePools[{pool.index}].sharing.mode is mps, which GKE offers on Standard clusters only")


RULE = Rule(
    id="mps-on-autopilot",
    severity="error",
    summary="GKE Autopilot has no MPS sharing.",
    fix="Use time-slicing on Autopilot, or a GKE Standard cluster for MPS.",
    explanation="GKE lists NVIDIA MPS as 'Available on: Standard'; Autopilot rejects pods that select the MPS "
    "sharing strategy.",
    source="GKE 'About GPUs in GKE' (GPU sharing strategies)",
    check=check,
)
