"""What a build may not do to the overlays folder: write over a file of yours, delete an edited file, remove a
folder that holds yours, or go on as if a killed build had finished. The writing plan says what it found; the
rules here turn that into findings (their texts live in checking/rules/structural.py)."""

from __future__ import annotations

from pathlib import Path

from gengpu import writing
from gengpu.findings import Finding, display


FILE, NO_LINE = (1, 1), (0, 0)  # a whole file: its start; a folder or a journal: no line


def _finding(rule_id: str, file: str, at: tuple[int, int], message: str) -> Finding:
    from gengpu.checking.rules import finding

    return finding(rule_id, file, *at, message)


def interrupted(out_dir: Path) -> Finding:
    """build-interrupted: the journal of a killed build is still there."""
    return _finding("build-interrupted", display(out_dir / writing.JOURNAL), NO_LINE,
                    f"a build was killed while it wrote {display(out_dir)}/; they may be part old, part new")


def plan_findings(plan: writing.OverlayPlan) -> list[Finding]:
    """not-generated-file, overlay-orphaned and generated-file-edited, from one overlay's writing plan."""
    out = [_finding("not-generated-file", display(plan.folder / rel if rel != "." else plan.folder), FILE, why)
           for rel, why in plan.conflicts]
    if plan.orphan and plan.kept:
        what = ", ".join(f"{rel} ({why})" for rel, why in sorted(plan.kept)[:3]) + (" ..." if len(plan.kept) > 3 else "")
        out.append(_finding("overlay-orphaned", display(plan.folder), NO_LINE,
                            f"no profile generates {plan.name}/ any more, and gengpu will not remove it: {what}"))
    elif plan.kept:
        out += [_finding("generated-file-edited", display(plan.folder / rel), FILE,
                         f"{rel} is no longer generated, but gengpu leaves it: {why}") for rel, why in plan.kept]
    return out
