from gengpu.checking.rules._live import at_item, at_pool
from gengpu.checking.rules.base import LIVE_CLUSTER, Rule

# what each part of a node's status is read for; allocatable is stood in for by capacity (allocatable <= capacity)
NODE_PARTS = ((("conditions",), "whether it is Ready"), (("allocatable", "capacity"), "the GPUs it offers"))


def check(cluster, ctx=None):
    for node in cluster.pool_nodes():
        status = node.item.get("status")
        missing = [(parts, why) for parts, why in NODE_PARTS
                   if not isinstance(status, dict) or not any(p in status for p in parts)]
        if missing:
            where = "no status" if not isinstance(status, dict) else \
                "no status." + " or status.".join(" or status.".join(parts) for parts, _ in missing)
            yield at_pool(node, f"has {where} in the snapshot: {' and '.join(why for _, why in missing)} not judged")
    for item in [*cluster.snapshot.clusterpolicies, *cluster.snapshot.nvidiadrivers]:
        if item.text("status", "state") is None:
            yield at_item(item, f"{item.text('kind')} {item.name} has no status.state in the snapshot: whether the "
                          "operator is ready is not judged")


RULE = Rule(
    id="snapshot-object-partial",
    severity="info",
    summary="An object of the snapshot lacks the part a check reads (a node without status, a ClusterPolicy without "
    "status): that check is left out for it, not failed.",
    fix="Capture whole objects: `gengpu snapshot`, or `kubectl get nodes,clusterpolicies,... -o yaml` without "
    "trimming. On a live cluster, a ClusterPolicy without status means the operator has not reconciled it yet.",
    explanation="Snapshots pasted from issues or trimmed by hand often keep only labels or only status. gengpu "
    "judges what is there and says what it could not judge, rather than reading a missing field as a failure: "
    "a node without conditions is not called NotReady, a ClusterPolicy without status is not called notReady. A "
    "node's capacity stands in for its allocatable where only capacity was pasted.",
    source="gengpu",
    check=check,
    applies_to=LIVE_CLUSTER,
)
