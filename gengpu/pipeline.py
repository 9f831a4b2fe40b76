"""The whole pipeline a reader can follow: load → check profile → compile → render → check rendered → write/report.

The CLI only parses options and calls build() or validate().
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from gengpu.checking.profile import check_profile, is_profile
from gengpu.checking.rules import RULES
from gengpu.checking.run import SCHEMAS, check_overlay_rules, check_subject, schema_file
from gengpu.checking.schema import check_schema
from gengpu.checking.subjects import Subject, classify, well_formed
from gengpu.checking.objects import Schemas
from gengpu.checking.targets import OBJECT
from gengpu.cluster import Cluster
from gengpu.compiling import compile_overlay, operator_app
from gengpu.compiling.overlay import LOCAL_COMPONENT, compile_argocd
from gengpu.compiling.yamltext import HEADER_MARK, is_generated
from gengpu.findings import Finding, UsageError, sort_findings
from gengpu.loading import load_file
from gengpu.model import Profile, build_profile
from gengpu.rendering import render
from gengpu import fleet, writing

DEFAULT_PROFILES = "profiles"
DEFAULT_OVERLAYS = "overlays"


def display(path: Path) -> str:
    """Paths in findings: relative to the working directory when inside it. Symlinks are shown, not followed."""
    return _display(str(path), os.getcwd())


@functools.lru_cache(maxsize=65536)
def _display(path: str, cwd: str) -> str:
    absolute = os.path.abspath(path)
    inside = absolute == cwd or absolute.startswith(cwd.rstrip(os.sep) + os.sep)
    return Path(os.path.relpath(absolute, cwd)).as_posix() if inside else Path(absolute).as_posix()


def profile_files(paths: list[str]) -> list[Path]:
    if paths:
        return [Path(p) for p in paths]
    folder = Path(DEFAULT_PROFILES)
    if not folder.is_dir():
        raise UsageError(f"no profiles given and no {DEFAULT_PROFILES}/ folder here; pass profile files")
    return sorted([*folder.glob("*.yaml"), *folder.glob("*.yml")])


@dataclass
class Loaded:
    profiles: list[Profile] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)


@dataclass
class Source:
    """One file as loaded: its documents, or the findings that stopped its parse."""

    path: Path
    shown: str
    docs: list
    findings: list[Finding]

    @classmethod
    def read(cls, path: Path) -> "Source":
        shown = display(path)
        if not path.is_file():
            raise UsageError(f"{shown}: no such file")
        docs, findings = load_file(path, shown)
        return cls(path, shown, docs, findings)

    @property
    def is_profile(self) -> bool:
        """Files in profiles/ are profiles, as build takes them; elsewhere, files that say they are one."""
        in_profiles = self.path.resolve().parent == Path(DEFAULT_PROFILES).resolve()
        return in_profiles or any(is_profile(d) for d in self.docs)


def load_profiles(files: list[Path | Source], out_dir: Path) -> Loaded:
    """Load and check every profile; one bad file never stops the others."""
    result = Loaded()
    names: dict[str, str] = {}
    for source in files:
        source = source if isinstance(source, Source) else Source.read(source)
        path, shown, docs = source.path, source.shown, source.docs
        result.findings += source.findings
        if source.findings:
            continue
        if len(docs) != 1 or not is_profile(docs[0]):
            result.findings.append(Finding(shown, 1, 1, "error", "profile-schema",
                                           "a profile file holds exactly one document of kind GPUProfile",
                                           "put one cluster per file, starting with apiVersion: gengpu.dev/v1alpha1"))
            continue
        source = Path(os.path.relpath(path.resolve(), out_dir.resolve().parent)).as_posix()
        profile, findings = check_profile(docs[0], source)
        result.findings += findings
        if profile is None:
            continue
        if profile.name in names:
            line, col = docs[0].position(("metadata", "name"))
            result.findings.append(Finding(shown, line, col, "error", "duplicate-profile-name",
                                           f"metadata.name '{profile.name}' is also used by {names[profile.name]}",
                                           "give every profile its own name; it names the overlay folder"))
            continue
        names[profile.name] = shown
        result.profiles.append(profile)
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
    for folder in sorted(out_dir.iterdir()):
        k = folder / "kustomization.yaml"
        if folder.name.startswith(".") or folder.name in keep or folder.is_symlink() or not folder.is_dir():
            continue
        if k.is_file() and not k.is_symlink() and is_generated(k.read_text(encoding="utf-8", errors="replace")):
            orphans.append(folder.name)
    return orphans


def affected(changed: list[str], out_dir: Path) -> tuple[list[str], list[str]]:
    """Profiles whose overlays changed files can affect, and overlays whose profile is gone.

    For pre-commit: a changed profile, or any file of a generated overlay, selects that one profile.
    """
    profiles, orphans = [], []
    root = out_dir.resolve()
    orphaned = set(_orphans(out_dir, set()))
    for name in changed:
        path = Path(name)
        try:
            rel = path.resolve().relative_to(root)
        except ValueError:
            if path.suffix in (".yaml", ".yml") and path.is_file() and Source.read(path).is_profile:
                profiles.append(str(path.resolve()))
            continue
        overlay = root / rel.parts[0]
        source = _overlay_profile(overlay) if (overlay / "kustomization.yaml").is_file() else None
        if source is not None:
            profiles.append(str(source.resolve()))
        elif rel.parts[0] in orphaned:
            orphans.append(rel.parts[0])
    return sorted(set(profiles)), sorted(set(orphans))


ARGOCD_DIR = "argocd"


def _has_local(out_dir: Path, name: str) -> bool:
    return (out_dir / name / LOCAL_COMPONENT / "kustomization.yaml").is_file()


def _argocd_plan(out_dir: Path, profiles: list[Profile], full: bool) -> writing.OverlayPlan:
    """argocd/ beside the overlays folder. A partial build refreshes only its profiles' Applications."""
    root = out_dir.parent
    desired = compile_argocd(profiles, profiles)
    if not full:
        current = writing.generated_files(root / ARGOCD_DIR)
        desired = {**current, **{k: v for k, v in desired.items() if k.startswith("applications/")
                                 and k != "applications/kustomization.yaml"}}
    return writing.plan_overlay(root, ARGOCD_DIR, desired)


def build(paths: list[str], out_dir: Path, check: bool, changed: bool = False, full: bool | None = None) -> BuildResult:
    """full: the paths are every profile of the repository (default: when no paths are given)."""
    orphans: list[str] = []
    if changed:
        paths, orphans = affected(paths, out_dir)
        if not paths and not orphans:
            return BuildResult([], [], False)
    files = profile_files(paths) if paths or not changed else []
    loaded = load_profiles(files, out_dir)
    errors = [f for f in loaded.findings if f.is_error]
    if errors:  # a profile with errors is never compiled: the compiler may rely on what the rules check
        return BuildResult(sort_findings(loaded.findings), [], True)
    plans = [writing.plan_overlay(out_dir, p.name, compile_overlay(p, _has_local(out_dir, p.name)))
             for p in loaded.profiles]
    full = (not paths and not changed) if full is None else full
    if full:  # building the whole set: overlays of deleted profiles are extra
        orphans = _orphans(out_dir, {p.name for p in loaded.profiles})
    plans += [writing.plan_orphan(out_dir, name) for name in orphans]
    if loaded.profiles or full:
        plans.append(_argocd_plan(out_dir, loaded.profiles, full))
    findings = list(loaded.findings) + [f for plan in plans for f in _plan_findings(plan)]
    if check and writing.interrupted(out_dir):
        findings.append(_interrupted(out_dir))
    blocked = any(f.is_error for f in findings)
    notes = []
    if not check and not blocked:
        notes = writing.recover(out_dir.parent, out_dir)
        writing.apply(plans, out_dir.parent, out_dir)
    return BuildResult(sort_findings(findings), plans, blocked, notes)


def _interrupted(out_dir: Path) -> Finding:
    rule = RULES["build-interrupted"]
    return Finding(display(out_dir / writing.JOURNAL), 0, 0, rule.severity, rule.id,
                   f"a build was killed while it wrote {display(out_dir)}/; they may be part old, part new", rule.fix)


def _plan_findings(plan: writing.OverlayPlan) -> list[Finding]:
    """What a plan cannot do: files of the user's in the way, files it leaves, a folder it cannot remove."""
    out = []
    for rel, why in plan.conflicts:
        rule = RULES["not-generated-file"]
        out.append(Finding(display(plan.folder / rel if rel != "." else plan.folder), 1, 1, rule.severity, rule.id, why,
                           rule.fix))
    if plan.orphan and plan.kept:
        rule = RULES["overlay-orphaned"]
        what = ", ".join(f"{rel} ({why})" for rel, why in sorted(plan.kept)[:3]) + (" ..." if len(plan.kept) > 3 else "")
        out.append(Finding(display(plan.folder), 0, 0, rule.severity, rule.id,
                           f"no profile generates {plan.name}/ any more, and gengpu will not remove it: {what}",
                           rule.fix))
    elif plan.kept:
        rule = RULES["generated-file-edited"]
        out += [Finding(display(plan.folder / rel), 1, 1, rule.severity, rule.id,
                        f"{rel} is no longer generated, but gengpu leaves it: {why}", rule.fix)
                for rel, why in plan.kept]
    return out


def _overlay_profile(overlay: Path) -> Path | None:
    """The profile an overlay was generated from, named in its kustomization header."""
    k = overlay / "kustomization.yaml"
    try:
        first = k.read_text(encoding="utf-8").splitlines()[0]
    except (OSError, IndexError, UnicodeDecodeError):
        return None
    if not first.startswith(HEADER_MARK):
        return None
    source = first[len(HEADER_MARK):].rstrip(".")
    # The source is relative to the repository root: walk up from the (possibly nested) kustomization.
    for ancestor in overlay.resolve().parents:
        if (ancestor / source).is_file():
            return ancestor / source
    return None


def _context(profile_path: Path | None):
    """The cluster a workload is checked against, from a profile that passes its schema (its rules are its own
    business: validate reports them on the profile)."""
    if profile_path is None:
        return None
    docs, errors = load_file(profile_path, display(profile_path))
    if errors or len(docs) != 1 or not is_profile(docs[0]):
        return None
    if check_schema(docs[0]):
        return None
    return Cluster.of(build_profile(docs[0].data, display(profile_path)))


def recognition(subjects, docs) -> list[str]:
    """What each document was recognised as, and why: `gengpu validate -v`."""
    lines = []
    for doc in docs:
        mine = [s for s in subjects if s.doc is doc or s.outer is doc]
        if not mine:
            lines.append(f"{doc.file}:{doc.position(())[0]}: not recognised: no apiVersion and kind, and no shape "
                         "gengpu knows")
        for s in mine:
            lines.append(f"{doc.file}:{s.doc.position(())[0]}: {s.kind} ({s.label}): {s.why}")
    return lines


def check_documents(docs, ctx, schemas=None, notes: list | None = None) -> tuple[list[Finding], bool]:
    """Recognise, schema-check and run the rules over the documents of one file or overlay.

    Returns the findings and whether anything GPU-related was recognised. schemas: the object schema engine
    (None where kubeconform already checked the objects). Rules see a document whose object failed its
    schema only as far as they can; cross-document rules do not see it.
    """
    subjects = []
    docs, findings = well_formed(docs)
    for doc in docs:
        found, errors = classify(doc)
        findings += errors
        subjects += found
    broken = set()
    for subject in subjects:
        if subject.kind == OBJECT:
            more = check_subject(subject, ctx, schemas)
            if any(f.is_error and f.rule == "object-schema" for f in more):
                broken.add(id(subject.doc))
            findings += more
    for subject in subjects:
        if subject.kind != OBJECT:
            findings += check_subject(subject, ctx, schemas, shapeless=id(subject.doc) in broken)
    findings += check_overlay_rules(subjects, [d for d in docs if id(d) not in broken], ctx)
    if notes is not None:
        notes += recognition(subjects, docs)
    return findings, any(s.kind != OBJECT for s in subjects)


def _forced(docs, kind: str, ctx) -> list[Finding]:
    """Check every document as the given kind of config, whatever it looks like."""
    findings = []
    for doc in docs:
        subject = Subject(kind, doc, doc.data, kind)
        if isinstance(doc.data, dict):
            findings += check_subject(subject, ctx)
        else:
            name, rule, _ = SCHEMAS[kind]
            findings += check_schema(doc, schema_file(name), rule)
    return findings


def _check_file(source: Source, ctx, kind: str | None = None, schemas=None, notes=None) -> list[Finding]:
    if source.findings:
        return source.findings
    if kind:
        return _forced(source.docs, kind, ctx)
    more, recognised = check_documents(source.docs, ctx, schemas, notes)
    if not recognised and not more:
        rule = RULES["not-recognized"]
        more.append(Finding(source.shown, 0, 0, rule.severity, rule.id,
                            "no profile, device-plugin or mig-parted config, ClusterPolicy or GPU workload found",
                            rule.fix))
    return more


def _side_files(overlay: Path, files: render.Files) -> list[Finding]:
    """Files beside the overlay that are no Kubernetes objects: the GKE auto-provisioning file and scripts."""
    findings = []
    nap = overlay / "gke-autoprovisioning.yaml"
    if nap.is_file():
        docs, errors = files.load(nap, display(nap))
        findings += errors
        for doc in docs:
            findings += check_schema(doc, schema_file("gke-autoprovisioning.schema.json"), "gke-autoprovisioning-schema")
    for script in sorted(overlay.glob("*.sh")):
        if writing.intact(f"{overlay.name}/{script.name}", script.read_text(encoding="utf-8", errors="replace")):
            continue  # exactly as gengpu wrote it: its scripts are parsed with bash -n in gengpu's own tests
        proc = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True)
        if proc.returncode != 0:
            m = re.search(r"line (\d+): (.*)", proc.stderr)
            rule = RULES["script-syntax"]
            findings.append(Finding(display(script), int(m.group(1)) if m else 1, 1, rule.severity, rule.id,
                                    f"bash cannot parse it: {m.group(2) if m else proc.stderr.strip()}", rule.fix))
    return findings


_NOT_RESOURCES = (operator_app.VALUES_FILE, "gke-autoprovisioning.yaml", "gengpu-cluster.yaml")


def _check_overlay(overlay: Path, kubernetes_version: str | None, ctx, engine: str = "gengpu",
                   files: render.Files | None = None, schemas: dict | None = None) -> list[Finding]:
    """Render and schema-check the overlay, check the files beside it, and run the rules over its files."""
    files = files or render.Files()
    shown = display(overlay)
    findings = render.check_overlay(overlay, shown, kubernetes_version, RULES, engine, files, schemas)
    findings += _side_files(overlay, files)
    docs = []
    for path in sorted(overlay.rglob("*.y*ml")):
        rel = path.relative_to(overlay).parts
        if path.name.startswith("kustomization") or path.name in _NOT_RESOURCES or rel[0] == "verify":
            continue  # verify folders are kustomizations of their own, checked on their own
        loaded, errors = files.load(path, display(path))
        findings += errors
        docs += loaded
    return findings + check_documents(docs, ctx)[0]


@dataclass
class Validated:
    findings: list[Finding]
    recognition: list[str] = field(default_factory=list)  # what each document was taken for (-v)
    profiles: int = 0
    files: int = 0
    overlays: int = 0
    manifests: int = 0

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
        ctx = _context(Path(profile))
        if ctx is None:
            raise UsageError(f"--profile {profile} has errors; run `gengpu validate {profile}` first")
    targets = [Path(p) for p in paths]
    roots: list[str] = []
    argo = Path(ARGOCD_DIR)
    if not targets:
        overlays = sorted(p for p in Path(DEFAULT_OVERLAYS).glob("*")
                          if not p.name.startswith(".") and render.is_overlay(p) and fleet.in_shard(p.name, shard))
        verify = sorted(p for o in overlays for p in (o / "verify").glob("*") if render.is_overlay(p))
        argocd = fleet.in_shard(ARGOCD_DIR, shard)
        targets = [*(p for p in profile_files([]) if fleet.in_shard(p.name, shard)), *overlays, *verify,
                   *([argo / "applications"] if argocd and render.is_overlay(argo / "applications") else [])]
        roots = [n for n in ("root-application.yaml", "applicationset.yaml") if argocd and (argo / n).is_file()]
    files = render.Files()
    findings: list[Finding] = render.check_manifests(argo, display(argo), roots, RULES, kubernetes_version, engine,
                                                     files) if roots else []
    if not paths and writing.interrupted(Path(DEFAULT_OVERLAYS)):
        findings.append(_interrupted(Path(DEFAULT_OVERLAYS)))
    overlays, plain = [], []
    for target in targets:
        if not target.exists():
            raise UsageError(f"{display(target)}: no such file or folder")
        if target.is_dir():
            if render.is_overlay(target):
                overlays.append(target)
            else:
                plain += sorted([*target.glob("*.yaml"), *target.glob("*.yml")])
        else:
            plain.append(target)
    result = Validated([], manifests=len(roots), overlays=len(overlays))
    sources = [Source.read(f) for f in plain]
    profiles = [] if kind else [s for s in sources if s.is_profile]
    clusters: dict = {}
    if profiles:
        loaded = load_profiles(profiles, Path(DEFAULT_OVERLAYS))
        findings += loaded.findings
        by_source = {p.source: p for p in loaded.profiles}
        for s in profiles:
            checked = by_source.get(Path(os.path.relpath(s.path.resolve(), Path(DEFAULT_OVERLAYS).resolve().parent))
                                    .as_posix())
            clusters[s.path.resolve()] = Cluster.of(checked) if checked else None
    findings += _check_overlays(overlays, kubernetes_version, ctx, clusters, engine, jobs, cache, progress, files)
    schemas = Schemas(kubernetes_version or (ctx.profile.kubernetes_version if ctx else None))
    for source in sources:
        if kind or not source.is_profile:
            findings += _check_file(source, ctx, kind, schemas, result.recognition)
    result.profiles, result.files = len(profiles), len(plain) - len(profiles)
    result.findings = sort_findings(findings)
    return result


def _check_overlays(overlays: list[Path], kubernetes_version, ctx, clusters: dict, engine: str, jobs, cache: bool,
                    progress: bool, files: render.Files) -> list[Finding]:
    """Every overlay once: from the cache when nothing it depends on changed, else checked, in processes when many."""
    store = fleet.Cache(cache)
    keys, todo, findings = {}, [], []
    for overlay in overlays:
        main = overlay.parent.parent if overlay.parent.name == "verify" else overlay
        source = _overlay_profile(main)
        keys[overlay] = store.key("overlay", str(overlay), fleet.folder_bytes(main), fleet.file_bytes(source),
                                  kubernetes_version or "", engine, _context_key(ctx))
        hit = store.get(keys[overlay])
        if hit is None:
            todo.append(overlay)
        else:
            findings += hit

    def context(overlay: Path):
        if ctx is not None:
            return ctx
        main = overlay.parent.parent if overlay.parent.name == "verify" else overlay
        source = _overlay_profile(main)
        if source is None:
            return None
        if source.resolve() not in clusters:
            clusters[source.resolve()] = _context(source)
        return clusters[source.resolve()]

    schemas: dict = {}

    def check(overlay: Path) -> list[Finding]:
        return _check_overlay(overlay, kubernetes_version, context(overlay), engine, files, schemas)

    meter = fleet.Progress(len(todo), "overlays", progress)
    results = fleet.parallel_map(check, todo, jobs if jobs is not None else fleet.default_jobs(), meter)
    meter.close()
    for overlay, found in zip(todo, results):
        store.put(keys[overlay], found)
        findings += found
    return findings


def _context_key(ctx) -> bytes:
    """The --profile a run checks workloads against: its text is part of every cache key."""
    return fleet.file_bytes(Path(ctx.profile.source)) if ctx is not None else b""
