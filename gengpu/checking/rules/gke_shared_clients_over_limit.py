from gengpu import catalog
from gengpu.checking.rules._limits import replicas_limit

_MAX = catalog.clouds()["gke"]["gpuSharing"]["maxSharedClients"]


def _limit(profile, pool):
    """GKE's own sharing (its device plugin) on Standard or Autopilot: not under the GPU Operator or DRA. GKE
    time-shares MIG partitions with the same setting, each partition a GPU to it."""
    from gengpu.compiling.pool_scripts import gke_gpu_sharing

    if profile.platform not in ("gke", "gke-autopilot") or pool.sharing.mode not in ("time-slicing", "mps", "mig"):
        return None
    if profile.platform == "gke" and not gke_gpu_sharing(profile, pool):
        return None  # the GPU Operator's or the DRA driver's sharing: their own limits apply
    return _MAX, ("GKE time-shares a MIG partition between" if pool.sharing.mode == "mig" else
                  "GKE shares a GPU between")


RULE = replicas_limit(
    id="gke-shared-clients-over-limit",
    severity="error",
    summary="More GKE time-sharing or MPS clients than GKE allows per GPU.",
    fix=f"Lower replicas (sharing.replicas, or sharing.mig.replicas for time-shared MIG partitions) to {_MAX} or "
    "fewer.",
    explanation="GKE's own device plugin implements time-sharing and MPS with "
    f"cloud.google.com/gke-max-shared-clients-per-gpu (a node pool's or ComputeClass's maxSharedClientsPerGPU), between "
    f"2 and {_MAX}, on Standard and Autopilot alike, for whole GPUs and for time-shared MIG partitions "
    "(gpuPartitionSize with TIME_SHARING); GKE refuses a node pool or ComputeClass above it.",
    source="GKE 'Share GPUs with multiple workloads using GPU time-sharing' and ComputeClass reference (gpuSharing: "
    "maxSharedClientsPerGPU 2-48); gengpu/data/clouds.yaml gke.gpuSharing",
    limit=_limit,
)
