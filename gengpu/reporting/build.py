"""What a build wrote, or what `build --check` found out of date: one line per overlay folder or stale file."""

from __future__ import annotations

from gengpu.findings import display


def written(plans, quiet: bool) -> str:
    """One line per overlay folder: written, removed, or (unless quiet) unchanged."""
    lines = []
    for plan in plans:
        if not plan.changed and not plan.folder.exists():
            continue  # argocd/ of a repository whose clusters Flux syncs
        if plan.changed or not quiet:
            state = "removed" if not plan.desired and plan.changed else ("written" if plan.changed else "unchanged")
            lines.append(f"{state}: {display(plan.folder)}/\n")
    return "".join(lines)


def stale(plans) -> str:
    """Every missing, stale and extra file of the plans that change something, then their diffs."""
    lines = [f"{kind}: {display(plan.folder)}/{name}\n" for plan in plans
             for kind, names in (("missing", plan.missing), ("stale", plan.stale), ("extra", plan.extra))
             for name in names]
    return "".join(lines) + "".join(diff(plan, display(plan.folder.parent)) for plan in plans)


def diff(plan, display_root: str) -> str:
    """A unified diff of every file of the plan that is missing, stale or extra, as `git diff` shows it."""
    from gengpu.writing import read_text

    import difflib  # only when a diff is shown

    chunks = []
    for rel in sorted(plan.missing + plan.stale + plan.extra):
        old = (read_text(plan.folder / rel) or "") if rel not in plan.missing else ""
        new = plan.desired.get(rel, "")
        label = f"{display_root}/{plan.name}/{rel}"
        chunks.extend(difflib.unified_diff(
            old.splitlines(keepends=True), new.splitlines(keepends=True),
            fromfile=f"a/{label}" if rel not in plan.missing else "/dev/null",
            tofile=f"b/{label}" if rel in plan.desired else "/dev/null"))
    return "".join(chunks)
