"""gengpu check: a running cluster against its profile.

profiles -> the cluster's state (snapshot file, stdin or context) -> the profile its nodes belong to -> each node
mapped to its pool -> the live rules -> findings. Read-only towards the cluster.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gengpu.findings import Finding, sort_findings
from gengpu.pipeline.profiles import DEFAULT_OVERLAYS, load_profiles, profile_files
from gengpu.pipeline.state import cluster_profile, load_snapshot


@dataclass
class CheckResult:
    findings: list[Finding]
    profile: str | None = None  # the profile the snapshot was checked against
    nodes: int = 0
    source: str = ""

    def summary(self) -> str:
        against = f" against {self.profile}" if self.profile else ""
        return f"checked {self.nodes} node(s) of {self.source}{against}"



def check(paths: list[str], snapshot: str | None, context: str | None, out_dir: Path = Path(DEFAULT_OVERLAYS),
          progress: bool = True, pool: str | None = None) -> CheckResult:
    """Load the profiles and the cluster's state (a snapshot file, standard input, or a kubeconfig context), pick
    the profile the cluster's nodes belong to, and run the live rules."""
    from gengpu.checking import live
    from gengpu.live import pools

    loaded = load_profiles(profile_files(paths), out_dir)
    findings = [f for f in loaded.findings if f.is_error]  # why a profile cannot be checked against; the rest is validate's
    profiles = [(c.profile, c.source.docs[0]) for c in loaded.profiles if c.profile is not None]
    snap, more = load_snapshot(snapshot, context, profiles, progress)
    findings += more
    if snap is None:
        return CheckResult(sort_findings(findings), source=snapshot or "")
    from gengpu.checking.rules import finding

    findings += [finding("snapshot-incomplete", snap.source, 1, 1, f"not read: {note}; the checks that need it are "
                         "left out") for note in snap.notes]
    if not profiles:
        return CheckResult(sort_findings(findings), nodes=len(snap.nodes), source=snap.source)
    profile, doc, more = cluster_profile(profiles, snap, pool)
    findings += more  # (no node at all: snapshot-incomplete says so)
    if profile is None:
        return CheckResult(sort_findings(findings), nodes=len(snap.nodes), source=snap.source)
    cluster = pools.Cluster(profile, doc, snap, pools.map_nodes(profile, snap, pool))
    # the profile says nothing runs a device plugin, the cluster's nodes register GPUs: the cluster runs one of its
    # own (a Helm chart, the node image's), and the profile's no-device-plugin is not said against it
    registering = {n.pool.index for n in cluster.nodes if n.pool is not None and any(
        (c or a) for c, a in (*n.gpu_resources().values(), *n.vm_resources().values()))}
    findings = [f for f in findings if not (f.rule == "no-device-plugin" and any(
        f"nodePools[{i}]" in f.message for i in registering))]
    findings += live.check_cluster(cluster)
    return CheckResult(sort_findings(findings), profile.source or profile.name, len(snap.nodes), snap.source)

