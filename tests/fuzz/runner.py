"""Run gengpu on one fuzz case, in-process, the way a user or CI would: validate, then build.

An outcome holds each command's exit code, the rules that fired, and the text
of an internal error. Exit 3 is a bug by definition: every failure on input
must be a finding (exit 1) or an environment error (exit 2).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from click.testing import CliRunner

from .mutator import Case


@dataclass
class Outcome:
    case: int
    codes: dict = field(default_factory=dict)  # command -> exit code
    rules: tuple = ()  # rule ids validate reported, sorted
    internal: str = ""  # the internal error message or traceback, when there was one

    @property
    def crashed(self) -> bool:
        return any(code not in (0, 1, 2) for code in self.codes.values()) or bool(self.internal)

    @property
    def disagree(self) -> bool:
        """validate and build disagree on whether a profile has errors."""
        return "build" in self.codes and (self.codes["validate"] == 1) != (self.codes["build"] == 1)

    @property
    def finding_class(self) -> str:
        return self.rules[0] if self.rules else "clean"


def _invoke(args, cwd: Path):
    import os

    from gengpu.cli import main

    old = os.getcwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(main, args, catch_exceptions=True)
    finally:
        os.chdir(old)


def run(case: Case, workdir: Path) -> Outcome:
    """validate the case's file (profiles as the default set, as in a repository), then build it."""
    out = Outcome(case.number)
    folder = workdir / ("profiles" if case.kind == "profile" else "manifests")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / case.name).write_bytes(case.content)
    args = ["validate", "--output", "json"] + ([] if case.kind == "profile" else [f"manifests/{case.name}"])
    result = _invoke(args, workdir)
    out.codes["validate"] = result.exit_code
    _internal(out, result)
    try:
        out.rules = tuple(sorted({f["rule"] for f in json.loads(result.stdout)["findings"]}))
    except (ValueError, KeyError, TypeError):
        out.rules = ()
    if case.kind == "profile":
        result = _invoke(["build", f"profiles/{case.name}"], workdir)
        out.codes["build"] = result.exit_code
        _internal(out, result)
    return out


def _internal(out: Outcome, result) -> None:
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        import traceback

        out.internal += "".join(traceback.format_exception(result.exception))
    elif "internal error" in (result.output or ""):
        out.internal += result.output
