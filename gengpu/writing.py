"""Stage 6, write: compare overlays on disk with the compiled ones, and swap in changes atomically.

gengpu owns only files that start with its header. Anything else in an overlay
folder belongs to the user: it is never overwritten or deleted, and it is
carried over when the folder is swapped.
"""

from __future__ import annotations

import difflib
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from gengpu.compiling.yamltext import is_generated


@dataclass
class OverlayPlan:
    name: str
    folder: Path
    desired: dict[str, str]
    missing: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)  # user files where gengpu wants to write

    @property
    def changed(self) -> bool:
        return bool(self.missing or self.stale or self.extra)


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def plan_overlay(root: Path, name: str, desired: dict[str, str]) -> OverlayPlan:
    folder = root / name
    plan = OverlayPlan(name, folder, desired)
    existing = {p.name: p for p in folder.iterdir() if p.is_file()} if folder.is_dir() else {}
    for fname, text in desired.items():
        if fname not in existing:
            plan.missing.append(fname)
            continue
        current = _read(existing[fname])
        if current is None or not is_generated(current):
            plan.conflicts.append(fname)
        elif current != text:
            plan.stale.append(fname)
    for fname, path in sorted(existing.items()):
        if fname not in desired and is_generated(_read(path) or ""):
            plan.extra.append(fname)
    return plan


def plan_orphan(root: Path, name: str) -> OverlayPlan:
    """An overlay folder whose profile is gone: its generated files are extra."""
    return plan_overlay(root, name, {})


def diff(plan: OverlayPlan, display_root: str) -> str:
    chunks = []
    for fname in sorted(plan.missing + plan.stale + plan.extra):
        path = plan.folder / fname
        old = (_read(path) or "") if fname not in plan.missing else ""
        new = plan.desired.get(fname, "")
        label = f"{display_root}/{plan.name}/{fname}"
        chunks.extend(difflib.unified_diff(
            old.splitlines(keepends=True), new.splitlines(keepends=True),
            fromfile=f"a/{label}" if fname not in plan.missing else "/dev/null",
            tofile=f"b/{label}" if fname in plan.desired else "/dev/null"))
    return "".join(chunks)


def apply(plan: OverlayPlan) -> None:
    """Build the new folder beside the old one, then swap them with two renames."""
    if not plan.changed:
        return
    root = plan.folder.parent
    root.mkdir(parents=True, exist_ok=True)
    new = root / f".{plan.name}.gengpu-new"
    old = root / f".{plan.name}.gengpu-old"
    for leftover in (new, old):
        if leftover.exists():
            shutil.rmtree(leftover)
    new.mkdir()
    try:
        if plan.folder.is_dir():
            for entry in plan.folder.iterdir():
                if entry.name in plan.desired or entry.name in plan.extra:
                    continue
                if entry.is_dir():
                    shutil.copytree(entry, new / entry.name, symlinks=True)
                else:
                    shutil.copy2(entry, new / entry.name, follow_symlinks=False)
        for fname, text in plan.desired.items():
            (new / fname).write_text(text, encoding="utf-8")
    except BaseException:
        shutil.rmtree(new, ignore_errors=True)
        raise
    if not plan.desired and not any(new.iterdir()):
        # An orphan overlay with nothing of the user's left: remove it.
        new.rmdir()
        plan.folder.rename(old)
        shutil.rmtree(old)
        return
    if plan.folder.is_dir():
        plan.folder.rename(old)
        new.rename(plan.folder)
        shutil.rmtree(old)
    else:
        new.rename(plan.folder)
