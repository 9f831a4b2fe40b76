"""Catalogue commands: schema, rules, explain, catalog, mig and import. They read gengpu's tables; none reads a
repository or a cluster."""

from __future__ import annotations

import sys

import click

from gengpu import upstream_changes
from gengpu.cli.common import complete_gpus, complete_rules, guarded


@click.command()
@guarded
def schema():
    """Print the profile JSON Schema (draft 2020-12) for editors and check-jsonschema."""
    from gengpu.schemas_dir import schemas_path

    click.echo((schemas_path() / "profile.schema.json").read_text(encoding="utf-8"), nl=False)


@click.command()
@click.option("--output", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@guarded
def rules(fmt):
    """List every rule: id, severity, what it checks, and a one-line summary."""
    import json

    from gengpu.checking.rules import RULES
    from gengpu.reporting import tables

    if fmt == "json":
        click.echo(json.dumps([tables.rule_dict(r) for r in RULES.values()], indent=2))
        return
    click.echo(tables.table(["id", "severity", "checks", "summary"],
                            [[r.id, r.severity, r.applies_to, r.summary] for r in RULES.values()]))
    click.echo(f"\n{len(RULES)} rules. `gengpu explain ID` tells why a rule exists and how to fix it.")


@click.command()
@click.argument("rule_id", shell_complete=complete_rules)
@click.option("--examples", is_flag=True, help="Also print an example that breaks the rule and a near miss that "
              "does not, with the command and every finding it gives.")
@guarded
def explain(rule_id, examples):
    """Explain one rule: why it exists, how to fix it, and the source behind it."""
    import difflib

    from gengpu.checking.rules import RULES
    from gengpu.findings import UsageError
    from gengpu.reporting import tables

    if rule_id not in RULES:
        close = difflib.get_close_matches(rule_id, list(RULES), n=3)
        hint = f"; did you mean {' or '.join(close)}?" if close else "; `gengpu rules` lists them"
        raise UsageError(f"no rule '{rule_id}'{hint}")
    click.echo(tables.rule_detail(RULES[rule_id]))
    if examples:
        from gengpu.checking.rules.base import examples as rule_examples

        click.echo("\n" + tables.rule_examples(rule_examples(rule_id)))


@click.group()
def catalog():
    """Print gengpu's capability tables: GPU models, clouds, GPU Operator releases, and the upstream changes they
    follow."""


def _catalog_output(fmt, data, render):
    import json

    click.echo(json.dumps(data, indent=2) if fmt == "json" else render())


@catalog.command("gpus")
@click.argument("gpu", required=False)
@click.option("--output", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@guarded
def catalog_gpus(gpu, fmt):
    """GPU models (or one model, by id or alias, with its MIG profiles)."""
    from gengpu import catalog as cat
    from gengpu.findings import UsageError
    from gengpu.reporting import tables

    if gpu:
        gpu_id = cat.resolve_gpu(gpu)
        if gpu_id is None:
            raise UsageError(f"unknown GPU '{gpu}'; known: {', '.join(cat.gpus())}")
        _catalog_output(fmt, {gpu_id: cat.gpus()[gpu_id]}, lambda: tables.gpu_detail(gpu_id, cat.gpus()[gpu_id]))
        return
    _catalog_output(fmt, cat.gpus(), lambda: tables.table(
        ["id", "architecture", "cc", "memory", "MIG", "MPS clients", "aliases"], tables.gpu_rows(cat.gpus())))


@catalog.command("clouds")
@click.argument("platform", required=False, type=click.Choice(["eks", "gke", "gke-autopilot", "aks", "kubernetes"]))
@click.option("--output", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@guarded
def catalog_clouds(platform, fmt):
    """Platforms: what they ship on GPU nodes, and their GPU instance types."""
    from gengpu import catalog as cat
    from gengpu.reporting import tables

    chosen = [platform] if platform else list(cat.platforms())
    clouds = cat.clouds()

    def rows(p):
        if p == "eks":
            return [[f, s["gpu"], ", ".join(f"{k}:{v}" for k, v in s["sizes"].items()), s["arch"]]
                    for f, s in clouds["eks"]["families"].items()]
        if p == "gke":
            return [[m, s["gpu"], s["gpus"], s.get("arch", "amd64") + (" spot-only" if s.get("spotOnly") else "")]
                    for m, s in clouds["gke"]["machineTypes"].items()]
        if p == "gke-autopilot":
            return [[acc, "", ", ".join(map(str, counts)), ""]
                    for acc, counts in clouds["gke"]["autopilot"]["allowedCounts"].items()]
        if p == "kubernetes":
            return []  # nodes you bring: any GPU of `gengpu catalog gpus`, gpusPerNode as the pool states it
        return [[v, s["gpu"], s["gpus"] if "fraction" not in s else f"{s['fraction']} of 1",
                 f"retired {s['retired']}" if s.get("retired") else ""] for v, s in clouds["aks"]["vmSizes"].items()]

    def render():
        out = []
        for p in chosen:
            info = cat.platforms()[p]
            ships = [c for c in ("driver", "toolkit") if info[f"{c}Preinstalled"]]
            out.append(f"{p}: {info['title']} - ships {', '.join(ships) or 'no GPU software'}"
                       + ("; own device plugin" if info["builtinDevicePlugin"] else "")
                       + ("; no GPU Operator" if "gpu-operator" in info.get("lacks", {}) else ""))
            out.append(tables.table(["instance type" if p != "gke-autopilot" else "accelerator", "GPU",
                                     "GPUs" if p != "gke-autopilot" else "allowed counts", "notes"], rows(p)))
            out.append("")
        return "\n".join(out).rstrip()

    _catalog_output(fmt, {p: {"platform": cat.platforms()[p], "instances": rows(p)} for p in chosen}, render)


@catalog.command("operator")
@click.argument("version", required=False)
@click.option("--output", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@guarded
def catalog_operator(version, fmt):
    """GPU Operator releases and the component versions each installs."""
    from gengpu import catalog as cat
    from gengpu.findings import UsageError
    from gengpu.reporting import tables

    releases = cat.operator()["releases"]
    if version and version not in releases:
        raise UsageError(f"unknown GPU Operator release '{version}'; known: {', '.join(releases)}")
    chosen = {version: releases[version]} if version else releases
    _catalog_output(fmt, chosen, lambda: tables.table(
        ["release", "driver", "toolkit", "device plugin", "mig-manager", "dcgm-exporter", "supported drivers"],
        [[v, r["driver"], r["toolkit"], r["devicePlugin"], r["migManager"], r["dcgmExporter"],
          ", ".join(r.get("supportedDrivers", []))] for v, r in chosen.items()]))


@catalog.command("changes")
@click.option("--component", type=click.Choice(upstream_changes.COMPONENTS), help="Only this component's changes.")
@click.option("--since", metavar="YYYY-MM-DD", help="Only changes released on or after this date.")
@click.option("--profile", "profile_files", multiple=True, type=click.Path(exists=True, dir_okay=False),
              help="Say, for each change, whether this profile's pinned versions have it (repeatable).")
@click.option("--output", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@guarded
def catalog_changes(component, since, profile_files, fmt):
    """Upstream changes gengpu follows, newest release first per component: what moved, and what gengpu does about
    it (the rules that judge it, the profile fields that ask for it, what it writes).

    \b
    gengpu catalog changes --since 2026-07-01
    gengpu catalog changes --profile profiles/prod.yaml
    """
    import datetime

    from gengpu import reporting
    from gengpu.findings import UsageError
    from gengpu.reporting import tables

    if since is not None:
        try:
            datetime.date.fromisoformat(since)
        except ValueError:
            raise UsageError(f"--since {since!r} is not a date: write it as YYYY-MM-DD, e.g. 2026-07-01") from None
    profiles = []
    if profile_files:
        from pathlib import Path

        from gengpu.pipeline.profiles import load_profiles

        loaded = load_profiles([Path(f) for f in profile_files], Path("overlays"))
        if loaded.findings:
            click.echo(reporting.text(loaded.findings), err=True)
            sys.exit(reporting.exit_code(loaded.findings, False) or 1)
        profiles = [(checked.repo_path, checked.profile) for checked in loaded.profiles]
    chosen = upstream_changes.changes(component, since)
    by_profile = [(name, upstream_changes.standings(chosen, profile)) for name, profile in profiles]
    stands = [{name: said[i] for name, said in by_profile if said[i]} for i in range(len(chosen))]
    data = [{**c, **({"profiles": st} if profile_files else {})} for c, st in zip(chosen, stands)]
    _catalog_output(fmt, data, lambda: tables.changes(chosen, stands))


@click.group()
def mig():
    """Check MIG layouts against a GPU's exact geometry."""


def _gpu_or_exit(model):
    from gengpu import catalog as cat
    from gengpu.findings import UsageError

    gpu_id = cat.resolve_gpu(model)
    if gpu_id is None:
        raise UsageError(f"unknown GPU '{model}'; known: {', '.join(cat.gpus())}")
    return gpu_id


@mig.command("check")
@click.option("--gpu", "model", required=True, shell_complete=complete_gpus,
              help="GPU model id or alias, e.g. A100-40GB.")
@click.argument("instances", nargs=-1, required=True)
@click.option("--output", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@guarded
def mig_check(model, instances, fmt):
    """Check a layout: PROFILE=COUNT ... (e.g. 3g.20gb=1 2g.10gb=1 1g.5gb=2).

    Exit 0 valid, 1 invalid, 2 unknown GPU or malformed argument.
    """
    import json

    from gengpu import mig as geometry
    from gengpu.findings import UsageError

    gpu_id = _gpu_or_exit(model)
    layout = {}
    for item in instances:
        name, sep, count = item.partition("=")
        if not sep or not count.isdecimal() or int(count) < 1 or not name:
            raise UsageError(f"'{item}' is not PROFILE=COUNT (for example 1g.10gb=2)")
        layout[name] = layout.get(name, 0) + int(count)
    verdict = geometry.check_layout(gpu_id, layout)
    if fmt == "json":
        click.echo(json.dumps({"gpu": gpu_id, "valid": verdict.valid, "reasons": verdict.reasons,
                               "placement": [{"profile": p.profile, "start": p.start, "size": p.size}
                                             for p in verdict.placement]}, indent=2))
    elif verdict.valid:
        click.echo(f"{gpu_id}: valid\n{geometry.slot_map(verdict)}")
    else:
        click.echo(f"{gpu_id}: invalid\n" + "\n".join(f"  - {r}" for r in verdict.reasons))
    sys.exit(0 if verdict.valid else 1)


@mig.command("layouts")
@click.argument("model", shell_complete=complete_gpus)
@click.option("--output", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@guarded
def mig_layouts(model, fmt):
    """Every maximal valid layout of a GPU: no instance can be added to any of them."""
    import json

    from gengpu import mig as geometry

    gpu_id = _gpu_or_exit(model)
    layouts = geometry.maximal_layouts(gpu_id)
    if fmt == "json":
        click.echo(json.dumps({"gpu": gpu_id, "layouts": layouts}, indent=2))
        return
    if not layouts:
        click.echo(f"{gpu_id} does not support MIG.")
        sys.exit(1)
    for layout in layouts:
        click.echo("  ".join(f"{p}={c}" for p, c in layout.items()))
    click.echo(f"\n{len(layouts)} maximal layouts for {gpu_id}.")


@click.group(name="import", invoke_without_command=True)
@click.option("--snapshot", "snapshot_file", default=None, type=click.Path(dir_okay=False, allow_dash=True),
              help="Write the profile a cluster implies, from its snapshot (gengpu snapshot, kubectl get nodes -o "
              "yaml, kubectl describe nodes); - for standard input.")
@click.option("--context", default=None, help="... or from the live cluster of this kubeconfig context (read-only).")
@click.option("--name", default="imported", show_default=True, help="metadata.name of the profile.")
@click.option("-o", "--output-file", default=None, type=click.Path(dir_okay=False),
              help="Write it to this new file (default: standard output); an existing file is never overwritten.")
@click.pass_context
@guarded
def import_(ctx, snapshot_file, context, name, output_file):
    """Turn what a team already runs into a profile, or existing manifests into profile parts.

    \b
    gengpu import --snapshot nodes.yaml -o profiles/prod.yaml
    gengpu import --context prod --name prod
    gengpu import karpenter-provisioner provisioner.yaml

    With --snapshot or --context: one pool per node group (the provisioner's or cloud's pool label), else per kind
    of GPU node (GPU Feature Discovery's product and count, with a nodeSelector); each pool's GPU, GPUs per node,
    instance types, and the sharing or MIG layout its nodes advertise. What the nodes cannot say (limits, quotas,
    the repository Argo CD syncs) is left as a comment to act on. Exit 1 when the profile still needs a field.
    """
    if ctx.invoked_subcommand is not None:
        return
    from gengpu import reporting
    from gengpu.findings import UsageError
    from gengpu.names import problem
    from gengpu.pipeline import adopt as flow

    if (snapshot_file is None) == (context is None):
        raise UsageError("give --snapshot FILE or --context NAME (or a subcommand: gengpu import --help)")
    if problem(name, "--name"):
        raise UsageError(problem(name, "--name"))
    result = flow.adopt(snapshot_file, context, name, output_file)
    if result.text is not None and output_file is None:
        click.echo(result.text, nl=False)
    if result.findings:
        click.echo(reporting.text(result.findings), err=True)
    if output_file is not None and result.text is not None:
        click.echo(f"wrote {output_file}", err=True)
    sys.exit(reporting.exit_code(result.findings, False))


@import_.command("karpenter-provisioner")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@guarded
def import_karpenter_provisioner(file):
    """Print a node pool (and zones) for spec of a profile, from a karpenter.sh/v1alpha5 Provisioner.

    Paste `zones` under spec and the entry of `nodePools` into spec.nodePools.
    What has no place in a profile is listed as comments, never dropped silently.
    """
    from gengpu import importing

    click.echo(importing.karpenter_provisioner_text(file), nl=False)
