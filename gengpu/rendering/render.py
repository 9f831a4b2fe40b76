"""Render an overlay and check every rendered resource against its schema.

gengpu's own overlays render in-process (rendering/inprocess.py); an overlay a user
extended, or any other kustomization, goes through the real `kustomize build`. Resources
are then checked by the schema engine (checking/objects.py: validators compiled once per
kind), or, with engine "kubeconform", by the real `kubeconform -strict`, the referee the
tests hold the engine to. Findings name the file and line that define the resource; for
kustomize's output that mapping is made only for resources with findings.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from gengpu.checking import cel
from gengpu.checking.objects import Schemas, documented, schema_errors, schema_name, unknown_field, without_nulls
from gengpu.headers import VERSION_ANNOTATION
from gengpu.findings import Finding
from gengpu.loading import load_documents
from gengpu import binaries as tools
from gengpu.rendering import inprocess, k8s_schemas
from gengpu.loading.folders import Files
from gengpu.loading.folders import kustomization_file as _kustomization
from gengpu.rendering.inprocess import Rendered
from gengpu.rendering.kustomized import json_pointer
from gengpu.schemas_dir import schemas_path

DEFAULT_KUBERNETES_VERSION = "1.37"
TIMEOUT = 300
ENGINES = ("gengpu", "kubeconform")


def kubernetes_version(overlay: Path, default: str | None, files: Files | None = None) -> str:
    k = _kustomization(overlay)
    docs, _ = (files or Files()).load(k, str(k))
    if docs and isinstance(docs[0].data, dict):
        annotations = (docs[0].data.get("metadata") or {}).get("annotations") or {}
        if isinstance(annotations, dict) and annotations.get(VERSION_ANNOTATION):
            return str(annotations[VERSION_ANNOTATION])
    return default or DEFAULT_KUBERNETES_VERSION


def kustomize_build(overlay: Path, display: str) -> tuple[str | None, list[Finding]]:
    tool = tools.find("kustomize")
    # a stage of a Flux cluster lists the overlay's files (../../x.yaml): built as Flux builds it
    cmd = tool.build(overlay, anywhere=(overlay.parent / "kustomizations.yaml").is_file())
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT)
    if proc.returncode != 0:
        # kustomize's first line says what failed; later lines dump node contents.
        message = proc.stderr.strip().splitlines()[0] if proc.stderr.strip() else f"exit {proc.returncode}"
        return None, [Finding(f"{display}/{_kustomization(overlay).name}", 1, 1, "error", "kustomize-build",
                              f"kustomize build failed: {message.removeprefix('Error: ')}",
                              "fix the kustomization or the file it names; run `kustomize build` to see the whole error")]
    return proc.stdout, []


def render(overlay: Path, display: str, files: Files) -> tuple[list[Rendered], list[Finding], bool]:
    """The overlay's resources, the findings that stopped it, and whether it was rendered in-process."""
    k = _kustomization(overlay)
    kdocs, kfindings = files.load(k, f"{display}/{k.name}")
    if kfindings:
        return [], kfindings, True
    names = inprocess.plan(kdocs[0], kdocs[0].text) if len(kdocs) == 1 else None
    if names is not None and all((overlay / n).is_file() for n in names):
        loaded, findings = {}, []
        shown = {n: f"{display}/{n}" for n in names}
        for n in names:
            loaded[n], errors = files.load(overlay / n, shown[n])
            findings += errors
        if findings:
            return [], findings, True
        return inprocess.render(loaded, kdocs[0], shown), [], True
    text, findings = kustomize_build(overlay, display)
    if text is None:
        return [], findings, False
    docs, errors = load_documents(text, f"{display}/{k.name}")
    return [Rendered(d.data, None, f"{display}/{k.name}") for d in docs if isinstance(d.data, dict)], errors, False


def _index(overlay: Path, display: str, files: Files) -> dict:
    """(kind, name) -> (display file, Document) for every resource file in the overlay folder."""
    index = {}
    for path in sorted(overlay.rglob("*.y*ml")):
        if path.name.startswith("kustomization"):
            continue
        rel = f"{display}/{path.relative_to(overlay).as_posix()}"
        docs, _ = files.load(path, rel)
        for doc in docs:
            if isinstance(doc.data, dict) and isinstance(doc.data.get("metadata"), dict):
                index.setdefault((doc.data.get("kind"), doc.data["metadata"].get("name")), (rel, doc))
    return index


def _where(resource: Rendered, overlay: Path, display: str, files: Files, index: dict, path: tuple, key: bool):
    """File, line, column of a path in a rendered resource: its own document, or the file kustomize took it from."""
    doc, file = resource.doc, resource.file
    if doc is None:
        if not index:
            index.update(_index(overlay, display, files) or {None: None})
        meta = resource.data.get("metadata") if isinstance(resource.data.get("metadata"), dict) else {}
        file, doc = index.get((resource.data.get("kind"), meta.get("name")), (file, None))
    line, col = doc.position(path, key=key) if doc is not None else (1, 1)
    return file, line, col


def _pointer(path) -> str:
    return "/" + "/".join(str(p).replace("~", "~0").replace("/", "~1") for p in path)


def check_resources(resources: list[Rendered], overlay: Path, display: str, schemas: Schemas, files: Files,
                    rules) -> list[Finding]:
    """Every rendered resource against the schema of its kind; a kind without one is an error in an overlay."""
    findings, index = [], {}
    for r in resources:
        group, _, version = str(r.data.get("apiVersion", "")).rpartition("/")
        kind = str(r.data.get("kind", ""))
        name = (r.data.get("metadata") or {}).get("name") if isinstance(r.data.get("metadata"), dict) else None
        what = f"{kind} {name}"
        validator = schemas.validator(group, version, kind)
        if validator is None:
            rule = rules["overlay-kind-no-schema"]
            file, line, col = _where(r, overlay, display, files, index, (), False)
            findings.append(Finding(file, line, col, rule.severity, rule.id,
                                    f"{what}: no schema for {r.data.get('apiVersion')} {kind}", rule.fix))
            continue
        rule = rules["object-schema"]
        errors = schema_errors(validator, without_nulls(r.data))
        marked = documented(group, version, kind)
        for path, message, key in errors:
            file, line, col = _where(r, overlay, display, files, index, path, key)
            if key:
                findings.append(unknown_field(rules, file, (line, col), what, _pointer(path), path[-1], marked))
                continue
            findings.append(Finding(file, line, col, rule.severity, rule.id, f"{what} at {_pointer(path)}: {message}",
                                    "fix the field so it matches the schema"))
        schema = schema_name(group, version, kind)
        if not (errors and not marked) and cel.has_rules(schema):
            file, _, _ = _where(r, overlay, display, files, index, (), False)
            doc = r.doc if r.doc is not None else (index.get((kind, name)) or (None, None))[1]
            findings += cel.findings(doc, file, r.data, what, schema, rules)
    return findings


# --- the referee: kubeconform ------------------------------------------------------------------------------

_ADDITIONAL = re.compile(r"additional properties (.+) not allowed")
# "- at '<pointer>': <message>", one after another: kubeconform 0.7.0 puts them on one line, three spaces apart
_AT = re.compile(r"- at '([^']*)': (.*?)(?=\s+- at '|$)", re.MULTILINE)


def _leaf_errors(msg: str, errors: list[dict]) -> list[tuple[str, str]]:
    """kubeconform's validationErrors stop at a $ref ('validation failed'); its msg has the leaves."""
    if errors and all(e.get("msg") != "validation failed" for e in errors):
        return [(e.get("path", ""), e.get("msg", "")) for e in errors]
    leaves = [(p, m.strip()) for p, m in _AT.findall(msg) if m.strip() != "validation failed"]
    return leaves or [(e.get("path", ""), e.get("msg", "")) for e in errors]


def kubeconform_check(manifests: str, overlay: Path, display: str, kubernetes_version: str, rules,
                      files: Files | None = None, paths: list[Path] | None = None) -> list[Finding]:
    """`kubeconform -strict` on rendered output, with findings under the same rules as the engine's."""
    tool = tools.find("kubeconform")
    k8s = k8s_schemas.schema_dir(kubernetes_version)
    crds = schemas_path() / "crds"
    cmd = [
        *tool.argv,
        "-kubernetes-version", f"{kubernetes_version}.0",
        "-strict", "-summary", "-output", "json",
        "-schema-location", str(k8s.parent / "{{ .NormalizedKubernetesVersion }}-local{{ .StrictSuffix }}"
                                / "{{ .ResourceKind }}{{ .KindSuffix }}.json"),
        "-schema-location", str(crds / "{{ .ResourceKind }}{{ .KindSuffix }}.json"),
        "-schema-location", str(schemas_path() / "documented" / "{{ .ResourceKind }}{{ .KindSuffix }}.json"),
        "-",
    ]
    proc = subprocess.run(cmd, input=manifests, capture_output=True, text=True, timeout=TIMEOUT)
    try:
        report = json.loads(proc.stdout)
    except json.JSONDecodeError:
        return [Finding(display, 0, 0, "error", "kustomize-build",
                        f"kubeconform failed: {(proc.stderr or proc.stdout).strip()[:500]}",
                        "run kubeconform by hand on `kustomize build` output to see why")]
    files = files or Files()
    index = _index(overlay, display, files) if paths is None else {
        (d.data.get("kind"), (d.data.get("metadata") or {}).get("name")): (f"{display}/{p.name}", d)
        for p in paths for d in files.load(p, f"{display}/{p.name}")[0] if isinstance(d.data, dict)}
    findings = []
    # Without -verbose, kubeconform's JSON lists only the resources it found invalid or could not check.
    for res in report.get("resources", []):
        kind, name = res.get("kind"), res.get("name")
        file, doc = index.get((kind, name), (f"{display}/kustomization.yaml", None))
        what = f"{kind} {name}"
        if "could not find schema" in res.get("msg", ""):
            rule = rules["overlay-kind-no-schema"]
            findings.append(Finding(file, *(doc.position(()) if doc else (1, 1)), rule.severity, rule.id,
                                    f"{what}: no schema for {res.get('version')} {kind} (kubeconform)", rule.fix))
            continue
        rule = rules["object-schema"]
        leaves = _leaf_errors(res.get("msg", ""), res.get("validationErrors") or [])
        if not leaves:
            findings.append(Finding(file, *(doc.position(()) if doc else (1, 1)), rule.severity, rule.id,
                                    f"{what}: {res.get('msg', res.get('status'))} (kubeconform)", "fix the resource"))
        for where, message in leaves:
            path = json_pointer(where)
            extra = _ADDITIONAL.match(message)
            names = re.findall(r"'([^']*)'", extra.group(1)) if extra else [None]
            for field in names:
                at = path + (field,) if field else path
                line, col = doc.position(at, key=bool(field)) if doc else (1, 1)
                if field:
                    group, _, version = str(res.get("version", "")).rpartition("/")
                    findings.append(unknown_field(rules, file, (line, col), what, _pointer(at), field,
                                                  documented(group, version, kind), " (kubeconform)"))
                    continue
                findings.append(Finding(file, line, col, rule.severity, rule.id,
                                        f"{what} at {_pointer(at)}: {message} (kubeconform)",
                                        "fix the field so it matches the schema"))
    return findings


def check_overlay(overlay: Path, display: str, default_version: str | None, rules, engine: str = "gengpu",
                  files: Files | None = None, schemas: dict | None = None) -> list[Finding]:
    """Render the overlay and check every resource with the chosen engine."""
    files = files or Files()
    version = kubernetes_version(overlay, default_version, files)
    if engine == "kubeconform":
        manifests, findings = kustomize_build(overlay, display)
        if manifests is None:
            return findings
        return kubeconform_check(manifests, overlay, display, version, rules, files)
    resources, findings, _ = render(overlay, display, files)
    if findings:
        return findings
    schemas = schemas if schemas is not None else {}
    if version not in schemas:
        schemas[version] = Schemas(version)
    return check_resources(resources, overlay, display, schemas[version], files, rules)


def check_manifests(folder: Path, display: str, names: list[str], rules, kubernetes_version: str | None = None,
                    engine: str = "gengpu", files: Files | None = None) -> list[Finding]:
    """Plain manifest files that no kustomization lists (the Argo CD root objects)."""
    files = files or Files()
    paths = [folder / n for n in names if (folder / n).is_file()]
    if not paths:
        return []
    version = kubernetes_version or DEFAULT_KUBERNETES_VERSION
    if engine == "kubeconform":
        text = "\n---\n".join(p.read_text(encoding="utf-8") for p in paths)
        return kubeconform_check(text, folder, display, version, rules, files, paths)
    resources, findings = [], []
    for p in paths:
        docs, errors = files.load(p, f"{display}/{p.name}")
        findings += errors
        resources += [Rendered(d.data, d, f"{display}/{p.name}") for d in docs if isinstance(d.data, dict)]
    return findings + check_resources(resources, folder, display, Schemas(version), files, rules)
