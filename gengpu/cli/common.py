"""What every command shares: errors as one line and an exit code, the findings formats, shell completion."""

from __future__ import annotations

import functools
import os
import sys

import click

EXIT_USAGE = 2
FORMATS = ["text", "json", "github", "sarif", "junit"]


def guarded(fn):
    """Usage and environment problems exit 2 with one clear line, never a traceback."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        from gengpu.findings import UsageError

        try:
            return fn(*args, **kwargs)
        except UsageError as exc:
            from gengpu.reporting.safe import shown

            # (what it quotes from an API server or Prometheus is escaped where it is quoted; its own lines stay)
            click.echo(f"gengpu: error: {shown(str(exc), lines=True)}", err=True)
            sys.exit(EXIT_USAGE)
        except (KeyboardInterrupt, click.exceptions.Abort):  # Ctrl-C, or input ended while a question waits
            click.echo("gengpu: aborted", err=True)
            sys.exit(130)
        except BrokenPipeError:
            # The reader went away (`gengpu rules | head`): stop quietly, as other command-line tools do.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            sys.exit(141)
        except OSError as exc:  # a read-only folder, a full disk: the environment, not the input
            where = f"{exc.filename}: " if exc.filename else ""
            from gengpu.reporting.safe import shown

            click.echo(f"gengpu: error: {shown(where + str(exc.strerror or exc))}", err=True)
            sys.exit(EXIT_USAGE)
        except Exception as exc:  # a bug in gengpu, not in the input
            if os.environ.get("GENGPU_DEBUG"):
                raise
            from gengpu.reporting.safe import shown

            click.echo(f"gengpu: internal error: {type(exc).__name__}: {shown(str(exc))} "
                       "(set GENGPU_DEBUG=1 for the traceback and report it)", err=True)
            sys.exit(3)

    return wrapper


def complete_rules(ctx, param, incomplete):
    """Shell completion of rule ids (`gengpu explain <TAB>`)."""
    from gengpu.checking.rules import RULES

    return [r for r in sorted(RULES) if r.startswith(incomplete)]


def complete_gpus(ctx, param, incomplete):
    """Shell completion of GPU model ids (`--gpu <TAB>`, `gengpu mig layouts <TAB>`)."""
    from gengpu import catalog

    return [g for g in catalog.gpus() if g.lower().startswith(incomplete.lower())]



def shard_option(value: str | None):
    """--shard I/N as (I, N), 1 <= I <= N."""
    if value is None:
        return None
    index, _, count = value.partition("/")
    if not (index.isdecimal() and count.isdecimal() and 1 <= int(index) <= int(count)):
        raise click.BadParameter(f"'{value}' is not I/N with 1 <= I <= N (for example 2/4)")
    return int(index), int(count)


def default_format() -> str:
    # In GitHub Actions, findings become annotations on the pull request's lines.
    return "github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text"



def report_findings(findings, fmt: str | None, quiet: bool, summary: str, strict: bool) -> int:
    """Print findings in the chosen format (text: coloured on a terminal, then a summary line on stderr) and return
    the exit code they call for."""
    from gengpu import reporting

    fmt = fmt or default_format()
    color = fmt == "text" and reporting.use_color(sys.stdout)
    out = reporting.text(findings, color) if fmt == "text" else reporting.REPORTERS[fmt](findings)
    if out:
        click.echo(out, color=color)
    if fmt == "text" and not quiet:
        errors = sum(f.severity == "error" for f in findings)
        verdict = f"{errors} error(s), {len(findings) - errors} other finding(s)" if findings else "no findings"
        click.echo(f"gengpu: {summary}: {verdict}.", err=True)
    return reporting.exit_code(findings, strict)
