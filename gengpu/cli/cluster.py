"""Cluster commands: snapshot, check and rightsize. Read-only towards the cluster and Prometheus."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from gengpu.cli.common import FORMATS, guarded, report_findings


@click.command()
@click.option("--context", default=None, help="kubeconfig context of the cluster (default: the current one).")
@click.option("-o", "--output-file", "output_file", default="-", show_default=True, type=click.Path(dir_okay=False),
              help="Where to write the snapshot (- for standard output).")
@click.option("--namespace", default="gpu-operator", show_default=True,
              help="Namespace of the GPU Operator (its sharing and MIG ConfigMaps are read there).")
@guarded
def snapshot(context, output_file, namespace):
    """Capture, read-only, what `gengpu check` needs from a running cluster.

    \b
    Nodes (labels, taints, capacity, allocatable, conditions), the GPU
    Operator's ClusterPolicy, NVIDIADrivers and GPUCluster with their status,
    the sharing and MIG ConfigMaps gengpu generates, DRA ResourceSlices,
    DeviceClasses and ResourceClaims, Karpenter NodePools and NodeClaims, and
    the pods that ask for GPUs (their scheduling fields only: no env, args or
    command). No annotations, never Secrets. The result is one v1 List, as
    `kubectl get ... -o yaml` prints it, written 0600; the gengpu-check
    ClusterRole in every overlay grants exactly these reads.
    """
    from gengpu.live import kube

    objects, captured, notes = kube.capture(context, namespace)
    chunks = kube.list_chunks(kube.as_list(objects, captured, notes,
                                           f"context {context}" if context else "current context"))
    if output_file == "-":
        for chunk in chunks:
            click.echo(chunk, nl=False)
    else:
        from gengpu.filewrites import write_snapshot

        write_snapshot(Path(output_file), chunks)
    for note in notes:
        click.echo(f"gengpu: not read: {note}", err=True)


@click.command()
@click.argument("profiles", nargs=-1, type=click.Path())
@click.option("--snapshot", "snapshot_file", default=None, type=click.Path(dir_okay=False, allow_dash=True),
              help="A snapshot file (gengpu snapshot, kubectl get nodes,... -o yaml, kubectl describe nodes); - for "
              "standard input.")
@click.option("--context", default=None, help="Check the live cluster of this kubeconfig context instead.")
@click.option("--pool", default=None, metavar="NAME",
              help="Check every GPU node against this pool, whatever its labels (a cluster of one kind of GPU node).")
@click.option("--output", "fmt", type=click.Choice(FORMATS), default=None,
              help="Findings format (default text; github inside GitHub Actions).")
@click.option("--strict", is_flag=True, help="Exit 1 on warnings too.")
@click.option("-q", "--quiet", is_flag=True, help="No progress on stderr, no summary line.")
@guarded
def check(profiles, snapshot_file, context, pool, fmt, strict, quiet):
    """Check a running cluster against its profile: what each GPU node offers against what its pool promises.

    \b
    PROFILES default to profiles/*.yaml; the one whose pools the nodes
    belong to is used. Each node is mapped to its pool by gengpu's or the
    provisioner's pool label, the pool's nodeSelector, else by its GPUs (GPU
    Feature Discovery's product and count, a cloud's accelerator or instance
    type) when one pool fits, or --pool. Checked by what the node shows, not
    by config names: the GPUs, shared GPUs or MIG devices it advertises (or
    DRA devices it publishes), each shortfall by its cause (device plugin
    down, MIG re-partition, unhealthy GPUs, GPUs missing, config not
    applied), readiness and GPU fault conditions, the MIG state, GFD's
    sharing labels, driver and driver upgrades; then the GPU Operator's
    status, DRA claims, and pending pods no node can take. The snapshot may
    be `kubectl describe node` text or other pasted forms. Findings point at
    the profile line of the promise. Read-only: nothing is written to the
    cluster.

    Exit status: 0 clean, 1 findings that are errors, 2 usage or environment
    error (an unreachable API server, RBAC refusing nodes).
    """
    from gengpu.findings import UsageError
    from gengpu.pipeline import check as flow

    if snapshot_file is not None and context is not None:
        raise UsageError("give either --snapshot FILE or --context NAME, not both")
    result = flow.check(list(profiles), snapshot_file, context, progress=not quiet, pool=pool)
    sys.exit(report_findings(result.findings, fmt, quiet, result.summary(), strict))


@click.command()
@click.argument("profiles", nargs=-1, type=click.Path())
@click.option("--prometheus", default=None, metavar="URL",
              help="Prometheus (or Thanos, Mimir, VictoriaMetrics) holding dcgm-exporter's series; a bearer token "
              "may be given in GENGPU_PROMETHEUS_TOKEN.")
@click.option("--metrics", "metrics_file", default=None, type=click.Path(dir_okay=False),
              help="Instead of a server: a recording of dcgm-exporter's samples (OpenMetrics with timestamps).")
@click.option("--snapshot", "snapshot_file", default=None, type=click.Path(dir_okay=False, allow_dash=True),
              help="The cluster's nodes, to put each series in its pool (gengpu snapshot, or kubectl get nodes -o yaml).")
@click.option("--context", default=None, help="Read the nodes from the live cluster of this kubeconfig context instead.")
@click.option("--since", default="7d", show_default=True, help="Window of the figures (a Prometheus duration).")
@click.option("--match", default=None, metavar="MATCHERS",
              help="PromQL label matchers that pick this cluster's series where a backend holds several (Thanos, "
              "Mimir, VictoriaMetrics), e.g. 'cluster=\"prod\"'; node names repeat across clusters. Regexes (=~, !~) "
              "are RE2, as Prometheus runs them.")
@click.option("--until", default=None, metavar="TIME",
              help="End of the window, RFC 3339 or unix seconds (default: now; for --metrics, its last sample).")
@click.option("--min-hours", type=click.FloatRange(0), default=24, show_default=True,
              help="Data a pool's figures must cover before anything is proposed.")
@click.option("--output", "fmt", type=click.Choice(["text", "markdown", "json"]), default="text", show_default=True,
              help="Report format: text, markdown (for a pull-request comment) or json.")
@click.option("--write", is_flag=True, help="Apply the proposals to the profile (comments and order kept).")
@click.option("-q", "--quiet", is_flag=True, help="No progress on stderr.")
@guarded
def rightsize(profiles, prometheus, metrics_file, snapshot_file, context, since, match, until, min_hours, fmt, write,
              quiet):
    """Propose, from what the GPUs really did, the profile change that packs pods on fewer GPUs, with its saving.

    \b
    Reads dcgm-exporter's series over the window (memory in use, activity;
    per GPU and per pod), puts each GPU in its pool through its node (the
    snapshot's or the live cluster's pool labels; for nodes that left,
    kube-state-metrics' node labels, Karpenter's node metrics or labels on
    the exporter's series) and, per pool of whole GPUs: MIG instances
    (MIG-capable GPUs) or time-slicing replicas that hold every pod's peak
    memory plus 20% and its p95 activity; per pool that shares GPUs: the
    replicas its pods' own figures allow (dcgm-exporter 4.8.2+ per-process
    data). Priced with `gengpu plan`'s tables, as always on or by the share of
    the window the GPUs ran, spot where node labels say so; busy pools are
    kept. Never below an observed peak, never on less data than --min-hours,
    never while a node that left cannot be placed in its pool, never MIG or
    slices for a pod that holds several GPUs. With --write the profile is changed
    (then `gengpu build` and open the pull request; `gengpu diff` shows the
    spend). Read-only towards Prometheus and the cluster.

    Exit status: 0 (proposals are advice), 1 unreadable metrics, 2 usage or
    environment error (Prometheus unreachable).
    """
    from gengpu import reporting
    from gengpu.findings import UsageError
    from gengpu.pipeline import rightsize as flow
    from gengpu.reporting import rightsize as report

    if (prometheus is None) == (metrics_file is None):
        raise UsageError("give either --prometheus URL or --metrics FILE")
    if snapshot_file is not None and context is not None:
        raise UsageError("give either --snapshot FILE or --context NAME, not both")
    result = flow.rightsize(list(profiles), snapshot_file, context, prometheus, metrics_file, since,
                                _time(until), min_hours, progress=not quiet, match=match)
    if fmt == "json":
        click.echo(report.as_json(result.recommendations, result.findings), nl=False)
    else:
        if result.findings:
            click.echo(reporting.text(result.findings), err=True)
        if result.recommendations:
            click.echo((report.markdown if fmt == "markdown" else report.text)(result.recommendations), nl=False)
    if write:
        for line in flow.write_proposals(result):
            click.echo(line, err=True)
    sys.exit(reporting.exit_code(result.findings, False))


def _time(value: str | None) -> float | None:
    if value is None:
        return None
    from datetime import datetime

    from gengpu.findings import UsageError

    try:
        return float(value)
    except ValueError:
        pass
    try:
        from datetime import timezone

        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
        return (moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)).timestamp()
    except ValueError:
        raise UsageError(f"--until {value!r}: give RFC 3339 (2026-12-01T00:00:00Z) or unix seconds") from None
