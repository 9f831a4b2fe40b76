"""gengpu rightsize: dcgm-exporter's figures turned into a profile change per pool, with its saving.

profiles -> metrics source (Prometheus or a recording) -> the cluster's nodes -> the profile and each node's pool
-> each pool's devices' figures over the window -> sizing -> usage findings; --write applies the proposals.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from gengpu import filewrites
from gengpu.findings import Finding, UsageError, display, sort_findings
from gengpu.loading.reading import read_bytes
from gengpu.pipeline.profiles import DEFAULT_OVERLAYS, Source, load_profiles, profile_files
from gengpu.pipeline.state import cluster_profile, load_snapshot
from gengpu.reporting.safe import shown as shown_text

if TYPE_CHECKING:
    from gengpu.model import NodePool, Profile


@dataclass
class RightsizeResult:
    findings: list[Finding]
    recommendations: list = field(default_factory=list)  # gengpu.sizing.Recommendation, one per pool
    profile: Profile | None = None
    source: str = ""
    queries: int = 0
    source_client: object = None  # the Prometheus client (queries and bytes answered), None for a recording


def rightsize(paths: list[str], snapshot: str | None, context: str | None, prometheus: str | None,
              metrics: str | None, since: str, until: float | None, min_hours: float,
              out_dir: Path = Path(DEFAULT_OVERLAYS), progress: bool = True, match: str | None = None) -> RightsizeResult:
    """Load the profiles, the cluster's nodes (to put each series in its pool) and dcgm-exporter's figures over the
    window (PromQL on a server, or a recorded file); size every pool of the cluster's profile and judge it."""
    from gengpu import sizing
    from gengpu.checking import usage as usage_rules
    from gengpu.live import pools
    from gengpu.metrics import joining, usage

    try:
        usage.seconds(since)
    except ValueError:
        raise UsageError(f"--since {since!r}: give a Prometheus duration such as 24h, 7d or 2w") from None
    try:
        matchers = usage.parse_match(match) if match is not None else ()
    except usage.BadRegex as exc:
        raise UsageError(f"--match '{shown_text(match)}': {exc}") from None
    except ValueError:
        raise UsageError(f"--match '{shown_text(match)}': give PromQL label matchers, e.g. 'cluster=\"prod\"' or "
                         "'cluster=\"prod\",region=~\"eu-.*\"'") from None
    loaded = load_profiles(profile_files(paths), out_dir)
    findings = [f for f in loaded.findings if f.is_error]
    profiles = [(c.profile, c.source.docs[0]) for c in loaded.profiles if c.profile is not None]
    source, shown, at, more = _metrics_source(prometheus, metrics, until, matchers)
    findings += more
    if source is None:
        return RightsizeResult(sort_findings(findings), source=shown)
    snap, more = load_snapshot(snapshot, context, profiles, progress)
    findings += more
    if snap is None or not profiles:
        return RightsizeResult(sort_findings(findings), source=shown)
    profile, doc, more = cluster_profile(profiles, snap)
    findings += more
    if profile is None:
        return RightsizeResult(sort_findings(findings), source=shown)
    nodes = pools.map_nodes(profile, snap)
    reported = source.nodes(since, at)
    exported = source.exported(since, at) if reported else False
    gone = _gone(source, reported, {n.name for n in nodes} | {i.name for i in snap.nodes}, since, at)
    joined, why_not = _join(source, profile, gone, since, at)
    findings += _unjoined(reported, {n.name: n.pool for n in nodes} | {k: j.pool for k, j in joined.items()},
                          snap.source, profile.name, shown)
    recommendations = []
    for pool in profile.node_pools:
        came_back = {node: j for node, j in sorted(joined.items()) if j.pool is pool}
        members = sorted([n.name for n in nodes if n.pool is pool] + list(came_back))
        spot = {n.name: joining.spot(n.labels) for n in nodes if n.pool is pool}
        spot.update({node: joining.spot(j.labels) for node, j in came_back.items()})
        devices = []
        for label in usage.NODE_LABELS:
            seen = [n for n in members if (label, n) in reported]
            if seen:
                devices += source.pool_usage(label, seen, since, at, exported).devices
        pool_usage = sizing.PoolUsage(profile, doc, pool, members, devices, since, shown, spot)
        rec = sizing.recommend(pool_usage, min_hours, gone={
            node: why_not[node] for node, models in gone.items()
            if node not in joined and (pool.gpu_id in models or None in models)},
            doubt=_doubt(pool, [n.name for n in nodes if n.pool is pool], came_back, devices))
        if came_back:
            rec.evidence["nodesJoined"] = {node: j.how for node, j in came_back.items()}
        recommendations.append(rec)
    findings += usage_rules.check_pools(recommendations)
    return RightsizeResult(sort_findings(findings), recommendations, profile, shown,
                           getattr(source, "queries", 0), getattr(source, "client", None))


def _metrics_source(prometheus: str | None, metrics: str | None, until: float | None, matchers=()):
    """(source, how it is shown, the window's end, findings): a Prometheus server, or a recording read from a file
    (None with its findings when it cannot be read)."""
    import time

    from gengpu.metrics import usage

    if metrics is None:
        from gengpu.metrics.prometheus import Prometheus

        source = usage.Server(Prometheus(prometheus), matchers)
        return source, source.url, until if until is not None else time.time(), []
    from gengpu.checking.rules import finding
    from gengpu.metrics import recorded

    shown = display(Path(metrics))
    if not Path(metrics).exists():
        raise UsageError(f"{shown}: no such file")
    raw, errors = read_bytes(Path(metrics), shown)
    text = None
    if raw is not None and not errors:
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            errors = [finding("metrics-file-invalid", shown, 1, 1, f"not UTF-8 text: {e.reason} at byte {e.start}")]
    recording, more = recorded.load(text, shown) if text is not None else (None, errors)
    if recording is None:
        return None, shown, until, more
    recording.matchers = matchers
    return recording, shown, until if until is not None else recording.last, more


def _gone(source, reported: dict, present: set[str], since: str, at: float) -> dict[str, set]:
    """Nodes of the window's series that the cluster does not have now (autoscaled away, or replaced), with the GPU
    models their series name (None: a model gengpu cannot place, which any pool may have had)."""
    from gengpu.live.pools import product_gpu

    missing = {node for (_, node) in reported if node and node not in present}
    if not missing:
        return {}
    models = source.models(since, at)
    return {node: {product_gpu(m.replace(" ", "-")) if m else None for m in models.get(node, {""})}
            for node in sorted(missing)}


class Joined(NamedTuple):
    """A node that left the cluster, placed in its pool by the labels the window's series kept of it."""

    pool: NodePool
    how: str  # the label and the sources that say it
    labels: dict[str, str]


def _join(source, profile, gone: dict[str, set], since: str, at: float) -> tuple[dict[str, Joined], dict[str, str]]:
    """The nodes that left the cluster whose pool the window's series still say (kube-state-metrics' node labels,
    Karpenter's node metrics, node labels on the exporter's series), and why each other one could not be placed. A
    node whose pool label had two values in the window (a name reused) or names a pool of another GPU model stays
    unjoined."""
    from gengpu.live.pools import pool_label_keys, pools_by_labels

    if not gone:
        return {}, {}
    keys = pool_label_keys(profile)
    found = source.node_labels(sorted(gone), keys, since, at)
    out, why_not = {}, {}
    for node, models in sorted(gone.items()):
        changed = {k: v for k, v in found.changed(node).items() if k in keys}
        if changed:
            key = min(changed)
            why_not[node] = f"{key}={'|'.join(changed[key])} in the window (two nodes had the name)"
            continue
        labels = found.of(node)
        named = pools_by_labels(profile, labels)
        if len(named) > 1:
            # which source to believe is not gengpu's to pick: the node's figures would size the wrong pool
            why_not[node] = (f"its labels name {len(named)} pools ({'; '.join(how for _, how in named)}, from "
                             f"{', '.join(sorted(found.told_by.get(node, ())))})")
            continue
        pool, how = named[0] if named else (None, "")
        if pool is not None and (pool.gpu_id in models or None in models):
            out[node] = Joined(pool, f"{how} ({', '.join(sorted(found.told_by.get(node, ())))})", labels)
        elif pool is not None:
            why_not[node] = f"{how}, a pool of another GPU than its series name"
        else:
            why_not[node] = ("no pool label in kube_node_labels, karpenter_nodes_allocatable or the exporter's "
                             "series")
    return out, why_not


def _doubt(pool, present: list[str], came_back: dict, devices: list) -> str | None:
    """Why the nodes joined back into a pool by their series' labels make its figures untrustworthy, or None: more
    of them than the pool has now, or more nodes or GPUs than its limits allow. Labels in a metrics backend are
    anyone's to write; a join that changes what a pool is has to be looked at, not priced."""
    if not came_back:
        return None
    first = next(iter(came_back))
    seen = f"(e.g. {first}: {came_back[first].how})"
    if len(came_back) > len(present):
        return (f"{len(came_back)} node(s) that left the cluster joined this pool by their series' labels {seen}, more "
                f"than the {len(present)} it has now: nothing is proposed until their labels are checked")
    limits = {k: v for k, v in pool.limits.items() if k in ("nodes", "gpus") and isinstance(v, int)}
    gpus = len({(d.node, d.uuid or d.gpu) for d in devices})  # (a MIG device's series carry its GPU's)
    for what, count in (("nodes", len(present) + len(came_back)), ("gpus", gpus)):
        if what in limits and count > limits[what]:
            return (f"{len(came_back)} node(s) that left the cluster joined this pool by their series' labels {seen}: "
                    f"{count} {what[:-1].upper() if what == 'gpus' else 'node'}s in the window, above its limits.{what}"
                    f" {limits[what]}; nothing is proposed until their labels are checked")
    return None


def _unjoined(reported: dict, pool_of: dict, snapshot: str, profile: str, shown: str) -> list[Finding]:
    """The nodes of dcgm-exporter's series that no pool of the profile takes in."""
    from gengpu.checking.rules import finding

    unjoined, unnamed = [], 0
    for (label, node), count in sorted(reported.items()):
        if not label:
            unnamed += count
        elif node not in pool_of:
            unjoined.append(f"{node} ({count} series): not a node of {snapshot}")
        elif pool_of[node] is None:
            unjoined.append(f"{node} ({count} series): a GPU node of no pool of {profile}")
    if not unjoined and not unnamed:
        return []
    # (series without a node name are no node: counted apart)
    what = [f"{len(unjoined)} node(s) of dcgm-exporter's series"] if unjoined else []
    what += [f"{unnamed} series without a Hostname label"] if unnamed else []
    listed = "; ".join(unjoined[:10]) + (f"; and {len(unjoined) - 10} more" if len(unjoined) > 10 else "")
    message = " and ".join(what) + " left out of every pool" + (f": {listed}" if listed else "")
    return [finding("usage-series-unjoined", shown, 1, 1, message)]


def write_proposals(result: RightsizeResult, out_dir: Path = Path(DEFAULT_OVERLAYS)) -> list[str]:
    """Apply every proposal to its profile (ruamel round trip), checked as a profile before it is written: a change
    that would bring an error of gengpu's own checks is refused and the file left as it was (an error the profile
    already had is not the change's)."""
    from gengpu import editing

    wanted = [r for r in result.recommendations if r.changes]
    if not wanted or result.profile is None:
        return []
    path = Path(result.profile.source)
    before = path.read_bytes()
    text = before.decode("utf-8")
    for rec in wanted:
        text = editing.set_pool_fields(text, display(path), rec.usage.pool.index, rec.changes)
    trial = load_profiles([Source(path, display(path), text.encode("utf-8"))], out_dir)
    # the errors the proposal brings: those the profile had before are its own, reported as they were
    had = {(f.rule, f.message) for f in load_profiles([Source(path, display(path), before)], out_dir).findings
           if f.is_error}
    errors = sort_findings([f for f in trial.findings if f.is_error and (f.rule, f.message) not in had])
    if errors:
        from gengpu import reporting

        raise UsageError(f"the proposal would make {display(path)} fail gengpu's checks; it was left as it was:\n"
                         + reporting.text(errors))
    filewrites.write_profile(path, before, text)
    return [f"wrote {display(path)}: pool {r.pool}: {r.reason}" for r in wanted]

