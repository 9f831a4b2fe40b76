"""Repository commands: build, validate, diff, plan and init. Each parses its options, calls its flow in
gengpu/pipeline/ and hands the result to gengpu/reporting/."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from gengpu.cli.common import FORMATS, complete_gpus, default_format, guarded, report_findings, shard_option
from gengpu.findings import display


@click.command()
@click.argument("profiles", nargs=-1, type=click.Path(path_type=str))
@click.option("-o", "--output-dir", default="overlays", show_default=True, type=click.Path(file_okay=False),
              help="Folder that holds one overlay folder per profile.")
@click.option("--check", is_flag=True, help="Write nothing; exit 1 and show a diff for every missing, stale or extra file.")
@click.option("--changed", is_flag=True,
              help="Treat the arguments as changed files (profiles or overlay files) and build only the profiles "
                   "they affect: what the pre-commit hook runs.")
@click.option("--output", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="Format of findings.")
@click.option("--shard", default=None, metavar="I/N", callback=lambda c, p, v: shard_option(v),
              help="With --check: only the I-th of N parts of the fleet (a CI matrix); the parts never overlap.")
@click.option("--no-cache", is_flag=True, help="Compile every profile; ignore and do not write .cache/gengpu/.")
@click.option("-q", "--quiet", is_flag=True, help="No progress on stderr; list only overlays that change.")
@guarded
def build(profiles, output_dir, check, changed, fmt, shard, no_cache, quiet):
    """Compile PROFILES (default: every profiles/*.yaml) into overlays, and argocd/ beside them.

    A profile with errors stops the build before anything is written, so the
    overlays on disk stay as they were. Files gengpu did not generate are never
    overwritten or deleted; put your own patches in overlays/<name>/local/.
    """
    from gengpu import reporting
    from gengpu.findings import UsageError
    from gengpu.pipeline import build as flow
    from gengpu.reporting import build as report

    if shard and not check:
        raise UsageError("--shard splits the work of `build --check`; a build that writes covers the whole fleet")
    out_dir = Path(output_dir)
    result = flow.build(list(profiles), out_dir, check, changed, cache=not no_cache, shard=shard, progress=not quiet)
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
    if not check:
        click.echo(report.written(result.plans, quiet), nl=False, err=machine)
        return
    stale = [p for p in result.plans if p.changed]
    click.echo(report.stale(stale), nl=False, err=machine)
    if stale:
        click.echo(f"gengpu: {len(stale)} overlay(s) out of date; run `gengpu build` and commit the result.", err=True)
        sys.exit(1)
    if not quiet:
        overlays = sum(p.folder != out_dir.parent / flow.ARGOCD_DIR for p in result.plans)
        click.echo(f"{overlays} overlay(s) up to date.", err=machine)


@click.command()
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
@click.option("--shard", default=None, metavar="I/N", callback=lambda c, p, v: shard_option(v),
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
@guarded
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
    from gengpu.findings import UsageError
    from gengpu.pipeline import validate as flow

    if write_baseline and (baseline_file or no_baseline):
        raise UsageError("--write-baseline records every finding; give it without --baseline or --no-baseline")
    accepted = None
    from gengpu import baseline  # (small; its YAML and loading imports wait until a baseline is read)

    if write_baseline or baseline_file or (not no_baseline and baseline.settings_path() is not None):

        accepted_from = None if (no_baseline or write_baseline) else (baseline_file or baseline.settings_baseline())
        accepted = baseline.load(accepted_from) if accepted_from else None  # a bad baseline stops before the work
    fmt = fmt or default_format()
    paths = list(paths)
    stdin_file = None
    if "-" in paths:  # a manifest piped in: `kubectl get ds -A -o yaml | gengpu validate -`
        import tempfile

        stdin_file = Path(tempfile.mkdtemp(prefix="gengpu-stdin-")) / "stdin.yaml"
        stdin_file.write_bytes(sys.stdin.buffer.read())
        paths = [str(stdin_file) if p == "-" else p for p in paths]
    try:
        result = flow.validate(paths, kubernetes_version, profile, kind, engine=engine, jobs=jobs, shard=shard,
                               cache=not no_cache, progress=not quiet)
    finally:
        if stdin_file is not None:
            import shutil

            shutil.rmtree(stdin_file.parent, ignore_errors=True)
    if stdin_file is not None:
        import dataclasses

        shown = display(stdin_file)
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
    # against a baseline every new finding fails: the baseline is where old ones are accepted
    sys.exit(report_findings(findings, fmt, quiet, result.summary(), strict or accepted is not None))


@click.command()
@click.argument("profiles", nargs=-1, type=click.Path())
@click.option("--output", type=click.Choice(["text", "markdown", "json"]), default="text", show_default=True,
              help="Report format.")
@click.option("-o", "--output-dir", default="overlays", show_default=True, help="Folder of the overlays.")
@guarded
def plan(profiles, output, output_dir):
    """Estimate what each GPU pool may cost and which cloud quotas its limits need.

    For every pool of PROFILES (default: every profiles/*.yaml): GPUs at the
    minimum and at the limit, the hourly price per GPU and per shared slice or
    MIG instance, on-demand and spot, the monthly cost at the limit, and the
    regional quota the limits need, summed over the fleet per region and quota.
    Figures are estimates from list prices, each traceable to the dated source in
    gengpu/data/prices.yaml. Profiles with errors are reported and left out.
    """
    from gengpu import planning, reporting
    from gengpu.pipeline.profiles import load_profiles, profile_files
    from gengpu.reporting import plan as plan_report

    loaded = load_profiles(profile_files(list(profiles)), Path(output_dir))
    errors = [f for f in loaded.findings if f.severity == "error"]
    if errors:
        click.echo(reporting.text(errors), err=True)
    plans = [p for c in loaded.profiles if c.profile is not None for p in planning.plan_profile(c.profile)]
    click.echo(plan_report.render(plans, output), nl=False)
    sys.exit(1 if errors else 0)


@click.command(name="diff")
@click.option("--base", required=True, help="Git revision to compare with, e.g. origin/main.")
@click.option("-o", "--output-dir", default="overlays", show_default=True, help="Folder of the overlays.")
@click.option("--exit-code", is_flag=True, help="Exit 1 when anything changes.")
@click.option("--output", type=click.Choice(["text", "markdown", "json"]), default="text", show_default=True,
              help="Report format: text, markdown (collapsible per resource, for a PR comment) or json.")
@guarded
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


@click.command()
@click.argument("directory", default=".", type=click.Path(file_okay=False))
@click.option("--platform", type=click.Choice(["eks", "gke", "gke-autopilot", "aks"]), help="Kubernetes platform.")
@click.option("--gpu", shell_complete=complete_gpus, help="GPU model id or alias, e.g. T4, L4, A100-40GB, H100-80GB.")
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
@click.option("--monitoring", type=click.Choice(["service-monitor", "scrape-config", "gke-managed", "none"]),
              default=None, help="How GPU metrics reach Prometheus: a Prometheus Operator ServiceMonitor (needs its "
              "CRDs), a plain Prometheus scrape job, GKE's managed DCGM metrics, or none (default: gke-managed on "
              "GKE, else service-monitor).")
@guarded
def init(directory, platform, gpu, sharing, replicas, name, repo_url, region, branch, hooks_repo, hooks_rev, gitops,
         monitoring):
    """Start a GitOps repository: a profile, its overlays, pre-commit hooks, a CI lint job and the Argo CD root app.

    Run in a terminal without --platform or --gpu to be asked. Existing files are
    never overwritten.
    """
    from gengpu import catalog, mig, scaffolding
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
        if monitoring is None:
            monitoring = click.prompt(
                "GPU metrics (service-monitor needs Prometheus Operator; scrape-config suits a plain Prometheus)",
                type=click.Choice(scaffolding.monitoring_modes(platform)), default=scaffolding.monitoring_mode(platform))
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
        hooks_rev=hooks_rev or scaffolding.DEFAULT_HOOKS_REV, gitops=gitops,
        monitoring=monitoring or scaffolding.monitoring_mode(platform))
    from gengpu import reporting
    from gengpu.pipeline import init as flow

    try:
        written, result = flow.init(target, choices)
    except flow.ScaffoldRefused as refused:
        click.echo(reporting.text(refused.findings), err=True)
        raise
    for rel in written:
        click.echo(f"wrote {display(target / rel)}")
    for plan in result.plans:
        if plan.desired:  # (argocd/ has nothing when Flux syncs the cluster)
            click.echo(f"wrote {display(plan.folder)}/")
    gpu_id = catalog.resolve_gpu(choices.gpu)
    if gpu_id and gpu_id.lower() != str(choices.gpu).lower():
        click.echo(f"note: GPU {choices.gpu} is {gpu_id} (`gengpu catalog gpus` lists every model and alias)")
    if monitoring is None and choices.monitoring == "service-monitor":
        click.echo("note: GPU metrics reach Prometheus through a Prometheus Operator ServiceMonitor; for a plain "
                   "Prometheus use --monitoring scrape-config (or set spec.monitoring.mode)")
    if choices.gitops == "flux":
        click.echo(f"note: point a Flux Kustomization of the cluster's bootstrap path at ./overlays/{choices.name}/flux "
                   "(it syncs the namespace and configs, then the GPU Operator's HelmRelease, then the node pools and "
                   "monitoring objects)")
    elif choices.repo_url == scaffolding.Choices.repo_url:
        click.echo(f"note: Argo CD would sync {choices.repo_url}, a placeholder: set spec.argocd.repoURL in "
                   f"profiles/{choices.name}.yaml and run `gengpu build`")
    click.echo("Next: git init && pre-commit install && git add -A && git commit -m 'GPU GitOps'")


def _stdin_is_terminal() -> bool:
    return sys.stdin.isatty()

