from gengpu.checking.rules.base import Hit, Rule, pool_path
from gengpu.cluster import gpu_counts


def check(profile, ctx=None):
    for pool in profile.node_pools:
        gpus = pool.limits.get("gpus")
        counts = [pool.gpus_per_node] if pool.gpus_per_node else gpu_counts(profile, pool)
        if gpus is not None and counts and gpus < min(counts):
            smallest = min(counts)
            what = f"one node's {smallest} GPUs" if len(counts) == 1 else \
                f"the smallest node's {smallest} GPUs ({', '.join(map(str, counts))} per node)"
            yield Hit(pool_path(pool, "limits", "gpus"), f"nodePools[{pool.index}].limits.gpus is {gpus}, less than "
                      f"{what}: the provisioner can never add a node")
        if pool.limits.get("nodes") == 0:
            yield Hit(pool_path(pool, "limits", "nodes"), f"nodePools[{pool.index}].limits.nodes is 0: the pool can "
                      "never have a node")


RULE = Rule(
    id="limits-below-one-node",
    severity="error",
    summary="The pool's limits leave no room for a single node.",
    fix="Raise limits.gpus to at least the GPUs of one node (gpusPerNode, or the smallest instance type's), and "
    "limits.nodes above 0.",
    explanation="Karpenter and node auto-provisioning refuse to launch a node that would exceed the pool's limits; "
    "a limit below one node's GPUs keeps the pool empty while GPU pods stay pending. gengpu writes limits.gpus as "
    "GPUs: on a shared or MIG pool the NodePool's limit counts what one GPU advertises (replicas, or MIG devices) "
    "times limits.gpus, so the limit admits the GPUs the profile promises.",
    source="Karpenter NodePool limits (pkg/controllers/nodepool/counter: nodes count as their capacity); pain point "
    "KP-03",
    check=check,
)
