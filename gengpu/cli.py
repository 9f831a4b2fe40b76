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
    """Compile GPU profiles into Argo CD-ready Kustomize overlays, and validate profiles and overlays.

    \b
    gengpu build              compile profiles/*.yaml into overlays/<name>/
    gengpu build --check      fail (exit 1) when committed overlays are stale
    gengpu validate           check profiles, render overlays with kustomize, check them with kubeconform
    gengpu schema             print the profile JSON Schema
    """


@main.command()
@click.argument("profiles", nargs=-1, type=click.Path(dir_okay=False, path_type=str))
@click.option("-o", "--output-dir", default="overlays", show_default=True, type=click.Path(file_okay=False),
              help="Folder that holds one overlay folder per profile.")
@click.option("--check", is_flag=True, help="Write nothing; exit 1 and show a diff for every missing, stale or extra file.")
@click.option("--output", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="Format of findings.")
@_guarded
def build(profiles, output_dir, check, fmt):
    """Compile PROFILES (default: every profiles/*.yaml) into overlays.

    A profile with errors stops the build before anything is written, so the
    overlays on disk stay as they were. Files gengpu did not generate are never
    overwritten or deleted.
    """
    from gengpu import pipeline, reporting, writing

    out_dir = Path(output_dir)
    result = pipeline.build(list(profiles), out_dir, check)
    if result.findings:
        click.echo(reporting.REPORTERS[fmt](result.findings), err=fmt == "text")
    if result.blocked:
        click.echo("gengpu: build stopped by the errors above; no overlay was written.", err=True)
        sys.exit(1)
    shown = pipeline.display(out_dir)
    changed = [p for p in result.plans if p.changed]
    if check:
        for plan in changed:
            for kind, names in (("missing", plan.missing), ("stale", plan.stale), ("extra", plan.extra)):
                for name in names:
                    click.echo(f"{kind}: {shown}/{plan.name}/{name}")
        for plan in changed:
            click.echo(writing.diff(plan, shown), nl=False)
        if changed:
            click.echo(f"gengpu: {len(changed)} overlay(s) out of date; run `gengpu build` and commit the result.",
                       err=True)
            sys.exit(1)
        click.echo(f"{len(result.plans)} overlay(s) up to date.")
        return
    for plan in result.plans:
        state = "removed" if not plan.desired and plan.changed else ("written" if plan.changed else "unchanged")
        click.echo(f"{state}: {shown}/{plan.name}/")


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=str))
@click.option("--output", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--strict", is_flag=True, help="Exit 1 on warnings too.")
@click.option("--kubernetes-version", default=None, metavar="X.Y",
              help="Kubernetes schemas for overlays that do not name their version (default 1.37).")
@_guarded
def validate(paths, fmt, strict, kubernetes_version):
    """Validate profiles and overlays (default: profiles/ and overlays/*).

    Profiles are checked against the profile schema and gengpu's rules. An
    overlay folder is rendered with `kustomize build` and every resource is
    checked by `kubeconform -strict` against the Kubernetes and CRD schemas
    committed under schemas/; a kind without a schema is an error, never a skip.

    Exit status: 0 clean, 1 findings, 2 usage or environment error.
    """
    from gengpu import pipeline, reporting

    findings = pipeline.validate(list(paths), kubernetes_version)
    out = reporting.REPORTERS[fmt](findings)
    if out:
        click.echo(out)
    code = reporting.exit_code(findings, strict)
    if fmt == "text":
        errors = sum(f.severity == "error" for f in findings)
        click.echo(f"{errors} error(s), {len(findings) - errors} other finding(s)." if findings else "No findings.",
                   err=True)
    sys.exit(code)


@main.command()
@_guarded
def schema():
    """Print the profile JSON Schema (draft 2020-12) for editors and check-jsonschema."""
    from gengpu.schemas_dir import schemas_path

    click.echo((schemas_path() / "profile.schema.json").read_text(encoding="utf-8"), nl=False)
