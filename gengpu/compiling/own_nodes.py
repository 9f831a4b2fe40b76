"""Nodes a team brings (platform kubernetes): gengpu creates none, so it writes what its provisioners would have
set on them, as a script of kubectl label and taint commands per pool."""

from __future__ import annotations

import shlex

from gengpu.compiling import nodes
from gengpu.model import NodePool, Profile


def label_script(profile: Profile, pool: NodePool) -> str:
    """Nodes you bring (platform kubernetes): the labels and taints gengpu's provisioners would have put on the
    pool's nodes, set with kubectl on the nodes the pool's nodeSelector selects (or the nodes named as arguments)."""
    if pool.node_selector:
        target = ["-l", ",".join(f"{k}={v}" for k, v in pool.node_selector.items())]
        which = "the nodes its nodeSelector selects"
    else:
        target = []
        which = "the nodes named as arguments (the pool has no nodeSelector)"
    q = lambda words: " ".join(shlex.quote(w) for w in words)  # noqa: E731
    lines = ["#!/usr/bin/env bash",
             f"# Labels and taints {which} as gengpu pool '{pool.name}':",
             "# its device-plugin (and MIG) config and its placement select them by these labels. gengpu creates no"
             if not (profile.gpucluster or pool.dra) else
             "# its placement and NVIDIA's DRA kubelet plugin select them by these labels. gengpu creates no",
             "# node on this platform: run it for every node the pool gains (--overwrite: running it again changes",
             "# nothing).",
             "set -euo pipefail"]
    if not target:
        lines.append('[ "$#" -gt 0 ] || { echo "usage: $0 NODE..." >&2; exit 2; }')
    nodes_arg = q(target) if target else '"$@"'
    lines.append(f"kubectl label nodes --overwrite {nodes_arg} "
                 + q(f"{k}={v}" for k, v in nodes.node_labels(profile, pool).items()))
    for taint in pool.taints:
        spec = f"{taint.key}={taint.value}:{taint.effect}" if taint.value is not None else f"{taint.key}:{taint.effect}"
        lines.append(f"kubectl taint nodes --overwrite {nodes_arg} {shlex.quote(spec)}")
    return "\n".join(lines) + "\n"
