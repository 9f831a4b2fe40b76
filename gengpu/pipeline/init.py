"""gengpu init: a new GitOps repository from a few choices.

choices -> the scaffold written into a scratch folder -> built and validated there (a profile that fails gengpu's
own checks leaves nothing behind) -> written into the target -> built there.
"""

from __future__ import annotations

import dataclasses
import tempfile
from pathlib import Path

from gengpu.findings import Finding, UsageError, display
from gengpu.loading.folders import flux_folders
from gengpu.pipeline.build import BuildResult, build
from gengpu.pipeline.validate import validate


class ScaffoldRefused(UsageError):
    """The choices make a profile that fails gengpu's checks: its findings, named as in the target folder."""

    def __init__(self, findings: list[Finding]):
        super().__init__("the profile these choices make does not pass gengpu's checks; nothing was written")
        self.findings = findings


def init(target: Path, choices) -> tuple[list[str], BuildResult]:
    """Write the scaffold of choices into target and build it; returns the files written and the build."""
    from gengpu import scaffolding

    scaffolding.refuse_existing(target, choices)
    with tempfile.TemporaryDirectory(prefix="gengpu-init-") as scratch:
        stage = Path(scratch) / target.name
        scaffolding.write(stage, choices)
        problems = _trial(stage)
        if problems:
            raise ScaffoldRefused([dataclasses.replace(f, file=f.file.replace(str(stage), display(target)))
                                   for f in problems])
    target.mkdir(parents=True, exist_ok=True)
    written = scaffolding.write(target, choices)
    return written, _build_all(target)


def _build_all(root: Path) -> BuildResult:
    return build(sorted(str(p) for p in (root / "profiles").glob("*.yaml")), root / "overlays", check=False,
                 full=True, cache=False)


def _trial(stage: Path) -> list[Finding]:
    """The errors of building the scaffold and validating what it wrote (profiles, overlays, argocd/, flux/)."""
    trial = _build_all(stage)
    if trial.blocked:
        return trial.findings
    overlays = list((stage / "overlays").iterdir())
    targets = [str(stage / "profiles"), *map(str, overlays), *[str(p) for p in (stage / "argocd",) if p.is_dir()],
               *[str(p) for o in overlays for p in flux_folders(o) if p.is_dir()]]
    return [f for f in validate(targets, cache=False).findings if f.is_error]
