from gengpu.checking.rules._live import at_item
from gengpu.checking.rules.base import LIVE_NODE, Rule


def check(node, cluster):
    if node.pool is None:
        names = ", ".join(p.name for p in cluster.profile.node_pools)
        yield at_item(node.item, f"node {node.name} has GPUs but belongs to no pool of profile "
                      f"{cluster.profile.name} ({names}): no gengpu.dev/pool label, and no node pool label of "
                      "those pools", "metadata", "name")


RULE = Rule(
    id="node-unclaimed",
    severity="warning",
    summary="A GPU node that no pool of the profile claims.",
    fix="Give the node's pool the gengpu.dev/pool label (gengpu's node pools set it; a node group created by hand "
    "needs it too), add the pool to the profile, or remove the node.",
    explanation="gengpu maps a node to its pool by the labels its pools write (gengpu.dev/pool, "
    "karpenter.sh/nodepool, the clouds' node pool labels). A GPU node outside every pool gets no sharing or MIG "
    "config of the profile's (the device plugin's default: whole GPUs) and escapes the pools' limits and costs.",
    source="gengpu node pools (gengpu.dev/pool); Karpenter, AKS, GKE and EKS node pool labels",
    check=check,
    applies_to=LIVE_NODE,
)
