"""The whole pipeline a reader can follow: load → check profile → compile → render → check rendered → write/report.

The CLI only parses options and calls build() or validate().
"""

from __future__ import annotations

import functools
import os
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path

from typing import TYPE_CHECKING

from gengpu import fleet, stages, writing
from gengpu.findings import Finding, UsageError, display, sort_findings
from gengpu.headers import is_generated
from gengpu.loading.reading import read_bytes
from gengpu.rendering.folders import Files, is_overlay
from gengpu.checking import documents, ownership

if TYPE_CHECKING:
    from gengpu.model import Profile

# The stages load on first use (imports inside the functions): a run answered from the cache imports none of them.

DEFAULT_PROFILES = "profiles"
DEFAULT_OVERLAYS = "overlays"




def profile_files(paths: list[str]) -> list[Path]:
    if paths:
        return [Path(p) for p in paths]
    folder = Path(DEFAULT_PROFILES)
    if not folder.is_dir():
        raise UsageError(f"no profiles given and no {DEFAULT_PROFILES}/ folder here; pass profile files")
    return sorted([*folder.glob("*.yaml"), *folder.glob("*.yml")])


@dataclass
class Source:
    """One file: its bytes, read once; its documents (or the findings that stopped its parse), parsed when asked."""

    path: Path
    shown: str
    raw: bytes | None
    parsed: tuple | None = None

    @classmethod
    def read(cls, path: Path) -> "Source":
        shown = display(path)
        if not path.exists():
            raise UsageError(f"{shown}: no such file")
        raw, findings = read_bytes(path, shown)  # a FIFO or device is a finding, never read
        return cls(path, shown, raw, None if raw is not None else ([], findings))

    @property
    def docs(self) -> list:
        return self._parse()[0]

    @property
    def findings(self) -> list[Finding]:
        return self._parse()[1]

    def _parse(self) -> tuple:
        from gengpu.loading import load_bytes

        if self.parsed is None:
            self.parsed = load_bytes(self.raw, self.shown)
        return self.parsed

    @property
    def is_profile(self) -> bool:
        """Files in profiles/ are profiles, as build takes them; elsewhere, files that say they are one."""
        if os.path.dirname(self.real) == _real_dir(DEFAULT_PROFILES):
            return True
        from gengpu.checking.profile import is_profile

        return any(is_profile(d) for d in self.docs)

    @functools.cached_property
    def real(self) -> str:
        return _real(self.path)

    def identity(self) -> tuple:
        """What checking this file gives depends on: its bytes, where it is, and how it is shown."""
        where = self.real
        return (self.shown, where, os.path.dirname(where) == _real_dir(DEFAULT_PROFILES),
                self.raw if self.raw is not None else b"\0unreadable")


def file_checks(index: fleet.Index) -> stages.Kept[Source]:
    """Checking one file, kept by its identity and the options of the check: a profile's findings, name and GitOps
    tool (no options), or another file's findings and what its documents were taken for."""
    return stages.Kept("file", lambda source, *options: (*source.identity(), *options), index)


@dataclass
class Checked:
    """A profile that passed its schema: its name, and the Profile, built again on demand when the check came from
    the cache."""

    source: Source
    repo_path: str  # relative to the repository root: what headers and Applications name
    name: str
    key: str
    loaded: Profile | None = None
    gitops: str = "argocd"  # who syncs it (kept in the index, so argocd/ is planned without loading the profile)

    @property
    def profile(self) -> Profile:
        from gengpu.checking.profile import check_profile

        if self.loaded is None:
            self.loaded = check_profile(self.source.docs[0], self.repo_path)[0]
        return self.loaded


@dataclass
class Loaded:
    profiles: list[Checked] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)


def _real_dir(folder: str) -> str:
    return _realpath(os.path.abspath(folder))  # absolute first: the working directory may change between runs


@functools.lru_cache(maxsize=4096)
def _realpath(folder: str) -> str:
    return os.path.realpath(folder)


def _real(path: Path) -> str:
    """path.resolve(), with each folder resolved once per run: a fleet's profiles share one."""
    if os.path.islink(path):
        return os.path.realpath(path)
    folder, name = os.path.split(os.path.abspath(path))
    return os.path.join(_realpath(folder), name)


def _repo_path(path: Path, out_dir: Path) -> str:
    return Path(os.path.relpath(_real(path), os.path.dirname(_real_dir(str(out_dir))))).as_posix()


def _check_profile_file(source: Source, out_dir: Path) -> tuple[dict, Profile | None]:
    """A profile file's findings and name, as the cache keeps them, and the Profile when it passed its schema."""
    from gengpu.checking.profile import check_profile_file

    entry: dict = {"findings": [asdict(f) for f in source.findings], "name": None}
    if source.findings:
        return entry, None
    profile, findings = check_profile_file(source.docs, source.shown, _repo_path(source.path, out_dir))
    entry["findings"] += [asdict(f) for f in findings]
    if profile is not None:
        entry["name"], entry["at"] = profile.name, list(source.docs[0].position(("metadata", "name")))
        entry["gitops"] = profile.gitops
    return entry, profile


def load_profiles(files: list[Path | Source], out_dir: Path, index: fleet.Index | None = None) -> Loaded:
    """Load and check every profile; one bad file never stops the others. A profile whose bytes the index has
    seen is not loaded at all: its findings and name come from the index."""
    result = Loaded()
    names: dict[str, str] = {}
    checks = file_checks(index) if index else None
    for source in files:
        source = source if isinstance(source, Source) else Source.read(source)
        key = checks.key(source) if checks else ""
        entry = checks.get(key) if checks else None
        profile = None
        if entry is None:
            entry, profile = _check_profile_file(source, out_dir)
            if checks:
                checks.put(key, entry)
        result.findings += [Finding(**f) for f in entry["findings"]]
        name = entry["name"]
        if name is None:
            continue
        if name in names:
            from gengpu.checking.profile import duplicate_name

            result.findings.append(duplicate_name(source.shown, tuple(entry["at"]), name, names[name]))
            continue
        names[name] = source.shown
        result.profiles.append(Checked(source, _repo_path(source.path, out_dir), name, key, profile,
                                       str(entry.get("gitops", "argocd"))))
    return result


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
    with writing.repository_lock(out_dir.resolve().parent):
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


@dataclass
class Validated:
    findings: list[Finding]
    recognition: list[str] = field(default_factory=list)  # what each document was taken for (-v)
    profiles: int = 0
    files: int = 0
    overlays: int = 0
    manifests: int = 0
    scope: list[str] = field(default_factory=list)  # the files and folders checked, as findings name them

    def summary(self) -> str:
        parts = [f"{n} {what}" for n, what in ((self.profiles, "profile(s)"), (self.files, "other file(s)"),
                                              (self.overlays, "rendered kustomization(s)"),
                                              (self.manifests, "Argo CD manifest(s)")) if n]
        return f"checked {', '.join(parts) or 'nothing'}"


def validate(paths: list[str], kubernetes_version: str | None = None, profile: str | None = None,
             kind: str | None = None, engine: str = "gengpu", jobs: int | None = None,
             shard: tuple[int, int] | None = None, cache: bool = True, progress: bool = False) -> Validated:
    """Check profiles, GPU configs, ClusterPolicies, workloads and overlays; with no paths, profiles/ and overlays/*.

    profile gives the cluster context (pools, resources, taints) for workloads outside a generated overlay.
    engine chooses who checks rendered resources against their schemas: gengpu's engine, or kubeconform.
    jobs: processes for large fleets (default: every core). shard (I, N): only the I-th of N parts of the fleet.
    """
    ctx = None
    if profile:
        if not Path(profile).is_file():
            raise UsageError(f"--profile {profile}: no such file")
        ctx = documents.cluster_of(Path(profile))
        if ctx is None:
            raise UsageError(f"--profile {profile} has errors; run `gengpu validate {profile}` first")
    targets = [Path(p) for p in paths]
    roots: list[str] = []
    argo = Path(ARGOCD_DIR)
    if not targets:
        overlays = sorted(p for p in Path(DEFAULT_OVERLAYS).glob("*")
                          if not p.name.startswith(".") and is_overlay(p) and fleet.in_shard(p.name, shard))
        verify = sorted(p for o in overlays for p in (o / "verify").glob("*") if is_overlay(p))
        verify += [p for o in overlays for p in (o / "flux", o / "flux" / "operator") if is_overlay(p)]
        argocd = fleet.in_shard(ARGOCD_DIR, shard)
        targets = [*(p for p in profile_files([]) if fleet.in_shard(p.name, shard)), *overlays, *verify,
                   *([argo / "applications"] if argocd and is_overlay(argo / "applications") else [])]
        roots = [n for n in ("root-application.yaml", "applicationset.yaml") if argocd and (argo / n).is_file()]
    files = Files()
    findings: list[Finding] = []
    if roots:
        from gengpu.checking.rules import RULES
        from gengpu.rendering import render

        findings += render.check_manifests(argo, display(argo), roots, RULES, kubernetes_version, engine, files)
    if not paths and writing.interrupted(Path(DEFAULT_OVERLAYS)):
        findings.append(ownership.interrupted(Path(DEFAULT_OVERLAYS)))
    overlays, plain = [], []
    for target in targets:
        if not target.exists():
            raise UsageError(f"{display(target)}: no such file or folder")
        if target.is_dir():
            if is_overlay(target):
                overlays.append(target)
            else:
                plain += sorted([*target.glob("*.yaml"), *target.glob("*.yml")])
        else:
            plain.append(target)
    result = Validated([], manifests=len(roots), overlays=len(overlays),
                       scope=[display(t) for t in targets] + [display(argo / n) for n in roots])
    index = fleet.Index(fleet.Cache(cache), Path(DEFAULT_OVERLAYS))
    checks = file_checks(index)
    sources = [Source.read(f) for f in plain]
    # A file the index knows as a profile needs no parse to say so.
    profiles = [] if kind else [s for s in sources if checks.get(checks.key(s)) is not None or s.is_profile]
    clusters: dict = {}
    if profiles:
        loaded = load_profiles(profiles, Path(DEFAULT_OVERLAYS), index)
        findings += loaded.findings
        checked = {c.source.path.resolve(): c for c in loaded.profiles}
        for s in profiles:
            c = checked.get(s.path.resolve())
            if c is None:
                clusters[s.path.resolve()] = None  # its schema errors are reported on the profile itself
            elif c.loaded is not None:
                from gengpu.cluster import Cluster

                clusters[s.path.resolve()] = Cluster.of(c.loaded)
    findings += _check_overlays(overlays, kubernetes_version, ctx, clusters, engine, jobs, cache, progress, files)
    options = ("check", kind or "", kubernetes_version or "", _context_key(ctx))
    schemas = None
    chosen = {id(s) for s in profiles}
    for source in sources:
        if id(source) in chosen:
            continue
        key = checks.key(source, *options)
        entry = checks.get(key)
        if entry is None:
            if schemas is None:
                from gengpu.checking.objects import Schemas

                schemas = Schemas(kubernetes_version or (ctx.profile.kubernetes_version if ctx else None))
            notes: list[str] = []
            entry = {"findings": [asdict(f) for f in documents.check_file(source, ctx, kind, schemas, notes)], "notes": notes}
            checks.put(key, entry)
        findings += [Finding(**f) for f in entry["findings"]]
        result.recognition += entry["notes"]
    index.save(prune=not paths)
    result.profiles, result.files = len(profiles), len(plain) - len(profiles)
    result.findings = sort_findings(findings)
    return result


def _check_overlays(overlays: list[Path], kubernetes_version, ctx, clusters: dict, engine: str, jobs, cache: bool,
                    progress: bool, files) -> list[Finding]:
    """Every overlay once: from the cache when nothing it depends on changed, else checked, in processes when many."""
    if not overlays:
        return []
    from gengpu.rendering import tools

    checks = overlay_checks(fleet.Cache(cache))
    keys, todo, findings = {}, [], []
    options = (kubernetes_version or "", engine, _context_key(ctx),
               tools.identity("kustomize", "celcheck", *(["kubeconform"] if engine == "kubeconform" else [])))
    for overlay in overlays:
        keys[overlay] = checks.key(overlay, *options)
        hit = checks.get(keys[overlay])
        if hit is None:
            todo.append(overlay)
        else:
            findings += [Finding(**f) for f in hit]

    def context(overlay: Path):
        if ctx is not None:
            return ctx
        main = overlay.parent.parent if overlay.parent.name == "verify" else overlay
        source = documents.overlay_profile(main)
        if source is None:
            return None
        if source.resolve() not in clusters:
            clusters[source.resolve()] = documents.cluster_of(source)
        return clusters[source.resolve()]

    schemas: dict = {}

    def check(overlay: Path) -> list[Finding]:
        return documents.check_overlay(overlay, kubernetes_version, context(overlay), engine, files, schemas)

    meter = fleet.Progress(len(todo), "overlays", progress)
    results = fleet.parallel_map(check, todo, jobs if jobs is not None else fleet.default_jobs(), meter)
    meter.close()
    for overlay, found in zip(todo, results):
        checks.put(keys[overlay], [asdict(f) for f in found])
        findings += found
    return findings


def _overlay_inputs(overlay: Path, kubernetes_version: str, engine: str, context: bytes, binaries: str) -> tuple:
    """What checking an overlay depends on: every file of it (a verify/ overlay: of its cluster's), its profile's
    bytes, the Kubernetes version, the engine, the --profile context, and the binaries that render and check it."""
    main = overlay.parent.parent if overlay.parent.name == "verify" else overlay
    return (str(overlay), fleet.folder_bytes(main), fleet.file_bytes(documents.overlay_profile(main)),
            kubernetes_version, engine, binaries, context)


def overlay_checks(store: fleet.Cache) -> stages.Kept[Path]:
    """Rendering and checking an overlay: its findings, one cache file per overlay."""
    return stages.Kept("overlay", _overlay_inputs, store, ok=fleet.findings_ok)


def _context_key(ctx) -> bytes:
    """The --profile a run checks workloads against: its text is part of every cache key."""
    return fleet.file_bytes(Path(ctx.profile.source)) if ctx is not None else b""


# --- check: a running cluster against its profile ----------------------------------------------------------


@dataclass
class CheckResult:
    findings: list[Finding]
    profile: str | None = None  # the profile the snapshot was checked against
    nodes: int = 0
    source: str = ""

    def summary(self) -> str:
        against = f" against {self.profile}" if self.profile else ""
        return f"checked {self.nodes} node(s) of {self.source}{against}"


def load_snapshot(snapshot: str | None, context: str | None, profiles: list, progress: bool):
    """The cluster's state: a snapshot file, standard input (-), or the live cluster of a kubeconfig context."""
    from gengpu.live import snapshot as snapshots

    findings: list[Finding] = []
    if snapshot is not None:
        shown = "<stdin>" if snapshot == "-" else display(Path(snapshot))
        if snapshot == "-":
            from gengpu.loading import reading

            raw = sys.stdin.buffer.read(reading.MAX_BYTES + 1)
            errors = [reading.too_large(shown, len(raw))] if len(raw) > reading.MAX_BYTES else []
        else:
            if not Path(snapshot).exists():
                raise UsageError(f"{shown}: no such file")
            raw, errors = read_bytes(Path(snapshot), shown)
        snap, more = snapshots.load(raw, shown) if raw is not None and not errors else (None, errors)
        findings += more
    else:
        from gengpu.live import kube

        namespace = profiles[0][0].operator.namespace if profiles else "gpu-operator"
        objects, captured, notes = kube.capture(context, namespace, progress)
        snap = snapshots.from_objects(f"context {context}" if context else "the current context", objects, captured,
                                      notes)
    return snap, findings


def _cluster_profile(profiles: list, snap) -> tuple:
    """The profile whose pools claim the snapshot's nodes (None, finding when none does)."""
    from gengpu.checking import live
    from gengpu.live import pools

    ranked = pools.choose(profiles, snap)
    profile, doc, claimed = ranked[0]
    if claimed == 0:
        return None, None, [live.mismatch(snap, [p.name for p, _ in profiles])] if snap.nodes else []
    if len(ranked) > 1 and ranked[1][2] == claimed:
        raise UsageError(f"{snap.source}: its nodes belong to pools of {profile.name} and {ranked[1][0].name} "
                         "alike; name the profile of this cluster (gengpu check PROFILE ...)")
    return profile, doc, []


def check(paths: list[str], snapshot: str | None, context: str | None, out_dir: Path = Path(DEFAULT_OVERLAYS),
          progress: bool = True) -> CheckResult:
    """Load the profiles and the cluster's state (a snapshot file, standard input, or a kubeconfig context), pick
    the profile the cluster's nodes belong to, and run the live rules."""
    from gengpu.checking import live
    from gengpu.live import pools

    loaded = load_profiles(profile_files(paths), out_dir)
    findings = [f for f in loaded.findings if f.is_error]  # why a profile cannot be checked against; the rest is validate's
    profiles = [(c.profile, c.source.docs[0]) for c in loaded.profiles if c.profile is not None]
    snap, more = load_snapshot(snapshot, context, profiles, progress)
    findings += more
    if snap is None:
        return CheckResult(sort_findings(findings), source=snapshot or "")
    from gengpu.checking.rules import finding

    findings += [finding("snapshot-incomplete", snap.source, 1, 1, f"not read: {note}; the checks that need it are "
                         "left out") for note in snap.notes]
    if not profiles:
        return CheckResult(sort_findings(findings), nodes=len(snap.nodes), source=snap.source)
    profile, doc, more = _cluster_profile(profiles, snap)
    findings += more  # (no node at all: snapshot-incomplete says so)
    if profile is None:
        return CheckResult(sort_findings(findings), nodes=len(snap.nodes), source=snap.source)
    cluster = pools.Cluster(profile, doc, snap, pools.map_nodes(profile, snap))
    findings += live.check_cluster(cluster)
    return CheckResult(sort_findings(findings), profile.source or profile.name, len(snap.nodes), snap.source)


@dataclass
class RightsizeResult:
    findings: list[Finding]
    recommendations: list = field(default_factory=list)  # gengpu.sizing.Recommendation, one per pool
    profile: Profile | None = None
    source: str = ""
    queries: int = 0
    source_client: object = None  # the Prometheus client (queries and bytes answered), None for a recording


def rightsize(paths: list[str], snapshot: str | None, context: str | None, prometheus: str | None,
              metrics: str | None, since: str, until: float | None, min_hours: float,
              out_dir: Path = Path(DEFAULT_OVERLAYS), progress: bool = True) -> RightsizeResult:
    """Load the profiles, the cluster's nodes (to put each series in its pool) and dcgm-exporter's figures over the
    window (PromQL on a server, or a recorded file); size every pool of the cluster's profile and judge it."""
    import time

    from gengpu import sizing
    from gengpu.checking import usage as usage_rules
    from gengpu.checking.rules import finding
    from gengpu.live import pools
    from gengpu.metrics import usage

    try:
        usage.seconds(since)
    except ValueError:
        raise UsageError(f"--since {since!r}: give a Prometheus duration such as 24h, 7d or 2w") from None
    loaded = load_profiles(profile_files(paths), out_dir)
    findings = [f for f in loaded.findings if f.is_error]
    profiles = [(c.profile, c.source.docs[0]) for c in loaded.profiles if c.profile is not None]
    if metrics is not None:
        from gengpu.metrics import recorded

        shown = display(Path(metrics))
        if not Path(metrics).exists():
            raise UsageError(f"{shown}: no such file")
        raw, errors = read_bytes(Path(metrics), shown)
        text = None
        if raw is not None and not errors:
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                errors = [finding("metrics-file-invalid", shown, 1, 1, f"not UTF-8 text: {e.reason} at byte {e.start}")]
        source, more = recorded.load(text, shown) if text is not None else (None, errors)
        findings += more
        if source is None:
            return RightsizeResult(sort_findings(findings), source=shown)
        at = until if until is not None else source.last
    else:
        from gengpu.metrics.prometheus import Prometheus

        source = usage.Server(Prometheus(prometheus))
        shown = source.url
        at = until if until is not None else time.time()
    snap, more = load_snapshot(snapshot, context, profiles, progress)
    findings += more
    if snap is None or not profiles:
        return RightsizeResult(sort_findings(findings), source=shown)
    profile, doc, more = _cluster_profile(profiles, snap)
    findings += more
    if profile is None:
        return RightsizeResult(sort_findings(findings), source=shown)
    nodes = pools.map_nodes(profile, snap)
    pool_of = {n.name: n.pool for n in nodes}
    reported = source.nodes(since, at)
    exported = source.exported(since, at) if reported else False
    unjoined = []
    for (label, node), count in sorted(reported.items()):
        if not label:
            unjoined.append(f"{count} series without a Hostname label")
        elif node not in pool_of:
            unjoined.append(f"{node} ({count} series): not a node of {snap.source}")
        elif pool_of[node] is None:
            unjoined.append(f"{node} ({count} series): a GPU node of no pool of {profile.name}")
    if unjoined:
        findings.append(finding("usage-series-unjoined", shown, 1, 1, f"{len(unjoined)} node(s) of dcgm-exporter's "
                                f"series left out of every pool: {'; '.join(unjoined[:10])}"
                                + (f"; and {len(unjoined) - 10} more" if len(unjoined) > 10 else "")))
    recommendations = []
    for pool in profile.node_pools:
        members = sorted(n.name for n in nodes if n.pool is pool)
        devices = []
        for label in usage.NODE_LABELS:
            seen = [n for n in members if (label, n) in reported]
            if seen:
                devices += source.pool_usage(label, seen, since, at, exported).devices
        pool_usage = sizing.PoolUsage(profile, doc, pool, members, devices, since, shown)
        recommendations.append(sizing.recommend(pool_usage, min_hours))
    findings += usage_rules.check_pools(recommendations)
    return RightsizeResult(sort_findings(findings), recommendations, profile, shown,
                           getattr(source, "queries", 0), getattr(source, "client", None))


def write_proposals(result: RightsizeResult, out_dir: Path = Path(DEFAULT_OVERLAYS)) -> list[str]:
    """Apply every proposal to its profile (ruamel round trip), checked as a profile before it is written: a change
    that would not pass gengpu's own checks is refused and the file left as it was."""
    from gengpu import editing

    wanted = [r for r in result.recommendations if r.changes]
    if not wanted or result.profile is None:
        return []
    path = Path(result.profile.source)
    before = path.read_bytes()
    text = before.decode("utf-8")
    for rec in wanted:
        text = editing.set_pool_fields(text, display(path), rec.usage.pool.index, rec.changes)
    trial = load_profiles([Source(path, display(path), text.encode("utf-8"))], out_dir)
    errors = [f for f in trial.findings if f.is_error]
    if errors:
        from gengpu import reporting

        raise UsageError(f"the proposal would make {display(path)} fail gengpu's checks; it was left as it was:\n"
                         + reporting.text(errors))
    writing.write_profile(path, before, text)
    return [f"wrote {display(path)}: pool {r.pool}: {r.reason}" for r in wanted]
