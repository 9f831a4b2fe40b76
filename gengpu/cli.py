"""Command line: parse options, build the pieces, run. Heavy modules load inside the commands."""

from __future__ import annotations

import functools
import os
import sys
from pathlib import Path

import click

from gengpu import __version__

EXIT_USAGE = 2


def _guarded(fn):
    """Usage and environment problems exit 2 with one clear line, never a traceback."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        from gengpu.findings import UsageError

        try:
            return fn(*args, **kwargs)
        except UsageError as exc:
            click.echo(f"gengpu: error: {exc}", err=True)
            sys.exit(EXIT_USAGE)
        except KeyboardInterrupt:
            sys.exit(130)
        except BrokenPipeError:
            # The reader went away (`gengpu rules | head`): stop quietly, as other command-line tools do.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            sys.exit(141)
        except OSError as exc:  # a read-only folder, a full disk: the environment, not the input
            where = f"{exc.filename}: " if exc.filename else ""
            click.echo(f"gengpu: error: {where}{exc.strerror or exc}", err=True)
            sys.exit(EXIT_USAGE)
        except Exception as exc:  # a bug in gengpu, not in the input
            if os.environ.get("GENGPU_DEBUG"):
                raise
            click.echo(f"gengpu: internal error: {type(exc).__name__}: {exc} "
                       "(set GENGPU_DEBUG=1 for the traceback and report it)", err=True)
            sys.exit(3)

    return wrapper


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="gengpu")
def main():
    """Compile GPU profiles into Argo CD-ready Kustomize overlays, and validate GPU setups before they ship.

    \b
    gengpu init DIR --platform eks --gpu L4     start a GitOps repository
    gengpu build                                profiles/*.yaml -> overlays/<name>/ and argocd/
    gengpu build --check                        exit 1 with a diff when committed overlays are stale
    gengpu validate                             profiles, manifests, and overlays through kustomize + kubeconform
    gengpu diff --base origin/main              what a merge changes on each cluster
    gengpu mig check --gpu A100-40GB 3g.20gb=2  does a MIG layout fit
    gengpu explain RULE-ID                      why a rule exists and how to fix what it found
    """


def _complete_rules(ctx, param, incomplete):
    """Shell completion of rule ids (`gengpu explain <TAB>`)."""
    from gengpu.checking.rules import RULES

    return [r for r in sorted(RULES) if r.startswith(incomplete)]


def _complete_gpus(ctx, param, incomplete):
    """Shell completion of GPU model ids (`--gpu <TAB>`, `gengpu mig layouts <TAB>`)."""
    from gengpu import catalog

    return [g for g in catalog.gpus() if g.lower().startswith(incomplete.lower())]


@main.command()
@click.argument("profiles", nargs=-1, type=click.Path(path_type=str))
@click.option("-o", "--output-dir", default="overlays", show_default=True, type=click.Path(file_okay=False),
              help="Folder that holds one overlay folder per profile.")
@click.option("--check", is_flag=True, help="Write nothing; exit 1 and show a diff for every missing, stale or extra file.")
@click.option("--changed", is_flag=True,
              help="Treat the arguments as changed files (profiles or overlay files) and build only the profiles "
                   "they affect: what the pre-commit hook runs.")
@click.option("--output", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="Format of findings.")
@click.option("--shard", default=None, metavar="I/N", callback=lambda c, p, v: _shard(v),
              help="With --check: only the I-th of N parts of the fleet (a CI matrix); the parts never overlap.")
@click.option("--no-cache", is_flag=True, help="Compile every profile; ignore and do not write .cache/gengpu/.")
@click.option("-q", "--quiet", is_flag=True, help="No progress on stderr; list only overlays that change.")
@_guarded
def build(profiles, output_dir, check, changed, fmt, shard, no_cache, quiet):
    """Compile PROFILES (default: every profiles/*.yaml) into overlays, and argocd/ beside them.

    A profile with errors stops the build before anything is written, so the
    overlays on disk stay as they were. Files gengpu did not generate are never
    overwritten or deleted; put your own patches in overlays/<name>/local/.
    """
    from gengpu import pipeline, reporting, writing
    from gengpu.findings import UsageError

    if shard and not check:
        raise UsageError("--shard splits the work of `build --check`; a build that writes covers the whole fleet")
    out_dir = Path(output_dir)
    result = pipeline.build(list(profiles), out_dir, check, changed, cache=not no_cache, shard=shard,
                            progress=not quiet)
    for note in result.notes:
        click.echo(f"gengpu: {note}", err=True)
    # In a machine format stdout holds the report alone (a CI step pipes it into a file); what was written goes to
    # stderr then.
    machine = fmt != "text"
    if result.findings or machine:
        click.echo(reporting.REPORTERS[fmt](result.findings), err=not machine)
    if result.blocked:
        click.echo("gengpu: build stopped by the errors above; no overlay was written.", err=True)
        sys.exit(1)
    changed = [p for p in result.plans if p.changed]
    if check:
        for plan in changed:
            for kind, names in (("missing", plan.missing), ("stale", plan.stale), ("extra", plan.extra)):
                for name in names:
                    click.echo(f"{kind}: {pipeline.display(plan.folder)}/{name}", err=machine)
        for plan in changed:
            click.echo(writing.diff(plan, pipeline.display(plan.folder.parent)), nl=False, err=machine)
        if changed:
            click.echo(f"gengpu: {len(changed)} overlay(s) out of date; run `gengpu build` and commit the result.",
                       err=True)
            sys.exit(1)
        if not quiet:
            click.echo(f"{sum(p.folder != out_dir.parent / pipeline.ARGOCD_DIR for p in result.plans)} overlay(s) up to "
                       "date.", err=machine)
        return
    for plan in result.plans:
        state = "removed" if not plan.desired and plan.changed else ("written" if plan.changed else "unchanged")
        if not plan.changed and not plan.folder.exists():
            continue  # argocd/ of a repository whose clusters Flux syncs
        if plan.changed or not quiet:
            click.echo(f"{state}: {pipeline.display(plan.folder)}/", err=machine)


FORMATS = ["text", "json", "github", "sarif", "junit"]


def _shard(value: str | None):
    """--shard I/N as (I, N), 1 <= I <= N."""
    if value is None:
        return None
    index, _, count = value.partition("/")
    if not (index.isdigit() and count.isdigit() and 1 <= int(index) <= int(count)):
        raise click.BadParameter(f"'{value}' is not I/N with 1 <= I <= N (for example 2/4)")
    return int(index), int(count)


def _default_format() -> str:
    # In GitHub Actions, findings become annotations on the pull request's lines.
    return "github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text"


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=str))
@click.option("--output", "fmt", type=click.Choice(FORMATS), default=None,
              help="Findings format (default text; github inside GitHub Actions).")
@click.option("--strict", is_flag=True, help="Exit 1 on warnings too.")
@click.option("--profile", default=None, type=click.Path(dir_okay=False),
              help="Profile of the cluster that hand-written workloads and configs are checked against.")
@click.option("--kind", type=click.Choice(["device-plugin-config", "mig-parted-config"]), default=None,
              help="Check every file as this kind of config instead of guessing from its content.")
@click.option("--kubernetes-version", default=None, metavar="X.Y",
              help="Kubernetes schemas for files and overlays that do not name their version (default: the "
                   "--profile's, else 1.37).")
@click.option("-v", "--verbose", is_flag=True,
              help="Say what each document was recognised as, and why (on stderr).")
@click.option("--engine", type=click.Choice(["gengpu", "kubeconform"]), default="gengpu", show_default=True,
              help="Who checks rendered resources against their schemas: gengpu's engine (in-process, the same schema "
                   "files) or the kubeconform binary.")
@click.option("--shard", default=None, metavar="I/N", callback=lambda c, p, v: _shard(v),
              help="Check only the I-th of N parts of the fleet (a CI matrix); the parts never overlap.")
@click.option("--jobs", type=click.IntRange(1, 256), default=None, help="Processes for large fleets (default: GENGPU_JOBS, else the cores).")
@click.option("--no-cache", is_flag=True, help="Ignore and do not write the result cache in .cache/gengpu/.")
@click.option("--baseline", "baseline_file", default=None, type=click.Path(dir_okay=False),
              help="Accept the findings recorded in FILE: only new ones are reported, and any new one fails "
                   "(default: `baseline:` of .gengpu.yaml).")
@click.option("--no-baseline", is_flag=True, help="Report every finding, whatever .gengpu.yaml says.")
@click.option("--write-baseline", default=None, type=click.Path(dir_okay=False), metavar="FILE",
              help="Record today's findings in FILE as accepted, then exit 0.")
@click.option("-q", "--quiet", is_flag=True, help="No progress on stderr, no summary line.")
@_guarded
def validate(paths, fmt, strict, profile, kind, kubernetes_version, verbose, engine, shard, jobs, no_cache,
             baseline_file, no_baseline, write_baseline, quiet):
    """Validate profiles, GPU manifests and overlays (default: profiles/ and overlays/*).

    \b
    Profiles: the profile schema and every profile rule.
    Files: device-plugin configs, mig-parted configs (plain or in a ConfigMap),
      ClusterPolicies and GPU workloads; with --profile, workloads are also
      checked against that cluster's pools (resources, taints, sharing).
    Overlay folders: rendered (in-process for generated overlays, by
      `kustomize build` for those with local/ patches), every resource checked
      strictly against the Kubernetes and CRD schemas and their CEL rules (a
      kind without a schema is an error, never a skip), then the rules over the
      overlay's files. Results are cached by content in .cache/gengpu/.

    A baseline (--write-baseline, then --baseline or `baseline: FILE` in
    .gengpu.yaml) accepts the findings a repository had when it adopted
    gengpu: they are counted, not shown, and survive moved lines and
    reformatting; any new warning or error fails, and entries whose finding
    is gone are reported as removable.

    Exit status: 0 clean, 1 errors (or warnings with --strict, or any new
    finding against a baseline), 2 usage or environment error.
    """
    from gengpu import pipeline, reporting
    from gengpu.findings import UsageError

    if write_baseline and (baseline_file or no_baseline):
        raise UsageError("--write-baseline records every finding; give it without --baseline or --no-baseline")
    accepted = None
    if write_baseline or baseline_file or (not no_baseline and Path(".gengpu.yaml").is_file()):
        from gengpu import baseline  # (a repository without a baseline never imports it)

        accepted_from = None if (no_baseline or write_baseline) else (baseline_file or baseline.settings_baseline())
        accepted = baseline.load(accepted_from) if accepted_from else None  # a bad baseline stops before the work
    fmt = fmt or _default_format()
    paths = list(paths)
    stdin_file = None
    if "-" in paths:  # a manifest piped in: `kubectl get ds -A -o yaml | gengpu validate -`
        import tempfile

        stdin_file = Path(tempfile.mkdtemp(prefix="gengpu-stdin-")) / "stdin.yaml"
        stdin_file.write_bytes(sys.stdin.buffer.read())
        paths = [str(stdin_file) if p == "-" else p for p in paths]
    try:
        result = pipeline.validate(paths, kubernetes_version, profile, kind, engine=engine, jobs=jobs, shard=shard,
                                   cache=not no_cache, progress=not quiet)
    finally:
        if stdin_file is not None:
            import shutil

            shutil.rmtree(stdin_file.parent, ignore_errors=True)
    if stdin_file is not None:
        import dataclasses

        shown = pipeline.display(stdin_file)
        result.findings = [dataclasses.replace(f, file="<stdin>") if f.file == shown else f for f in result.findings]
    if verbose:
        for line in result.recognition:
            click.echo(f"gengpu: {line}", err=True)
    findings = result.findings
    if write_baseline:
        baseline.write(write_baseline, findings)
        if not quiet:
            click.echo(f"gengpu: wrote {write_baseline}: {len(findings)} finding(s) accepted; commit it, and set "
                       f"`baseline: {write_baseline}` in {baseline.SETTINGS} for the hooks and CI.", err=True)
        sys.exit(0)
    if accepted is not None:
        findings, _ = baseline.apply(findings, accepted, result.scope)
    color = fmt == "text" and reporting.use_color(sys.stdout)
    out = reporting.text(findings, color) if fmt == "text" else reporting.REPORTERS[fmt](findings)
    if out:
        click.echo(out, color=color)
    # against a baseline every new finding fails: the baseline is where old ones are accepted
    code = reporting.exit_code(findings, strict or accepted is not None)
    if fmt == "text" and not quiet:
        errors = sum(f.severity == "error" for f in findings)
        verdict = f"{errors} error(s), {len(findings) - errors} other finding(s)" if findings else "no findings"
        click.echo(f"gengpu: {result.summary()}: {verdict}.", err=True)
    sys.exit(code)


@main.command()
@_guarded
def schema():
    """Print the profile JSON Schema (draft 2020-12) for editors and check-jsonschema."""
    from gengpu.schemas_dir import schemas_path

    click.echo((schemas_path() / "profile.schema.json").read_text(encoding="utf-8"), nl=False)


@main.command()
@click.option("--output", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@_guarded
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


@main.command()
@click.argument("rule_id", shell_complete=_complete_rules)
@click.option("--examples", is_flag=True, help="Also print an example that breaks the rule and a near miss that "
              "does not, with the command and every finding it gives.")
@_guarded
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


@main.group()
def catalog():
    """Print gengpu's capability tables: GPU models, clouds, GPU Operator releases."""


def _catalog_output(fmt, data, render):
    import json

    click.echo(json.dumps(data, indent=2) if fmt == "json" else render())


@catalog.command("gpus")
@click.argument("gpu", required=False)
@click.option("--output", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@_guarded
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
@click.argument("platform", required=False, type=click.Choice(["eks", "gke", "gke-autopilot", "aks"]))
@click.option("--output", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@_guarded
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
@_guarded
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


@main.group()
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
@click.option("--gpu", "model", required=True, shell_complete=_complete_gpus,
              help="GPU model id or alias, e.g. A100-40GB.")
@click.argument("instances", nargs=-1, required=True)
@click.option("--output", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@_guarded
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
        if not sep or not count.isdigit() or int(count) < 1 or not name:
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
@click.argument("model", shell_complete=_complete_gpus)
@click.option("--output", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@_guarded
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


@main.group(name="import")
def import_():
    """Turn existing manifests into profile parts."""


@import_.command("karpenter-provisioner")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@_guarded
def import_karpenter_provisioner(file):
    """Print a node pool (and zones) for spec of a profile, from a karpenter.sh/v1alpha5 Provisioner.

    Paste `zones` under spec and the entry of `nodePools` into spec.nodePools.
    What has no place in a profile is listed as comments, never dropped silently.
    """
    from gengpu import importing
    from gengpu.compiling.yamltext import dump

    result, notes = importing.karpenter_provisioner(file)
    head = [f"# Imported by gengpu from {file} (karpenter.sh/v1alpha5 Provisioner)."]
    head += [f"# not imported: {n}" for n in notes]
    click.echo("\n".join(head) + "\n" + dump(result), nl=False)


@main.command()
@click.argument("profiles", nargs=-1, type=click.Path())
@click.option("--output", type=click.Choice(["text", "markdown", "json"]), default="text", show_default=True,
              help="Report format.")
@click.option("-o", "--output-dir", default="overlays", show_default=True, help="Folder of the overlays.")
@_guarded
def plan(profiles, output, output_dir):
    """Estimate what each GPU pool may cost and which cloud quotas its limits need.

    For every pool of PROFILES (default: every profiles/*.yaml): GPUs at the
    minimum and at the limit, the hourly price per GPU and per shared slice or
    MIG instance, on-demand and spot, the monthly cost at the limit, and the
    regional quota the limits need, summed over the fleet per region and quota.
    Figures are estimates from list prices, each traceable to the dated source in
    gengpu/data/prices.yaml. Profiles with errors are reported and left out.
    """
    from gengpu import pipeline, planning, reporting
    from gengpu.reporting import plan as plan_report

    loaded = pipeline.load_profiles(pipeline.profile_files(list(profiles)), Path(output_dir))
    errors = [f for f in loaded.findings if f.severity == "error"]
    if errors:
        click.echo(reporting.text(errors), err=True)
    plans = [p for c in loaded.profiles if c.profile is not None for p in planning.plan_profile(c.profile)]
    click.echo(plan_report.render(plans, output), nl=False)
    sys.exit(1 if errors else 0)


@main.command()
@click.option("--context", default=None, help="kubeconfig context of the cluster (default: the current one).")
@click.option("-o", "--output-file", "output_file", default="-", show_default=True, type=click.Path(dir_okay=False),
              help="Where to write the snapshot (- for standard output).")
@click.option("--namespace", default="gpu-operator", show_default=True,
              help="Namespace of the GPU Operator (its sharing and MIG ConfigMaps are read there).")
@_guarded
def snapshot(context, output_file, namespace):
    """Capture, read-only, what `gengpu check` needs from a running cluster.

    \b
    Nodes (labels, taints, capacity, allocatable, conditions), the GPU
    Operator's ClusterPolicy and NVIDIADrivers with their status, the sharing
    and MIG ConfigMaps gengpu generates, DRA ResourceSlices and DeviceClasses,
    Karpenter NodePools and NodeClaims, and the pods that ask for GPUs. Never
    Secrets. The result is one v1 List, as `kubectl get ... -o yaml` prints it;
    the gengpu-check ClusterRole in every overlay grants exactly these reads.
    """
    import json

    from gengpu.live import kube

    objects, captured, notes = kube.capture(context, namespace)
    text = json.dumps(kube.as_list(objects, captured, notes, f"context {context}" if context else "current context"),
                      indent=1) + "\n"  # apiVersion, kind, metadata first: a reader sees what it is at once
    if output_file == "-":
        click.echo(text, nl=False)
    else:
        from gengpu.writing import write_snapshot

        write_snapshot(Path(output_file), text)
    for note in notes:
        click.echo(f"gengpu: not read: {note}", err=True)


@main.command()
@click.argument("profiles", nargs=-1, type=click.Path())
@click.option("--snapshot", "snapshot_file", default=None, type=click.Path(dir_okay=False, allow_dash=True),
              help="A snapshot file (gengpu snapshot, or kubectl get nodes,... -o yaml); - for standard input.")
@click.option("--context", default=None, help="Check the live cluster of this kubeconfig context instead.")
@click.option("--output", "fmt", type=click.Choice(FORMATS), default=None,
              help="Findings format (default text; github inside GitHub Actions).")
@click.option("--strict", is_flag=True, help="Exit 1 on warnings too.")
@click.option("-q", "--quiet", is_flag=True, help="No progress on stderr, no summary line.")
@_guarded
def check(profiles, snapshot_file, context, fmt, strict, quiet):
    """Check a running cluster against its profile: what each GPU node offers against what its pool promises.

    \b
    PROFILES default to profiles/*.yaml; the one whose pools the nodes
    belong to is used. Each node is mapped to its pool (gengpu.dev/pool,
    karpenter.sh/nodepool, the clouds' node pool labels) and checked for:
    GPUs, shared GPUs or MIG devices it advertises (or DRA devices it
    publishes), unhealthy GPUs, readiness, the MIG state, the sharing config
    it runs, its driver version; then the GPU Operator's status and pending
    pods no node can take. Findings point at the profile line of the promise.
    Read-only: nothing is ever written to the cluster.

    Exit status: 0 clean, 1 findings that are errors, 2 usage or environment
    error (an unreachable API server, RBAC refusing nodes).
    """
    from gengpu import pipeline, reporting
    from gengpu.findings import UsageError

    if snapshot_file is not None and context is not None:
        raise UsageError("give either --snapshot FILE or --context NAME, not both")
    fmt = fmt or _default_format()
    result = pipeline.check(list(profiles), snapshot_file, context, progress=not quiet)
    findings = result.findings
    color = fmt == "text" and reporting.use_color(sys.stdout)
    out = reporting.text(findings, color) if fmt == "text" else reporting.REPORTERS[fmt](findings)
    if out:
        click.echo(out, color=color)
    if fmt == "text" and not quiet:
        errors = sum(f.severity == "error" for f in findings)
        verdict = f"{errors} error(s), {len(findings) - errors} other finding(s)" if findings else "no findings"
        click.echo(f"gengpu: {result.summary()}: {verdict}.", err=True)
    sys.exit(reporting.exit_code(findings, strict))


@main.command()
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
@click.option("--until", default=None, metavar="TIME",
              help="End of the window, RFC 3339 or unix seconds (default: now; for --metrics, its last sample).")
@click.option("--min-hours", type=click.FloatRange(0), default=12, show_default=True,
              help="Data a pool's figures must cover before anything is proposed.")
@click.option("--output", "fmt", type=click.Choice(["text", "markdown", "json"]), default="text", show_default=True,
              help="Report format: text, markdown (for a pull-request comment) or json.")
@click.option("--write", is_flag=True, help="Apply the proposals to the profile (comments and order kept).")
@click.option("-q", "--quiet", is_flag=True, help="No progress on stderr.")
@_guarded
def rightsize(profiles, prometheus, metrics_file, snapshot_file, context, since, until, min_hours, fmt, write, quiet):
    """Propose, from what the GPUs really did, the profile change that packs pods on fewer GPUs, with its saving.

    \b
    Reads dcgm-exporter's series over the window (memory in use, activity;
    per GPU and per pod), puts each GPU in its pool through its node (the
    snapshot's or the live cluster's pool labels) and, per pool of whole
    GPUs: MIG instances (MIG-capable GPUs) or time-slicing replicas that hold
    every pod's peak memory plus 20% and its p95 activity, priced with
    `gengpu plan`'s tables; busy pools are kept. Never below an observed peak,
    never on less data than --min-hours. With --write the profile is changed
    (then `gengpu build` and open the pull request; `gengpu diff` shows the
    spend). Read-only towards Prometheus and the cluster.

    Exit status: 0 (proposals are advice), 1 unreadable metrics, 2 usage or
    environment error (Prometheus unreachable).
    """
    from gengpu import pipeline, reporting
    from gengpu.findings import UsageError
    from gengpu.reporting import rightsize as report

    if (prometheus is None) == (metrics_file is None):
        raise UsageError("give either --prometheus URL or --metrics FILE")
    if snapshot_file is not None and context is not None:
        raise UsageError("give either --snapshot FILE or --context NAME, not both")
    result = pipeline.rightsize(list(profiles), snapshot_file, context, prometheus, metrics_file, since,
                                _time(until), min_hours, progress=not quiet)
    if fmt == "json":
        click.echo(report.as_json(result.recommendations, result.findings), nl=False)
    else:
        if result.findings:
            click.echo(reporting.text(result.findings), err=True)
        if result.recommendations:
            click.echo((report.markdown if fmt == "markdown" else report.text)(result.recommendations), nl=False)
    if write:
        for line in pipeline.write_proposals(result):
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


@main.command(name="diff")
@click.option("--base", required=True, help="Git revision to compare with, e.g. origin/main.")
@click.option("-o", "--output-dir", default="overlays", show_default=True, help="Folder of the overlays.")
@click.option("--exit-code", is_flag=True, help="Exit 1 when anything changes.")
@click.option("--output", type=click.Choice(["text", "markdown", "json"]), default="text", show_default=True,
              help="Report format: text, markdown (collapsible per resource, for a PR comment) or json.")
@_guarded
def diff(base, output_dir, exit_code, output):
    """Show what merging changes on each cluster: rendered resources added, removed or changed.

    Renders every overlay (and its Argo CD Application) at BASE and in the
    working tree with kustomize, and prints a per-cluster diff of every
    resource and every generated file beside them (Helm values, node pool
    scripts, placement components, verify workloads), new and removed ones in
    full, ready for a pull-request comment.
    """
    from gengpu import diffing

    report, changed = diffing.diff(base, output_dir, output)
    click.echo(report, nl=not report.endswith("\n"))
    sys.exit(1 if exit_code and changed else 0)


@main.command()
@click.argument("directory", default=".", type=click.Path(file_okay=False))
@click.option("--platform", type=click.Choice(["eks", "gke", "gke-autopilot", "aks"]), help="Kubernetes platform.")
@click.option("--gpu", shell_complete=_complete_gpus, help="GPU model id or alias, e.g. T4, L4, A100-40GB, H100-80GB.")
@click.option("--sharing", type=click.Choice(["none", "time-slicing", "mps", "mig"]), default=None,
              help="How the pool shares its GPUs (default none).")
@click.option("--replicas", type=click.IntRange(2), default=None, help="Pods per GPU for time-slicing and mps.")
@click.option("--name", default=None, help="Cluster name (default: the directory's name).")
@click.option("--repo-url", default=None,
              help="Git URL of the new repository, as Argo CD will know it (default: a placeholder to replace).")
@click.option("--region", default=None, help="Cloud region of the cluster (default: one the platform offers GPUs in).")
@click.option("--branch", default=None,
              help="Branch Argo CD follows (default: the directory's checked-out branch, else git's init.defaultBranch).")
@click.option("--hooks-repo", default=None, help="Repository of gengpu's hooks and lint workflow.")
@click.option("--hooks-rev", default=None, help="Release (git ref) of gengpu the hooks and workflow pin.")
@click.option("--gitops", type=click.Choice(["argocd", "flux"]), default="argocd", show_default=True,
              help="Who syncs the repository into the cluster.")
@_guarded
def init(directory, platform, gpu, sharing, replicas, name, repo_url, region, branch, hooks_repo, hooks_rev, gitops):
    """Start a GitOps repository: a profile, its overlays, pre-commit hooks, a CI lint job and the Argo CD root app.

    Run in a terminal without --platform or --gpu to be asked. Existing files are
    never overwritten.
    """
    from gengpu import catalog, mig, pipeline, scaffolding
    from gengpu.findings import UsageError

    mig_preset = "all-balanced"
    interactive = _stdin_is_terminal() and (platform is None or gpu is None)
    if (platform is None or gpu is None) and not interactive:
        raise UsageError("give --platform and --gpu (or run gengpu init in a terminal to be asked)")
    target = Path(directory)
    if interactive:
        platform = platform or click.prompt("Platform", type=click.Choice(["eks", "gke", "gke-autopilot", "aks"]))
        offered = sorted(catalog.platform_gpus(platform))

        def known_gpu(value: str) -> str:
            # the same ids and aliases --gpu takes
            gpu_id = catalog.resolve_gpu(value)
            if gpu_id not in offered:
                raise click.BadParameter(f"{value} is not a GPU {platform} offers; choose one of {', '.join(offered)}")
            return gpu_id

        gpu = gpu or click.prompt(f"GPU model ({', '.join(offered)})", value_proc=known_gpu)
        sharing = sharing or click.prompt("Sharing", type=click.Choice(["none", "time-slicing", "mps", "mig"]),
                                          default="none")
        if sharing in ("time-slicing", "mps") and replicas is None:
            replicas = click.prompt("Pods per GPU", type=click.IntRange(2), default=4)
        if sharing == "mig" and platform != "gke-autopilot" and mig.profiles(catalog.resolve_gpu(gpu)):
            presets = ["all-balanced"] + [f"all-{p.replace('+', '.')}" for p in mig.profiles(catalog.resolve_gpu(gpu))]
            mig_preset = click.prompt("MIG layout (every GPU of the pool alike; `gengpu mig layouts` shows more)",
                                      type=click.Choice(presets), default="all-balanced")
        region = region or click.prompt("Region", default=scaffolding.REGIONS[platform])
        repo_url = repo_url or click.prompt("Git URL of this repository (as Argo CD reaches it)",
                                            default=scaffolding.Choices.repo_url)
    from gengpu import names

    if name is not None and names.problem(name, "--name"):
        raise UsageError(names.problem(name, "--name"))
    choices = scaffolding.Choices(
        platform=platform, gpu=gpu, sharing=sharing or "none", replicas=replicas or 4,
        name=name or names.slug(target.resolve().name, "gpu-cluster"),
        repo_url=repo_url or scaffolding.Choices.repo_url, region=region,
        branch=branch or scaffolding.git_branch(target), mig_preset=mig_preset, hooks_repo=hooks_repo or scaffolding.DEFAULT_HOOKS_REPO,
        hooks_rev=hooks_rev or scaffolding.DEFAULT_HOOKS_REV, gitops=gitops)
    scaffolding.refuse_existing(target, choices)
    # Build the scaffold in a scratch folder first: a profile that fails gengpu's own checks leaves nothing behind.
    import dataclasses
    import tempfile

    with tempfile.TemporaryDirectory(prefix="gengpu-init-") as scratch:
        stage = Path(scratch) / target.name
        scaffolding.write(stage, choices)
        trial = pipeline.build(sorted(str(p) for p in (stage / "profiles").glob("*.yaml")), stage / "overlays",
                               check=False, full=True, cache=False)
        problems = trial.findings if trial.blocked else [
            f for f in pipeline.validate([str(stage / "profiles"), *map(str, (stage / "overlays").iterdir()),
                                          *[str(p) for p in (stage / "argocd",) if p.is_dir()],
                                          *[str(p) for o in (stage / "overlays").iterdir()
                                            for p in (o / "flux", o / "flux" / "operator") if p.is_dir()]],
                                         cache=False).findings if f.is_error]
        if problems:
            from gengpu import reporting

            shown = [dataclasses.replace(f, file=f.file.replace(str(stage), pipeline.display(target)))
                     for f in problems]
            click.echo(reporting.text(shown), err=True)
            raise UsageError("the profile these choices make does not pass gengpu's checks; nothing was written")
    target.mkdir(parents=True, exist_ok=True)
    written = scaffolding.write(target, choices)
    result = pipeline.build(sorted(str(p) for p in (target / "profiles").glob("*.yaml")), target / "overlays",
                            check=False, full=True, cache=False)
    for rel in written:
        click.echo(f"wrote {pipeline.display(target / rel)}")
    for plan in result.plans:
        if plan.desired:  # (argocd/ has nothing when Flux syncs the cluster)
            click.echo(f"wrote {pipeline.display(plan.folder)}/")
    gpu_id = catalog.resolve_gpu(choices.gpu)
    if gpu_id and gpu_id.lower() != str(choices.gpu).lower():
        click.echo(f"note: GPU {choices.gpu} is {gpu_id} (`gengpu catalog gpus` lists every model and alias)")
    if choices.gitops == "flux":
        click.echo(f"note: point a Flux Kustomization of the cluster's bootstrap path at ./overlays/{choices.name}/flux "
                   "(it syncs the overlay, then the GPU Operator's HelmRelease)")
    elif choices.repo_url == scaffolding.Choices.repo_url:
        click.echo(f"note: Argo CD would sync {choices.repo_url}, a placeholder: set spec.argocd.repoURL in "
                   f"profiles/{choices.name}.yaml and run `gengpu build`")
    click.echo("Next: git init && pre-commit install && git add -A && git commit -m 'GPU GitOps'")


def _stdin_is_terminal() -> bool:
    return sys.stdin.isatty()

