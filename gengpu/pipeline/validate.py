"""gengpu validate: profiles, other GPU files, overlays and argocd/, each checked once and kept by its inputs.

targets (given, or profiles/ + overlays/* + argocd/) -> profiles through the profile stage -> overlays rendered and
checked (in processes when many) -> every other file recognised and checked -> findings.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path

from gengpu import fleet, stages, writing
from gengpu.checking import consequences, documents, ownership
from gengpu.findings import Finding, UsageError, display, sort_findings
from gengpu.loading.folders import Files, flux_folders, is_overlay
from gengpu.pipeline.build import ARGOCD_DIR
from gengpu.pipeline.profiles import DEFAULT_OVERLAYS, Source, file_checks, load_profiles, profile_files


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
    ctx = _context(profile)
    targets, roots = ([Path(p) for p in paths], []) if paths else _repository_targets(shard)
    argo = Path(ARGOCD_DIR)
    files = Files()
    findings: list[Finding] = []
    if roots:
        from gengpu.checking.rules import RULES
        from gengpu.rendering import render

        findings += render.check_manifests(argo, display(argo), roots, RULES, kubernetes_version, engine, files)
    if not paths and writing.interrupted(Path(DEFAULT_OVERLAYS)):
        findings.append(ownership.interrupted(Path(DEFAULT_OVERLAYS)))
    overlays, plain = _split(targets)
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
        # the clusters overlays' workloads are checked against: only when there are overlays (a pre-commit run on
        # a profile builds none)
        clusters = _clusters(profiles, loaded) if overlays else {}
    findings += _check_overlays(overlays, kubernetes_version, ctx, clusters, engine, jobs, cache, progress, files)
    chosen = {id(s) for s in profiles}
    others = [s for s in sources if id(s) not in chosen]
    findings += _check_files(others, checks, ctx, kind, kubernetes_version, result.recognition, jobs)
    index.save(prune=not paths)
    result.profiles, result.files = len(profiles), len(plain) - len(profiles)
    result.findings = sort_findings(findings)
    return result


def _context(profile: str | None):
    """The cluster of --profile, that hand-written workloads are checked against."""
    if not profile:
        return None
    if not Path(profile).is_file():
        raise UsageError(f"--profile {profile}: no such file")
    ctx = documents.cluster_of(Path(profile))
    if ctx is None:
        raise UsageError(f"--profile {profile} has errors; run `gengpu validate {profile}` first")
    return ctx


def _repository_targets(shard: tuple[int, int] | None) -> tuple[list[Path], list[str]]:
    """What `gengpu validate` checks with no paths: profiles/, every overlay (with its verify/ and flux/ ones), and
    argocd/'s Applications; and the Argo CD root manifests beside them."""
    argo = Path(ARGOCD_DIR)
    overlays = sorted(p for p in Path(DEFAULT_OVERLAYS).glob("*")
                      if not p.name.startswith(".") and is_overlay(p) and fleet.in_shard(p.name, shard))
    verify = sorted(p for o in overlays for p in (o / "verify").glob("*") if is_overlay(p))
    verify += [p for o in overlays for p in flux_folders(o) if is_overlay(p)]
    argocd = fleet.in_shard(ARGOCD_DIR, shard)
    targets = [*(p for p in profile_files([]) if fleet.in_shard(p.name, shard)), *overlays, *verify,
               *([argo / "applications"] if argocd and is_overlay(argo / "applications") else [])]
    roots = [n for n in ("root-application.yaml", "applicationset.yaml") if argocd and (argo / n).is_file()]
    return targets, roots


def _split(targets: list[Path]) -> tuple[list[Path], list[Path]]:
    """Overlay folders, and files (a folder that is no overlay: its YAML files)."""
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
    return overlays, plain


def _clusters(profiles: list[Source], loaded) -> dict:
    """Each given profile's cluster, that its overlay's workloads are checked against (None: it failed its schema,
    which is reported on the profile itself)."""
    from gengpu.cluster import Cluster

    clusters: dict = {}
    checked = {c.source.path.resolve(): c for c in loaded.profiles}
    for s in profiles:
        c = checked.get(s.path.resolve())
        if c is None:
            clusters[s.path.resolve()] = None
        elif c.loaded is not None:
            clusters[s.path.resolve()] = Cluster.of(c.loaded)
    return clusters


def _check_files(sources: list[Source], checks, ctx, kind, kubernetes_version, recognition: list[str],
                 jobs: int | None = None) -> list[Finding]:
    """Every file that is no profile: what it is (loading/roles.py), then, if it is something gengpu judges, its
    findings (from the index when its bytes, role and the options are unchanged); parts of objects are judged
    again through their kustomizations (parts.py). What is not judged is said once."""
    from gengpu.loading.repository import Repositories
    from gengpu.pipeline import parts

    findings: list[Finding] = []
    options = ("check", kind or "", kubernetes_version or "", _context_key(ctx))
    schemas = None
    repositories = Repositories()
    unjudged, partial = [], []
    run_facts: set[str] = set()

    def schemas_for():
        nonlocal schemas
        if schemas is None:
            from gengpu.checking.objects import Schemas

            schemas = Schemas(kubernetes_version or (ctx.profile.kubernetes_version if ctx else None), repositories)
        return schemas

    for source in sources:
        decided = None if kind else source.decide(repositories)
        if decided is not None and not decided.findings and not any(r.judged for r in decided.roles):
            unjudged.append((source, decided.file))
            recognition.append(f"{source.shown}: not judged: {decided.file.said()}")
            continue
        key = checks.key(source, *options, *_roles_key(decided))
        entry = checks.get(key)
        if entry is None:
            notes: list[str] = []
            facts: list[str] = []
            found = documents.check_file(source, ctx, kind, schemas_for(), notes, facts)
            entry = {"findings": [asdict(f) for f in found], "notes": notes, "facts": facts}
            checks.put(key, entry)
        found = [Finding(**f) for f in entry["findings"]]
        recognition += entry["notes"]
        run_facts.update(entry.get("facts") or [])
        if decided is not None and parts.needs_rendering(source, found):
            partial.append((source, found))
        else:
            findings += found
    if partial:
        findings += parts.judge(partial, repositories, ctx, schemas_for, jobs or fleet.default_jobs(), recognition)
    findings = consequences.weigh(findings, run_facts)
    if unjudged:
        findings.append(_not_judged(unjudged, len(sources)))
    return findings


def _roles_key(decided) -> tuple:
    """What a file's check depends on besides its bytes: what loading found it to be."""
    if decided is None:
        return ()
    return tuple((r.name, r.chart or "", r.version or "", *sorted(str(u.kustomization) for u in r.uses))
                 for r in decided.roles) or (decided.file.name,)


def _not_judged(unjudged: list, total: int) -> Finding:
    """One line for every file that holds nothing gengpu judges, by what each was taken for."""
    from collections import Counter

    from gengpu.checking.rules import finding
    from gengpu.loading import roles

    counts = Counter(roles.SAID.get(role.name, role.name) for _, role in unjudged)
    parts = ", ".join(f"{what}: {n}" for what, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
    return finding("not-recognized", unjudged[0][0].shown, 0, 0,
                   f"{len(unjudged)} of {total} file(s) hold nothing gengpu judges ({parts}); "
                   "`gengpu validate -v` says what each was taken for")


def _check_overlays(overlays: list[Path], kubernetes_version, ctx, clusters: dict, engine: str, jobs, cache: bool,
                    progress: bool, files) -> list[Finding]:
    """Every overlay once: from the cache when nothing it depends on changed, else checked, in processes when many."""
    if not overlays:
        return []
    from gengpu import binaries as tools
    from gengpu.checking.rules import RULES
    from gengpu.rendering import render

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
        """Render and schema-check the overlay, then its files through the rules."""
        found = render.check_overlay(overlay, display(overlay), kubernetes_version, RULES, engine, files, schemas)
        ctx = context(overlay)
        # its files are judged for the release its rendering is: the overlay's own annotation
        version = render.kubernetes_version(overlay, kubernetes_version or (ctx.profile.kubernetes_version if ctx
                                                                            else None), files)
        return found + documents.check_overlay_files(overlay, ctx, files, version)

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


