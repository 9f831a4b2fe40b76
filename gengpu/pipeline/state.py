"""A running cluster's state, shared by check and rightsize: read a snapshot file, standard input or a kubeconfig
context, and choose the profile whose pools the cluster's nodes belong to."""

from __future__ import annotations

import sys
from pathlib import Path

from gengpu.findings import Finding, UsageError, display
from gengpu.loading.reading import read_bytes


def load_snapshot(snapshot: str | None, context: str | None, profiles: list, progress: bool):
    """The cluster's state: a snapshot file, standard input (-), or the live cluster of a kubeconfig context."""
    from gengpu.live import snapshot as snapshots

    findings: list[Finding] = []
    if snapshot is not None:
        shown = "<stdin>" if snapshot == "-" else display(Path(snapshot))
        if snapshot == "-":
            from gengpu.loading import reading

            limit = reading.snapshot_max_bytes()
            raw = sys.stdin.buffer.read(limit + 1)
            errors = [reading.too_large(shown, len(raw), limit)] if len(raw) > limit else []
        else:
            if not Path(snapshot).exists():
                raise UsageError(f"{shown}: no such file")
            from gengpu.loading import reading

            raw, errors = read_bytes(Path(snapshot), shown, reading.snapshot_max_bytes())
        snap, more = snapshots.load(raw, shown) if raw is not None and not errors else (None, errors)
        findings += more
    else:
        from gengpu.live import kube

        namespace = profiles[0][0].operator.namespace if profiles else "gpu-operator"
        objects, captured, notes = kube.capture(context, namespace, progress)
        snap = snapshots.from_objects(f"context {context}" if context else "the current context", objects, captured,
                                      notes)
    return snap, findings


def cluster_profile(profiles: list, snap, pool: str | None = None) -> tuple:
    """The profile whose pools claim the snapshot's nodes (None, finding when none does); with pool (--pool), the
    profile that has a pool of that name."""
    from gengpu.checking import live
    from gengpu.live import pools

    ranked = pools.choose(profiles, snap, pool)
    if not ranked:
        known = sorted({p.name for profile, _ in profiles for p in profile.node_pools})
        raise UsageError(f"--pool {pool}: no profile has a pool of that name ({', '.join(known) or 'no pools'})")
    profile, doc, claimed, by_label = ranked[0]
    if claimed == 0:
        if not snap.nodes:
            # the operator's objects alone (a pasted ClusterPolicy): checked against the one profile given
            if len(profiles) > 1:
                raise UsageError(f"{snap.source} holds no node, so which profile it belongs to cannot be told; "
                                 "name the profile (gengpu check PROFILE ...)")
            return profile, doc, []
        why = [f"node {n.name}: {'; '.join(n.misfits)}" for n in pools.map_nodes(profile, snap) if n.misfits] \
            if len(profiles) == 1 else []
        return None, None, [live.mismatch(snap, [p.name for p, _ in profiles], why)]
    if len(ranked) > 1 and ranked[1][2:] == (claimed, by_label):
        raise UsageError(f"{snap.source}: its nodes belong to pools of {profile.name} and {ranked[1][0].name} "
                         "alike; name the profile of this cluster (gengpu check PROFILE ...)")
    return profile, doc, []

