from gengpu.checking.rules.base import USAGE_POOL, Hit, Rule


def check(rec, ctx):
    if rec.verdict == "none" and rec.evidence.get("nodesGone"):
        yield Hit(("spec", "nodePools", rec.usage.pool.index), f"pool {rec.pool}: no recommendation, {rec.reason}")


RULE = Rule(
    id="usage-nodes-gone",
    severity="warning",
    summary="Nodes with a pool's GPU model reported in the window but are gone from the cluster: the pool is not "
    "sized on what is left.",
    fix="Let Prometheus keep the nodes' pool label: scrape kube-state-metrics with "
    "--metric-labels-allowlist=nodes=[karpenter.sh/nodepool] (or the label your pools use), or Karpenter's own "
    "metrics (karpenter_nodes_allocatable names the nodepool); rightsize then puts nodes that left in their pool. "
    "Else capture the snapshot (or run with --context) while the nodes run, or size a window that starts after they "
    "left (--since).",
    explanation="An autoscaler removes GPU nodes when their pods finish (Karpenter consolidates empty nodes within "
    "minutes). Their series stay in Prometheus, but the cluster no longer says which pool they were. rightsize looks "
    "for their pool label over the whole window in kube-state-metrics' kube_node_labels, Karpenter's node metrics and "
    "node labels copied onto the exporter's series; a node none of them places (or whose name two nodes of different "
    "pools had) withholds the proposal for every pool of its GPU model: sized on the nodes that are left, a pool "
    "whose nightly jobs needed 36 GiB would be proposed small MIG slices and a limit of one node, and the next run "
    "would not fit.",
    source="gengpu; Karpenter disruption (consolidation of empty nodes) and node metrics (kubernetes-sigs/karpenter "
    "pkg/controllers/metrics/node/controller.go); kube-state-metrics kube_node_labels; dcgm-exporter Hostname label",
    check=check,
    applies_to=USAGE_POOL,
)
