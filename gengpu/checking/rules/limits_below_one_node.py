from gengpu.checking.rules.base import Hit, Rule, pool_path


def check(profile, ctx=None):
    for pool in profile.node_pools:
        gpus = pool.limits.get("gpus")
        if gpus is not None and pool.gpus_per_node and gpus < pool.gpus_per_node:
            yield Hit(pool_path(pool, "limits", "gpus"), f"nodePools[{pool.index}].limits.gpus is {gpus}, less than "
                      f"one node's {pool.gpus_per_node} GPUs: the provisioner can never add a node")
        if pool.limits.get("nodes") == 0:
            yield Hit(pool_path(pool, "limits", "nodes"), f"nodePools[{pool.index}].limits.nodes is 0: the pool can "
                      "never have a node")


RULE = Rule(
    id="limits-below-one-node",
    severity="error",
    summary="The pool's limits leave no room for a single node.",
    fix="Raise limits.gpus to at least gpusPerNode (and limits.nodes above 0).",
    explanation="Karpenter and node auto-provisioning refuse to launch a node that would exceed the pool's limits; "
    "a limit below one node's GPUs keeps the pool empty while GPU pods stay pending.",
    source="Karpenter NodePool limits; pain point KP-03",
    check=check,
)
