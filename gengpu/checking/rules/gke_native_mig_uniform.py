from gengpu.checking.rules.base import Hit, Rule, pool_path
from gengpu.cluster import mig_layout


def check(profile, ctx=None):
    if profile.platform not in ("gke", "gke-autopilot") or profile.operator.enabled:
        return
    for pool in profile.node_pools:
        per_gpu = pool.sharing.mig is not None and pool.sharing.mig.layouts  # (mig-per-gpu-layouts-invalid's)
        if pool.sharing.mode == "mig" and len(mig_layout(pool)) > 1 and not per_gpu:
            yield Hit(pool_path(pool, "sharing", "mig"),
                      f"nodePools[{pool.index}] asks GKE for MIG with {len(mig_layout(pool))} profiles; GKE's own MIG "
                      "support gives a node pool one partition size", key=True)


RULE = Rule(
    id="gke-native-mig-uniform",
    severity="error",
    summary="GKE's own MIG support takes one partition size per node pool.",
    fix="Use one profile per pool (preset all-<profile>), split the layout over several pools, or enable the GPU "
    "Operator for mixed layouts.",
    explanation="Without the GPU Operator, GKE partitions GPUs itself from the node pool's gpu-partition-size "
    "(cloud.google.com/gke-gpu-partition-size): every GPU of the pool gets the same partitions.",
    source="GKE 'Running multi-instance GPUs' (gpu-partition-size)",
    check=check,
)
