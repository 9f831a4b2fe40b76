"""Render an overlay with `kustomize build` and validate the output with `kubeconform -strict`.

kubeconform reports resources of a stream by kind and name; we map each one back
to the overlay file that defines it, so findings name a file and a line.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from gengpu.compiling.overlay import VERSION_ANNOTATION
from gengpu.findings import Finding
from gengpu.loading import load_file
from gengpu.rendering import k8s_schemas, tools
from gengpu.schemas_dir import schemas_path

DEFAULT_KUBERNETES_VERSION = "1.37"
TIMEOUT = 300


def _kustomization(overlay: Path) -> Path | None:
    for name in ("kustomization.yaml", "kustomization.yml", "Kustomization"):
        if (overlay / name).is_file():
            return overlay / name
    return None


def is_overlay(path: Path) -> bool:
    return path.is_dir() and _kustomization(path) is not None


def kubernetes_version(overlay: Path, default: str | None) -> str:
    docs, _ = load_file(_kustomization(overlay))
    if docs and isinstance(docs[0].data, dict):
        annotations = (docs[0].data.get("metadata") or {}).get("annotations") or {}
        if annotations.get(VERSION_ANNOTATION):
            return str(annotations[VERSION_ANNOTATION])
    return default or DEFAULT_KUBERNETES_VERSION


def kustomize_build(overlay: Path, display: str) -> tuple[str | None, list[Finding]]:
    tool = tools.find("kustomize")
    cmd = [*tool.argv, "build", str(overlay)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT)
    if proc.returncode != 0:
        # kustomize's first line says what failed; later lines dump node contents.
        message = proc.stderr.strip().splitlines()[0] if proc.stderr.strip() else f"exit {proc.returncode}"
        return None, [Finding(f"{display}/{_kustomization(overlay).name}", 1, 1, "error", "kustomize-build",
                              f"kustomize build failed: {message.removeprefix('Error: ')}",
                              "fix the kustomization or the file it names; run `kustomize build` to see the whole error")]
    return proc.stdout, []


def _index(overlay: Path, display: str, files: list[Path] | None = None) -> dict:
    """(kind, name) -> (display file, Document) for every resource file in the overlay folder (or the given files)."""
    index = {}
    for path in files or sorted(overlay.rglob("*.y*ml")):
        if path.name.startswith("kustomization"):
            continue
        rel = f"{display}/{path.relative_to(overlay).as_posix()}"
        docs, _ = load_file(path, rel)
        for doc in docs:
            if isinstance(doc.data, dict) and isinstance(doc.data.get("metadata"), dict):
                index.setdefault((doc.data.get("kind"), doc.data["metadata"].get("name")), (rel, doc))
    return index


def _pointer(path: str) -> tuple:
    parts = []
    for raw in path.strip("/").split("/") if path.strip("/") else []:
        part = raw.replace("~1", "/").replace("~0", "~")
        parts.append(int(part) if part.isdigit() else part)
    return tuple(parts)


_ADDITIONAL = re.compile(r"additional properties (.+) not allowed")
_AT = re.compile(r"at '([^']*)': (.+)$")


def _leaf_errors(msg: str, errors: list[dict]) -> list[tuple[str, str]]:
    """kubeconform's validationErrors stop at a $ref ('validation failed'); its msg has the leaves."""
    if errors and all(e.get("msg") != "validation failed" for e in errors):
        return [(e.get("path", ""), e.get("msg", "")) for e in errors]
    leaves = [m.groups() for line in msg.splitlines() if (m := _AT.search(line))]
    leaves = [(p, m) for p, m in leaves if m != "validation failed"]
    return leaves or [(e.get("path", ""), e.get("msg", "")) for e in errors]


def kubeconform_check(manifests: str, overlay: Path, display: str, kubernetes_version: str,
                      files: list[Path] | None = None) -> list[Finding]:
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
        return [Finding(display, 0, 0, "error", "kubeconform",
                        f"kubeconform failed: {(proc.stderr or proc.stdout).strip()[:500]}",
                        "run kubeconform by hand on `kustomize build` output to see why")]
    index = _index(overlay, display, files)
    findings = []
    for res in report.get("resources", []):
        status = res.get("status")
        if status in ("statusValid", "statusSkipped", "statusEmpty"):
            continue
        kind, name = res.get("kind"), res.get("name")
        file, doc = index.get((kind, name), (f"{display}/kustomization.yaml", None))
        what = f"{kind} {name}"
        errors = res.get("validationErrors") or []
        if "could not find schema" in res.get("msg", ""):
            findings.append(Finding(file, *(doc.position(()) if doc else (1, 1)), "error", "kubeconform-no-schema",
                                    f"{what}: no schema for {res.get('version')} {kind}",
                                    "add the CRD to scripts/sync-schemas, or remove the resource"))
            continue
        leaves = _leaf_errors(res.get("msg", ""), errors)
        if not leaves:
            findings.append(Finding(file, *(doc.position(()) if doc else (1, 1)), "error", "kubeconform",
                                    f"{what}: {res.get('msg', status)}", "fix the resource"))
        for where, message in leaves:
            path = _pointer(where)
            extra = _ADDITIONAL.match(message)
            names = re.findall(r"'([^']*)'", extra.group(1)) if extra else [None]
            for name in names:
                at = path + (name,) if name else path
                line, col = doc.position(at, key=bool(name)) if doc else (1, 1)
                findings.append(Finding(file, line, col, "error", "kubeconform",
                                        f"{what} at {'/'.join(('',) + tuple(map(str, at))) or '/'}: "
                                        + (f"unknown field '{name}'" if name else message),
                                        "remove or rename the field" if name
                                        else "fix the field so it matches the resource's schema"))
    return findings


def check_overlay(overlay: Path, display: str, default_version: str | None = None) -> list[Finding]:
    manifests, findings = kustomize_build(overlay, display)
    if manifests is None:
        return findings
    return kubeconform_check(manifests, overlay, display, kubernetes_version(overlay, default_version))


def check_manifests(folder: Path, display: str, names: list[str], kubernetes_version: str | None = None) -> list[Finding]:
    """kubeconform on plain manifest files that no kustomization lists (the Argo CD root objects)."""
    files = [folder / n for n in names if (folder / n).is_file()]
    if not files:
        return []
    text = "\n---\n".join(f.read_text(encoding="utf-8") for f in files)
    return kubeconform_check(text, folder, display, kubernetes_version or DEFAULT_KUBERNETES_VERSION, files)
