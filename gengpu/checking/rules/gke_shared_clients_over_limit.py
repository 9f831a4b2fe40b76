from gengpu import catalog
from gengpu.checking.rules.base import Hit, Rule, pool_path


def check(profile, ctx=None):
    if profile.platform != "gke-autopilot":
        return
    limit = catalog.clouds()["gke"]["autopilot"]["maxSharedClients"]
    for pool in profile.node_pools:
        if pool.sharing.mode == "time-slicing" and pool.sharing.replicas and pool.sharing.replicas > limit:
            yield Hit(pool_path(pool, "sharing", "replicas"),
                      f"nodePools[{pool.index}].sharing.replicas is {pool.sharing.replicas}; GKE shares a GPU "
                      f"between at most {limit} clients")


RULE = Rule(
    id="gke-shared-clients-over-limit",
    severity="error",
    summary="More GKE time-sharing clients than GKE allows per GPU.",
    fix="Lower replicas to 48 or fewer.",
    explanation="GKE's own device plugin implements time-sharing with cloud.google.com/gke-max-shared-clients-per-gpu, "
    "between 2 and 48.",
    source="GKE 'Share GPUs with multiple workloads using GPU time-sharing'",
    check=check,
)
