"""Render a gengpu-generated overlay in this process, as `kustomize build` would.

A generated kustomization lists files of its own folder and one label transformer
(app.kubernetes.io/managed-by, selectors untouched); nothing else. That much needs no
kustomize: load the files, add the labels. Anything more (a user's local/ component, a
hand-edited kustomization, verify overlays with components) goes to the real kustomize.
Tests hold this renderer to kustomize's output on every example and on a generated fleet.
"""

from __future__ import annotations

from dataclasses import dataclass
from gengpu.headers import is_generated
from gengpu.loading import Document

_KEYS = {"apiVersion", "kind", "metadata", "labels", "resources"}


@dataclass
class Rendered:
    """One resource of a rendered overlay: its data as kustomize emits it, and where it is written."""

    data: dict
    doc: Document | None  # the source document (positions); None when only kustomize's output is known
    file: str  # the source file, as findings show it


def plan(kustomization: Document, text: str) -> list[str] | None:
    """The resource files of a kustomization gengpu can render itself, or None."""
    data = kustomization.data
    if not is_generated(text) or not isinstance(data, dict) or set(data) - _KEYS:
        return None
    if data.get("kind") != "Kustomization" or not isinstance(data.get("resources"), list):
        return None
    resources = data["resources"]
    if not all(isinstance(r, str) and "/" not in r and r.endswith((".yaml", ".yml")) for r in resources):
        return None
    for label in data.get("labels") or []:
        if not isinstance(label, dict) or set(label) - {"pairs", "includeSelectors"} or label.get("includeSelectors"):
            return None
    return resources


def labels(kustomization: Document) -> dict:
    out = {}
    for label in kustomization.data.get("labels") or []:
        out.update({str(k): str(v) for k, v in (label.get("pairs") or {}).items()})
    return out


def render(files: dict[str, list[Document]], kustomization: Document, shown: dict[str, str]) -> list[Rendered]:
    """Resources in the order kustomize keeps them (the order of `resources`), each labelled as kustomize labels."""
    extra = labels(kustomization)
    out = []
    for name in kustomization.data["resources"]:
        for doc in files[name]:
            if not isinstance(doc.data, dict):
                continue
            data = dict(doc.data)
            if extra:
                meta = dict(data.get("metadata") or {})
                meta["labels"] = {**(meta.get("labels") or {}), **extra}
                data["metadata"] = meta
            out.append(Rendered(data, doc, shown[name]))
    return out
