"""Stage 6, write: compare overlays on disk with the compiled ones, and swap in changes atomically.

gengpu owns only files that start with its header. Anything else in an overlay
folder belongs to the user: it is never overwritten or deleted, and it is
carried over when the folder is swapped.
"""

from __future__ import annotations

import difflib
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from gengpu.compiling.yamltext import is_generated


@dataclass
class OverlayPlan:
    name: str
    folder: Path
    desired: dict[str, str]  # relative path (posix) -> text
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


def _files(folder: Path) -> dict[str, Path]:
    if not folder.is_dir():
        return {}
    return {p.relative_to(folder).as_posix(): p for p in sorted(folder.rglob("*")) if p.is_file()}


def generated_files(folder: Path) -> dict[str, str]:
    """Relative path -> text of the files in folder that gengpu generated."""
    out = {}
    for rel, path in _files(folder).items():
        text = _read(path)
        if text is not None and is_generated(text):
            out[rel] = text
    return out


def plan_overlay(root: Path, name: str, desired: dict[str, str]) -> OverlayPlan:
    folder = root / name
    plan = OverlayPlan(name, folder, desired)
    existing = _files(folder)
    for rel, text in desired.items():
        if rel not in existing:
            # A user's file in the way of a generated folder is a conflict too.
            blocked = any(parent in existing for parent in _parents(rel))
            (plan.conflicts if blocked else plan.missing).append(rel)
            continue
        current = _read(existing[rel])
        if current is None or not is_generated(current):
            plan.conflicts.append(rel)
        elif current != text:
            plan.stale.append(rel)
    for rel, path in existing.items():
        if rel not in desired and is_generated(_read(path) or ""):
            plan.extra.append(rel)
    return plan


def _parents(rel: str) -> list[str]:
    parts = rel.split("/")[:-1]
    return ["/".join(parts[: i + 1]) for i in range(len(parts))]


def plan_orphan(root: Path, name: str) -> OverlayPlan:
    """An overlay folder whose profile is gone: its generated files are extra."""
    return plan_overlay(root, name, {})


def diff(plan: OverlayPlan, display_root: str) -> str:
    chunks = []
    for rel in sorted(plan.missing + plan.stale + plan.extra):
        old = (_read(plan.folder / rel) or "") if rel not in plan.missing else ""
        new = plan.desired.get(rel, "")
        label = f"{display_root}/{plan.name}/{rel}"
        chunks.extend(difflib.unified_diff(
            old.splitlines(keepends=True), new.splitlines(keepends=True),
            fromfile=f"a/{label}" if rel not in plan.missing else "/dev/null",
            tofile=f"b/{label}" if rel in plan.desired else "/dev/null"))
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
    kept = 0
    try:
        for rel, path in _files(plan.folder).items():
            if rel in plan.desired or rel in plan.extra:
                continue
            target = new / rel  # the user's file, carried over as it is
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target, follow_symlinks=False)
            kept += 1
        for rel, text in plan.desired.items():
            target = new / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
            if text.startswith("#!"):
                os.chmod(target, 0o755)
    except BaseException:
        shutil.rmtree(new, ignore_errors=True)
        raise
    if not plan.desired and not kept:
        # An orphan overlay with nothing of the user's left: remove it.
        shutil.rmtree(new)
        plan.folder.rename(old)
        shutil.rmtree(old)
        return
    if plan.folder.is_dir():
        plan.folder.rename(old)
        new.rename(plan.folder)
        shutil.rmtree(old)
    else:
        new.rename(plan.folder)
