from gengpu.checking.rules.base import Hit, Rule, pool_path

# Provisioners that add nodes as long as pods are pending, until a limit of the pool stops them.
AUTOSCALED = {("eks", "karpenter"), ("aks", "node-auto-provisioning")}


def check(profile, ctx=None):
    for pool in profile.node_pools:
        if (profile.platform, pool.provisioner) not in AUTOSCALED:
            continue
        if not any(pool.limits.get(k) is not None for k in ("gpus", "nodes", "cpu")):
            yield Hit(pool_path(pool, "provisioner"), f"nodePools[{pool.index}] ({pool.name}) has no limits: "
                      f"{pool.provisioner} adds GPU nodes for as long as pods are pending, so its spend has no "
                      "upper bound")


RULE = Rule(
    id="pool-unbounded",
    severity="warning",
    summary="An autoscaled GPU pool without an upper bound: its spend has no ceiling.",
    fix="Set limits.gpus (or limits.nodes, or limits.cpu) on the pool; `gengpu plan` shows what the limit costs "
    "per month.",
    explanation="A Karpenter NodePool without spec.limits launches a node for every pod it cannot place. One "
    "runaway Job, or a Deployment scaled by mistake, then buys GPU nodes until the cloud quota stops it: at "
    "$55/hour for a p5.48xlarge, a weekend costs more than a month of the pool's planned use. The limit is also "
    "what `gengpu plan` and `gengpu diff` price.",
    source="Karpenter docs, NodePools 'spec.limits'; AKS node auto-provisioning NodePool limits",
    check=check,
)
