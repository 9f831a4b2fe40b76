from gengpu import catalog
from gengpu.checking.rules._limits import replicas_limit

_MAX = catalog.clouds()["gke"]["autopilot"]["maxSharedClients"]


def _limit(profile, pool):
    if profile.platform != "gke-autopilot" or pool.sharing.mode != "time-slicing":
        return None
    return _MAX, "GKE shares a GPU between"


RULE = replicas_limit(
    id="gke-shared-clients-over-limit",
    severity="error",
    summary="More GKE time-sharing clients than GKE allows per GPU.",
    fix=f"Lower replicas to {_MAX} or fewer.",
    explanation="GKE's own device plugin implements time-sharing with cloud.google.com/gke-max-shared-clients-per-gpu, "
    f"between 2 and {_MAX}.",
    source="GKE 'Share GPUs with multiple workloads using GPU time-sharing'",
    limit=_limit,
)
