"""Files that are parts of objects, judged through the kustomization that names them (rendering/kustomized.py).

A patch is judged as the object it patches; a kustomization's resource is judged as written, and when that gives
findings, again as its kustomization renders it, and the rendered verdict stands (kustomize may have completed
what the file leaves out: a selector from commonLabels, a namespace). A base (a kustomization others include) may
be completed by them, so fields its render still lacks are not called missing either. What cannot be rendered (a
remote base, no kustomize) leaves its files judged as parts: fields they lack are not called missing.
"""

from __future__ import annotations

from gengpu.findings import Finding, display
from gengpu.loading import roles as R
from gengpu.loading.folders import Files


def needs_rendering(source, found: list[Finding]) -> bool:
    """A patch a kustomization names; a kustomization's resource whose own findings kustomize might change."""
    roles = source.decided.roles if source.decided is not None else []
    if any(r.name == R.PATCH and r.uses for r in roles):
        return True
    return any(r.name == R.RESOURCE for r in roles) and any(f.severity != "info" for f in found)


def homes(source) -> list:
    """The kustomizations (repository.Use.kustomization paths) through which a file is judged."""
    out = []
    for role in source.decided.roles:
        for use in role.uses:
            if use.kustomization not in out:
                out.append(use.kustomization)
    return out


def judge(parts: list, repositories, ctx, schemas_for, jobs: int, notes: list[str]) -> list[Finding]:
    """parts: (source, its findings as written). Each home kustomization is rendered once (kustomize runs in
    parallel); a file keeps the findings its renders give at its own lines, or, where no home renders, the findings
    it has as a part."""
    from concurrent.futures import ThreadPoolExecutor

    from gengpu.checking import documents
    from gengpu.rendering import kustomized

    by_home: dict = {}
    for source, _ in parts:
        repo = repositories.around(source.path)
        for path in homes(source):
            by_home.setdefault(path, (repo, []))[1].append(source)
    files = Files()
    order = list(by_home)

    def render(path):
        repo, _ = by_home[path]
        return kustomized.build(repo.kustomizations[path], repo, files, display)

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        rendered = dict(zip(order, pool.map(render, order)))
    wanted = {source.shown for source, _ in parts}
    judged: dict[str, list[Finding]] = {}
    for path in order:
        repo, sources = by_home[path]
        docs, why = rendered[path]
        shown = display(path)
        if docs is None:
            notes.append(f"{shown}: not rendered: {why}")
            continue
        # only the objects a file of the run wrote, or patched: the rest of the kustomization is not this run's
        docs = [d for d in docs if d.file in wanted or any(p.file in wanted for p in d.patches) or
                any(op[0].file in wanted for op in d.operations)]
        found, _ = documents.check_documents(docs, ctx, schemas_for())
        for source in sources:
            judged.setdefault(source.shown, [])
        # a kustomization others include is a base: they may still fill in what its render leaves out
        base = bool(repo.includers(repo.kustomizations[path]))
        for f in found:
            if f.file in wanted and not (base and _completable(f)):
                judged.setdefault(f.file, []).append(f)
    findings: list[Finding] = []
    seen = set()
    for source, written in parts:
        if source.shown in judged:
            mine = judged[source.shown]
        else:
            mine = [f for f in written if not _completable(f)]  # judged as a part: kustomize may complete it
        for f in mine:
            key = (f.file, f.line, f.column, f.rule)
            if key not in seen:
                seen.add(key)
                findings.append(f)
    return findings


def _completable(f: Finding) -> bool:
    """A finding a kustomization may make moot: a field it fills in (a selector, a namespace, a name)."""
    return f.rule == "object-schema" and "missing required field" in f.message
