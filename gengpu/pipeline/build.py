"""gengpu build: profiles -> overlays/<name>/ and argocd/, written only where something changed.

load profiles -> (stop on errors) -> compile each changed profile -> plan every overlay's files against the tree
-> ownership findings -> write through the journal -> record what is now generated.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from gengpu import filewrites, fleet, stages, writing
from gengpu.checking import documents, ownership
from gengpu.findings import Finding, sort_findings
from gengpu.headers import is_generated
from gengpu.pipeline.profiles import Checked, Loaded, Source, load_profiles, profile_files


@dataclass
class BuildResult:
    findings: list[Finding]
    plans: list[writing.OverlayPlan]
    blocked: bool  # errors stopped the build: nothing was written
    notes: list[str] = field(default_factory=list)  # what recovery after an interrupted build did


def _orphans(out_dir: Path, keep: set[str]) -> list[str]:
    """Overlay folders with a generated kustomization that no profile of the build generates."""
    if not out_dir.is_dir():
        return []
    orphans = []
    for name in sorted(os.listdir(out_dir)):
        if name.startswith(".") or name in keep:
            continue
        folder = out_dir / name
        k = folder / "kustomization.yaml"
        if folder.is_symlink() or not folder.is_dir():
            continue
        if k.is_file() and not k.is_symlink() and is_generated(k.read_text(encoding="utf-8", errors="replace")):
            orphans.append(name)
    return orphans


def affected(changed: list[str], out_dir: Path) -> tuple[list[str], list[str]]:
    """Profiles whose overlays changed files can affect, and overlays whose profile is gone.

    For pre-commit: a changed profile, or any file of a generated overlay, selects that one profile.
    """
    profiles, orphans = [], []
    root = out_dir.resolve()
    orphaned = None
    for name in changed:
        path = Path(name)
        try:
            rel = path.resolve().relative_to(root)
        except ValueError:
            if path.suffix in (".yaml", ".yml") and path.is_file() and Source.read(path).is_profile:
                profiles.append(str(path.resolve()))
            continue
        overlay = root / rel.parts[0]
        source = documents.overlay_profile(overlay) if (overlay / "kustomization.yaml").is_file() else None
        if source is not None:
            profiles.append(str(source.resolve()))
            continue
        if orphaned is None:  # reads every overlay's kustomization: only when a changed file needs it
            orphaned = set(_orphans(out_dir, set()))
        if rel.parts[0] in orphaned:
            orphans.append(rel.parts[0])
    return sorted(set(profiles)), sorted(set(orphans))


ARGOCD_DIR = "argocd"


def _has_local(out_dir: Path, name: str) -> bool:
    return (out_dir / name / writing.LOCAL / "kustomization.yaml").is_file()


def _application(name: str) -> str:
    return f"applications/{name}.yaml"


ARGOCD_STATE = "argocd/"  # the index's name for argocd/ as a whole: no profile name holds a slash


def _argocd_key(profiles: list[Checked]) -> str:
    return "\0".join(f"{c.name}\0{c.key}" for c in sorted(profiles, key=lambda c: c.name))


def _argocd_plan(out_dir: Path, profiles: list[Checked], built: list[Checked], full: bool,
                 made: stages.Made[list[Checked]]) -> writing.OverlayPlan:
    """argocd/ beside the overlays folder, for the built profiles; the Applications of the others are left as they
    are. A full build also writes the shared files, which list every profile."""
    root = out_dir.parent
    if not built and (not full or made.up_to_date(profiles)):
        return writing.OverlayPlan(ARGOCD_DIR, root / ARGOCD_DIR, {})  # nothing of it to refresh
    from gengpu.compiling.overlay import compile_argocd

    # clusters Flux syncs have no Application (their Flux objects are in their overlay's flux/ folder)
    profiles = [c for c in profiles if c.gitops != "flux"]
    built = [c for c in built if c.gitops != "flux"]
    if full:
        first = min(profiles, key=lambda c: c.name).profile if profiles else None
        desired = compile_argocd([c.name for c in profiles], first, [c.profile for c in built])
        others = {_application(c.name) for c in profiles} - set(desired)
        return writing.plan_overlay(root, ARGOCD_DIR, desired, keep=others.__contains__)
    desired = compile_argocd([], None, [c.profile for c in built])
    return writing.plan_overlay(root, ARGOCD_DIR, desired, keep=lambda rel: rel not in desired)


def _built_files(out_dir: Path, c: Checked) -> tuple[Path, ...]:
    """The files a profile's build writes: its overlay folder and its Argo CD Application (Flux: the folder only)."""
    if c.gitops == "flux":
        return (out_dir / c.name,)
    return out_dir / c.name, out_dir.parent / ARGOCD_DIR / _application(c.name)


def overlays_made(index: fleet.Index, out_dir: Path) -> stages.Made[Checked]:
    """Compiling and writing a profile's overlay: made from the profile file's check key (its bytes, where it is,
    gengpu itself); its files are the overlay folder, local/ included, and its Application."""
    return stages.Made(index, lambda c: c.name, lambda c: c.key, lambda c: _built_files(out_dir, c))


def argocd_made(index: fleet.Index, out_dir: Path) -> stages.Made[list[Checked]]:
    """argocd/ as a full build writes it: made from every profile's name and key."""
    return stages.Made(index, lambda _: ARGOCD_STATE, _argocd_key, lambda _: (out_dir.parent / ARGOCD_DIR,))


def build(paths: list[str], out_dir: Path, check: bool, changed: bool = False, full: bool | None = None,
          cache: bool = True, shard: tuple[int, int] | None = None, progress: bool = False) -> BuildResult:
    """A build that writes holds the repository's lock from its first read to its last write, so two builds never
    plan on the same tree or write it at once (the second waits, then says who holds it); --check only reads."""
    if check:
        return _build(paths, out_dir, check, changed, full, cache, shard, progress)
    with filewrites.repository_lock(out_dir.resolve().parent):
        return _build(paths, out_dir, check, changed, full, cache, shard, progress)


def _build(paths: list[str], out_dir: Path, check: bool, changed: bool = False, full: bool | None = None,
           cache: bool = True, shard: tuple[int, int] | None = None, progress: bool = False) -> BuildResult:
    """full: the paths are every profile of the repository (default: when no paths are given).

    A profile is compiled only when it, or the files its build wrote, changed since gengpu last wrote or checked
    them (the index in .cache/gengpu/); the others get a plan that changes nothing, as a full build would.
    shard (I, N), with check: only the clusters, orphans and argocd/ files of the I-th of N parts of the fleet;
    every profile is still loaded, so names are checked across the whole fleet.
    """
    orphans: list[str] = []
    if changed:
        paths, orphans = affected(paths, out_dir)
        if not paths and not orphans:
            return BuildResult([], [], False)
    files = profile_files(paths) if paths or not changed else []
    full = (not paths and not changed) if full is None else full
    index = fleet.Index(fleet.Cache(cache), out_dir)
    overlays, argocd = overlays_made(index, out_dir), argocd_made(index, out_dir)
    loaded = load_profiles(files, out_dir, index)
    mine = _in_shard(loaded, shard)
    found = [f for f in loaded.findings if mine(f.file)]
    if any(f.is_error for f in found):  # a profile with errors is never compiled: the compiler may rely on the rules
        index.save(prune=full and shard is None)
        return BuildResult(sort_findings(found), [], True)
    profiles = [c for c in loaded.profiles if fleet.in_shard(c.name, shard)]
    plans, todo = [], []
    meter = fleet.Progress(len(profiles), "profiles", progress)
    for c in profiles:
        meter.step()
        if overlays.up_to_date(c):
            plans.append(writing.OverlayPlan(c.name, out_dir / c.name, {}))  # as the last build left it
            continue
        from gengpu.compiling import compile_overlay

        todo.append(c)
        plans.append(writing.plan_overlay(out_dir, c.name, compile_overlay(c.profile, _has_local(out_dir, c.name))))
    meter.close()
    if full:  # building the whole set: overlays of deleted profiles are extra
        orphans = [o for o in _orphans(out_dir, {c.name for c in loaded.profiles}) if fleet.in_shard(o, shard)]
    plans += [writing.plan_orphan(out_dir, name) for name in orphans]
    if loaded.profiles or full:
        plans.append(_argocd_plan(out_dir, loaded.profiles, todo, full and fleet.in_shard(ARGOCD_DIR, shard), argocd))
    findings = found + [f for plan in plans for f in ownership.plan_findings(plan)]
    if check and writing.interrupted(out_dir):
        findings.append(ownership.interrupted(out_dir))
    blocked = any(f.is_error for f in findings)
    notes = []
    if not check and not blocked:
        notes = writing.recover(out_dir.parent, out_dir)
        writing.apply(plans, out_dir.parent, out_dir)
    if not blocked:
        overlays.made(_as_generated(out_dir, todo, plans, written=not check))
        if full and shard is None and _is_generated(plans[-1], written=not check):
            argocd.made([loaded.profiles])
    index.save(prune=full and shard is None)
    return BuildResult(sort_findings(findings), plans, blocked, notes)


def _is_generated(plan: writing.OverlayPlan, written: bool) -> bool:
    """Whether a plan's files now are what gengpu generates: written, or checked and found so, with no file a user
    keeps or a conflict."""
    return not (plan.kept or plan.conflicts or not written and plan.changed)


def _in_shard(loaded: Loaded, shard: tuple[int, int] | None):
    """Whether a finding's file belongs to the shard: a profile by its name, any other file by its file name."""
    names = {c.source.shown: c.name for c in loaded.profiles}
    return lambda file: fleet.in_shard(names.get(file, Path(file).name), shard)


def _as_generated(out_dir: Path, built: list[Checked], plans: list[writing.OverlayPlan],
                  written: bool) -> list[Checked]:
    """The built profiles whose overlay (and Application) now is what the profile generates, leaving no finding."""
    by_folder = {plan.folder: plan for plan in plans}
    argocd = by_folder.get(out_dir.parent / ARGOCD_DIR)
    done = []
    for c in built:
        plan = by_folder[out_dir / c.name]
        app = _application(c.name)
        pending = not written and argocd is not None and app in argocd.missing + argocd.stale
        if _is_generated(plan, written) and not pending:
            done.append(c)
    return done

