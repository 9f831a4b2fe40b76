from gengpu.checking.rules.base import USAGE_POOL, Hit, Rule


def check(rec, ctx):
    if rec.verdict == "none" and rec.evidence.get("nodesGone"):
        yield Hit(("spec", "nodePools", rec.usage.pool.index), f"pool {rec.pool}: no recommendation, {rec.reason}")


RULE = Rule(
    id="usage-nodes-gone",
    severity="warning",
    summary="Nodes with a pool's GPU model reported in the window but are gone from the cluster: the pool is not "
    "sized on what is left.",
    fix="Capture the snapshot (or run with --context) while the nodes run, e.g. during the nightly jobs, or size a "
    "window that starts after they left (--since); kube-state-metrics' node labels in Prometheus do not help here.",
    explanation="An autoscaler removes GPU nodes when their pods finish (Karpenter consolidates empty nodes within "
    "minutes). Their series stay in Prometheus, but the cluster no longer says which pool they were: sized on the "
    "nodes that are left, a pool whose nightly jobs needed 36 GiB would be proposed small MIG slices and a limit of "
    "one node, and the next run would not fit. gengpu proposes nothing for a pool whose GPU model such nodes had.",
    source="gengpu; Karpenter disruption (consolidation of empty nodes); dcgm-exporter Hostname label",
    check=check,
    applies_to=USAGE_POOL,
)
