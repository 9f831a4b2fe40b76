from gengpu.checking.rules._live import at_item
from gengpu.checking.rules.base import LIVE_NODE, Rule


def check(node, cluster):
    if node.pool is None:
        why = "; ".join(node.misfits) or "nothing on it names a pool"
        yield at_item(node.item, f"node {node.name} has GPUs but belongs to no pool of profile "
                      f"{cluster.profile.name}: {why}", "metadata", "name")


RULE = Rule(
    id="node-unclaimed",
    severity="warning",
    summary="A GPU node that no pool of the profile claims, with why each pool did not.",
    fix="Give the pool a nodeSelector with labels its nodes carry (node groups gengpu does not create), add a pool "
    "for the node's GPUs to the profile, check with --pool NAME, or remove the node.",
    explanation="gengpu maps a node to its pool by gengpu's pool label, the provisioner's or cloud's node pool "
    "label, the pool's nodeSelector, and else by its GPUs (GPU Feature Discovery's product and count, a cloud's "
    "accelerator or instance type label) when exactly one pool fits. A GPU node outside every pool gets none of "
    "the profile's sharing or MIG config and escapes the pools' limits and costs.",
    source="gengpu node pools (gengpu.dev/pool); Karpenter, AKS, GKE and EKS node pool labels; GPU Feature "
    "Discovery (nvidia.com/gpu.product, nvidia.com/gpu.count)",
    check=check,
    applies_to=LIVE_NODE,
)
