"""A running cluster against its profile: each node mapped to the pool that promised it (gengpu/live/pools.py),
and the rules of the live targets run over them (LIVE_NODE, one node at a time; LIVE_CLUSTER, the whole snapshot).

Findings point at the promise: the pool in the profile (file and line) for a node of a pool, the snapshot file
for what no profile promised. Their messages name the node.
"""

from __future__ import annotations

from gengpu.checking.targets import LIVE_CLUSTER, LIVE_NODE
from gengpu.findings import Finding
from gengpu.live.pools import Cluster, is_gpu_node
from gengpu.live.snapshot import Item, Snapshot


def check_cluster(cluster: Cluster) -> list[Finding]:
    from gengpu.checking.rules import RULES
    from gengpu.checking.run import rules_for

    findings = []
    suppressed = {s.rule: s for s in cluster.profile.suppressions}
    for rule in rules_for(LIVE_NODE):
        for node in cluster.nodes:
            for hit in rule.check(node, cluster):
                findings.append(_finding(cluster, rule, hit))
    for rule in rules_for(LIVE_CLUSTER):
        for hit in rule.check(cluster, None):
            findings.append(_finding(cluster, rule, hit))
    # a profile's suppressions hold for what the cluster shows too (those limited to some pools: in the profile only)
    return [f for f in findings if not (f.rule in suppressed and RULES[f.rule].suppressible
                                        and suppressed[f.rule].reason and not suppressed[f.rule].pools)]


def _finding(cluster: Cluster, rule, hit) -> Finding:
    doc = hit.doc if hit.doc is not None else cluster.doc
    about = {"subject": hit.subject, "node": hit.node, "pool": hit.pool}
    if isinstance(doc, Item):  # an object of the snapshot: its place in the file, if it came from one
        line, col = doc.position(*hit.path)
        file = doc.doc.file if doc.doc is not None else cluster.snapshot.source
        return Finding(file, line, col, rule.severity, rule.id, hit.message, rule.fix, **about)
    line, col = doc.position(hit.path, key=hit.key)
    return Finding(doc.file, line, col, rule.severity, rule.id, hit.message, rule.fix, **about)


def mismatch(snapshot: Snapshot, names: list[str], why: list[str] = ()) -> Finding:
    """No profile claims a node: said once for the snapshot, with why the first GPU nodes fit no pool."""
    from gengpu.checking.rules import finding

    gpu_nodes = [i.name for i in snapshot.nodes if is_gpu_node(i)]
    reasons = f" ({'; '.join(why[:3])}" + (f"; and {len(why) - 3} more" if len(why) > 3 else "") + ")" if why else ""
    return finding("snapshot-cluster-mismatch", snapshot.source, 1, 1,
                   f"no node of {snapshot.source} belongs to a pool of {', '.join(names) or 'the profiles'} "
                   f"({len(snapshot.nodes)} node(s), {len(gpu_nodes)} with GPUs): is it a snapshot of another "
                   f"cluster?{reasons}")
