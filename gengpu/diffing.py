"""`gengpu diff --base REF`: what a merge changes on each cluster, resource by resource.

Both sides are rendered the way Argo CD renders them: `kustomize build` of every
overlay, plus the cluster's Argo CD Application (where the GPU Operator chart
version and values file live). The base side comes from `git archive REF`.
"""

from __future__ import annotations

import difflib
import io
import subprocess
import tarfile
import tempfile
from pathlib import Path

import yaml

from gengpu.compiling.yamltext import dump_sorted
from gengpu.findings import UsageError
from gengpu.rendering import render


def _git(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True)


def _export(ref: str, root: Path, folders: list[str], target: Path) -> None:
    """The given folders of the repository at ref, written under target (missing folders are skipped)."""
    present = [f for f in folders if _git(["cat-file", "-e", f"{ref}:{f}"], root).returncode == 0]
    if not present:
        return
    proc = _git(["archive", "--format=tar", ref, *present], root)
    if proc.returncode != 0:
        raise UsageError(f"git archive {ref} failed: {proc.stderr.decode().strip()}")
    with tarfile.open(fileobj=io.BytesIO(proc.stdout)) as tar:
        tar.extractall(target, filter="data")


def _key(doc: dict) -> str:
    meta = doc.get("metadata") or {}
    ns = f"{meta['namespace']}/" if meta.get("namespace") else ""
    return f"{doc.get('kind')} {ns}{meta.get('name')}"


def _objects(tree: Path, overlays_dir: str) -> dict[str, dict[str, dict]]:
    """cluster -> resource key -> object, for one side."""
    clusters: dict[str, dict[str, dict]] = {}
    for overlay in sorted((tree / overlays_dir).glob("*/kustomization.yaml")):
        name = overlay.parent.name
        text, findings = render.kustomize_build(overlay.parent, f"{overlays_dir}/{name}")
        if text is None:
            raise UsageError(f"{findings[0].file}: {findings[0].message}")
        objs = {_key(d): d for d in yaml.safe_load_all(text) if isinstance(d, dict)}
        app = tree / "argocd" / "applications" / f"{name}.yaml"
        if app.is_file():
            doc = yaml.safe_load(app.read_text())
            objs[_key(doc)] = doc
        clusters[name] = objs
    return clusters


def _text(doc: dict | None) -> list[str]:
    return dump_sorted(doc).splitlines(keepends=True) if doc else []


def diff(base: str, overlays_dir: str = "overlays") -> tuple[str, bool]:
    """The report, and whether anything changes."""
    top = _git(["rev-parse", "--show-toplevel"], Path.cwd())
    if top.returncode != 0:
        raise UsageError("gengpu diff runs inside a git repository")
    root = Path(top.stdout.decode().strip())
    if _git(["rev-parse", "--verify", "--quiet", f"{base}^{{commit}}"], root).returncode != 0:
        raise UsageError(f"unknown git revision '{base}'")
    with tempfile.TemporaryDirectory(prefix="gengpu-diff-") as tmp:
        _export(base, root, [overlays_dir, "argocd"], Path(tmp))
        before = _objects(Path(tmp), overlays_dir)
    after = _objects(root, overlays_dir)
    out, changed = [], False
    for cluster in sorted(set(before) | set(after)):
        old, new = before.get(cluster, {}), after.get(cluster, {})
        lines = []
        for key in sorted(set(old) | set(new)):
            if key not in old:
                lines.append(f"+ {key} (new)")
            elif key not in new:
                lines.append(f"- {key} (removed)")
            elif old[key] != new[key]:
                lines.append(f"~ {key}")
                lines += ["    " + d.rstrip("\n") for d in difflib.unified_diff(
                    _text(old[key]), _text(new[key]), fromfile=base, tofile="working tree", n=2)]
        if not lines:
            continue
        changed = True
        state = " (new cluster)" if cluster not in before else " (removed cluster)" if cluster not in after else ""
        out += [f"## {cluster}{state}", "", *lines, ""]
    return ("\n".join(out) if out else f"No changes against {base}.\n"), changed
