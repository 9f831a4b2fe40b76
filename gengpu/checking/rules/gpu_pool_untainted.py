from gengpu.checking.rules.base import Hit, Rule, pool_path


def check(profile, ctx=None):
    if profile.platform == "gke-autopilot":
        return  # Autopilot taints GPU nodes itself
    for pool in profile.node_pools:
        if not pool.taints:
            yield Hit(pool_path(pool, "taints"), f"nodePools[{pool.index}] has no taint: any pod may land on its GPU "
                                                 "nodes and keep them from scaling down")


RULE = Rule(
    id="gpu-pool-untainted",
    severity="warning",
    summary="A GPU pool without a taint takes ordinary pods.",
    fix="Taint the pool (nvidia.com/gpu:NoSchedule is the default); GPU pods get the toleration from the pool's "
    "placement component.",
    explanation="Without a taint the scheduler places CPU-only pods on expensive GPU nodes, which then cannot be "
    "consolidated and may leave GPU pods pending.",
    source="Karpenter and GKE GPU node pool guidance (pain point KP-04)",
    check=check,
)
