"""Checking one file or one overlay: recognise each document, schema-check it and run the rules; the files
beside an overlay (the GKE auto-provisioning file, node pool scripts); a file nothing recognised; and the
cluster an overlay's workloads are checked against, from the profile its header names.

The pipeline calls these; they decide, it orchestrates (it renders an overlay, then hands its files here).
"""

from __future__ import annotations

from pathlib import Path

from gengpu import overlay_files, writing
from gengpu.findings import Finding, display
from gengpu.headers import HEADER_MARK


def recognition(subjects, docs) -> list[str]:
    """What each document was recognised as, and why: `gengpu validate -v`."""
    lines, by_doc = [], {}
    for s in subjects:  # each subject under its document and its host's: one pass, linear in documents
        for held in {id(s.doc), id(s.outer)}:
            by_doc.setdefault(held, []).append(s)
    for doc in docs:
        mine = by_doc.get(id(doc), [])
        if not mine:
            said = doc.role.said() if doc.role is not None else "no apiVersion and kind, and no shape gengpu knows"
            lines.append(f"{doc.file}:{doc.position(())[0]}: nothing GPU-related: {said}")
        for s in mine:
            lines.append(f"{doc.file}:{s.doc.position(())[0]}: {s.kind} ({s.label}): {s.why}")
    return lines


def check_documents(docs, ctx, schemas=None, notes: list | None = None,
                    facts: list | None = None, kubernetes_version: str | None = None) -> tuple[list[Finding], bool]:
    """Recognise, schema-check and run the rules over the documents of one file or overlay.

    Returns the findings and whether anything GPU-related was recognised. schemas: the object schema engine
    (None where kubeconform already checked the objects). Rules see a document whose object failed its
    schema only as far as they can; cross-document rules do not see it. kubernetes_version: the release the
    objects are judged for where no schema engine says it (an overlay's own gengpu.dev/kubernetes-version).
    """
    from gengpu.checking.run import check_overlay_rules, check_subject
    from gengpu.checking.subjects import Documents, classify, well_formed
    from gengpu.checking.targets import OBJECT

    subjects = []
    docs, findings = well_formed(docs)
    for doc in docs:
        found, errors = classify(doc)
        findings += errors
        subjects += found
    broken = set()
    for subject in subjects:
        if kubernetes_version is not None and subject.kubernetes_version is None:
            subject.kubernetes_version = kubernetes_version
        if subject.kind == OBJECT:
            more = check_subject(subject, ctx, schemas)
            if any(f.is_error and f.rule == "object-schema" for f in more):
                broken.add(id(subject.doc))
            findings += more
    for subject in subjects:
        if subject.kind != OBJECT:
            findings += check_subject(subject, ctx, schemas, shapeless=id(subject.doc) in broken)
    findings += check_overlay_rules(Documents(subjects, [d for d in docs if id(d) not in broken]), ctx)
    if notes is not None:
        notes += recognition(subjects, docs)
    if facts is not None:
        from gengpu.checking.consequences import facts as shown

        facts += shown(subjects)
    return findings, any(s.kind != OBJECT for s in subjects)


def forced(docs, kind: str, ctx) -> list[Finding]:
    """Check every document as the given kind of config, whatever it looks like."""
    from gengpu.checking.run import SCHEMAS, check_subject, schema_file
    from gengpu.checking.schema import check_schema
    from gengpu.checking.subjects import Subject

    findings = []
    for doc in docs:
        subject = Subject(kind, doc, doc.data, kind)
        if isinstance(doc.data, dict):
            findings += check_subject(subject, ctx)
        else:
            name, rule, _ = SCHEMAS[kind]
            findings += check_schema(doc, schema_file(name), rule)
    return findings


def check_file(source, ctx, kind: str | None = None, schemas=None, notes=None, facts=None) -> list[Finding]:
    """One file as the pipeline read it: its documents (with the roles loading gave them) and the load findings
    that are about something gengpu judges."""
    findings = source.decided.findings if source.decided is not None else source.findings
    if findings:
        return findings
    if kind:
        return forced(source.docs, kind, ctx)
    return check_documents(source.docs, ctx, schemas, notes, facts)[0]


def side_files(overlay: Path, files) -> list[Finding]:
    """Files beside the overlay that are no Kubernetes objects: the GKE auto-provisioning file and scripts."""
    from gengpu.checking.rules import finding
    from gengpu.checking.run import schema_file
    from gengpu.checking.schema import check_schema

    findings = []
    nap = overlay / overlay_files.GKE_AUTOPROVISIONING
    if nap.is_file():
        docs, errors = files.load(nap, display(nap))
        findings += errors
        for doc in docs:
            findings += check_schema(doc, schema_file("gke-autoprovisioning.schema.json"), "gke-autoprovisioning-schema")
    for script in sorted(overlay.glob("*.sh")):
        if writing.intact(f"{overlay.name}/{script.name}", script.read_text(encoding="utf-8", errors="replace")):
            continue  # exactly as gengpu wrote it: its scripts are parsed with bash -n in gengpu's own tests
        import re
        import subprocess

        proc = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True)
        if proc.returncode != 0:
            m = re.search(r"line (\d+): (.*)", proc.stderr)
            findings.append(finding("script-syntax", display(script), int(m.group(1)) if m else 1, 1,
                                    f"bash cannot parse it: {m.group(2) if m else proc.stderr.strip()}"))
    return findings


def overlay_profile(overlay: Path) -> Path | None:
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


def cluster_of(profile_path: Path | None):
    """The cluster a workload is checked against, from a profile that passes its schema (its rules are its own
    business: validate reports them on the profile)."""
    from gengpu.checking.profile import is_profile
    from gengpu.checking.schema import check_schema
    from gengpu.cluster import Cluster
    from gengpu.loading import load_file
    from gengpu.model import build_profile

    if profile_path is None:
        return None
    docs, errors = load_file(profile_path, display(profile_path))
    if errors or len(docs) != 1 or not is_profile(docs[0]):
        return None
    if check_schema(docs[0]):
        return None
    return Cluster.of(build_profile(docs[0].data, display(profile_path)))


def check_overlay_files(overlay: Path, ctx, files, kubernetes_version: str | None = None) -> list[Finding]:
    """The files of an overlay as they are written (its rendering is checked by gengpu/rendering): the files beside
    it, then the rules over its documents, judged for the Kubernetes release the overlay names (kubernetes_version,
    as its rendering is; a profile's ctx may say another)."""
    findings = side_files(overlay, files)
    docs = []
    for path in sorted(overlay.rglob("*.y*ml")):
        rel = path.relative_to(overlay).parts
        if path.name.startswith("kustomization") or path.name in overlay_files.NOT_DOCUMENTS or rel[0] == "verify":
            continue  # verify folders are kustomizations of their own, checked on their own
        loaded, errors = files.load(path, display(path))
        findings += errors
        docs += loaded
    return findings + check_documents(docs, ctx, kubernetes_version=kubernetes_version)[0]
