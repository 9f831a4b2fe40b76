"""Files that are parts of an object, judged as kustomize renders them: a patch through the object it patches, a
kustomization's resource as its kustomization completes it (namespace, labels and selectors, images, names,
replacements).

The real `kustomize build` renders the kustomization that names the file (its home), with kustomize's own
originAnnotations, so every rendered object says which file it came from. A rendered object is then checked like
any other, and its findings point into the files its values were written in: a patch's fields at the patch's lines,
the rest at the resource's. A kustomization that needs the network or tools gengpu does not run (a remote base, a
Helm chart, a plugin) is not built; its resources are judged as written, as parts.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from gengpu.loading import Document, roles
from gengpu.loading.folders import Files

ORIGIN = "config.kubernetes.io/origin"
TIMEOUT = 120


@dataclass
class RenderedDocument(Document):
    """An object as kustomize rendered it, with positions in the files it was written in: the patches that set a
    value first (the last applied wins), else the resource file it came from (its nearest written parent)."""

    patches: list = field(default_factory=list, repr=False)  # Documents of strategic-merge patches, applied order
    # JSON 6902 operations: (Document, index, the path it sets relative to this document, where this document's
    # root lies inside the operation's value)
    operations: list = field(default_factory=list, repr=False)

    def source_for(self, path) -> Document:
        path = tuple(path)
        for patch in reversed(self.patches):
            if path and _written(patch.node, path):
                return patch
        for doc, i, at, inner in reversed(self.operations):
            if path[:len(at)] == at:
                return _Operation(doc, i, at, inner)
        return self

    def at(self, path) -> "RenderedDocument | None":
        """The value at path (a HelmRelease's values) as a document of its own, still placed in its files."""
        path = tuple(path)
        base = Document.at(self, path)
        if base is None:
            return None
        patches = [p for p in (patch.at(path) for patch in self.patches) if p is not None]
        operations = [(doc, i, at[len(path):], inner) for doc, i, at, inner in self.operations
                      if at[:len(path)] == path] + \
                     [(doc, i, (), inner + path[len(at):]) for doc, i, at, inner in self.operations
                      if len(at) < len(path) and path[:len(at)] == at]
        return RenderedDocument(base.file, base.data, base.index, base.node, base.text, base.line_shift,
                                base.col_shift, base.flat, role=self.role, patches=patches, operations=operations)

    def position(self, path, *, key: bool = False) -> tuple[int, int]:
        if self.node is None:
            return (1, 1)
        return Document.position(self, path, key=key)


class _Operation(Document):
    """A JSON 6902 operation's value, standing for the path it sets."""

    def __init__(self, doc: Document, index: int, at: tuple, inner: tuple = ()):
        super().__init__(doc.file, doc.data, doc.index, doc.node, doc.text, doc.line_shift, doc.col_shift, doc.flat,
                         role=doc.role)
        self._index, self._at, self._inner = index, at, inner

    def position(self, path, *, key: bool = False) -> tuple[int, int]:
        rest = self._inner + tuple(path)[len(self._at):]
        return Document.position(self, (self._index, "value", *rest) if rest else (self._index, "path"), key=key)


def _written(node, path: tuple) -> bool:
    from gengpu.loading.source import _child

    for part in path:
        found = _child(node, part)
        if found is None:
            return False
        node = found[1]
    return True


def build(home, repo, files: Files, display) -> tuple[list[RenderedDocument] | None, str | None]:
    """The objects of a kustomization (repository.Kustomization) as kustomize renders them, each with positions in
    its own files; or None and why it was not rendered."""
    from gengpu import binaries as tools
    from gengpu.findings import UsageError

    if _needs_remote(home, repo):
        return None, "it names remote bases, Helm charts or plugins (gengpu runs kustomize without the network)"
    try:
        tool = tools.find("kustomize")
    except UsageError as exc:
        return None, str(exc)
    with tempfile.TemporaryDirectory(prefix="gengpu-kustomize-") as work:
        rel = os.path.relpath(home.folder, work)
        listed = "components" if home.component else "resources"
        Path(work, "kustomization.yaml").write_text(
            f"{listed}:\n- {rel}\nbuildMetadata: [originAnnotations]\n", encoding="utf-8")
        try:
            proc = subprocess.run(tool.build(work, anywhere=True), capture_output=True, text=True, timeout=TIMEOUT)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return None, f"kustomize did not finish: {exc}"
        if proc.returncode != 0:
            first = (proc.stderr.strip().splitlines() or [f"exit {proc.returncode}"])[-1]
            return None, f"kustomize build failed: {first.removeprefix('Error: ')[:300]}"
        try:
            objects = [d for d in yaml.load_all(proc.stdout, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
                       if isinstance(d, dict)]
        except yaml.YAMLError as exc:
            return None, f"kustomize's output did not parse: {exc}"
        return [_locate(obj, work, home, files, display) for obj in objects], None


def _needs_remote(home, repo) -> bool:
    """Whether the kustomization, or one it includes, names anything remote."""
    seen, todo = set(), [home]
    while todo:
        k = todo.pop()
        if k.path in seen:
            continue
        seen.add(k.path)
        if k.remote:
            return True
        todo += [inner for inner in map(repo.kustomization_at, k.folders) if inner is not None]
    return False


def _origin(obj: dict, work: str) -> tuple[Path | None, bool]:
    """The file an object came from (kustomize's origin annotation, which is then removed), and whether a
    generator made it."""
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    annotations = meta.get("annotations") if isinstance(meta.get("annotations"), dict) else {}
    raw = annotations.pop(ORIGIN, None)
    if not annotations and "annotations" in meta:
        del meta["annotations"]
    try:
        origin = yaml.safe_load(raw) if isinstance(raw, str) else None
    except yaml.YAMLError:
        origin = None
    if not isinstance(origin, dict):
        return None, False
    where = origin.get("path") or origin.get("configuredIn")
    if not isinstance(where, str) or "://" in where:
        return None, False
    return Path(os.path.normpath(os.path.join(work, where))), "configuredIn" in origin


def _name(obj) -> str:
    meta = obj.get("metadata") if isinstance(obj, dict) and isinstance(obj.get("metadata"), dict) else {}
    return str(meta.get("name", ""))


def _source(obj: dict, docs: list[Document]) -> Document | None:
    """The document of the file an object came from: the same kind, and the name it had before namePrefix,
    nameSuffix or a generator's hash."""
    kind, name = obj.get("kind"), _name(obj)
    same = [d for d in docs if isinstance(d.data, dict) and d.data.get("kind") == kind]
    named = [d for d in same if _name(d.data) and _name(d.data) in name]
    named.sort(key=lambda d: len(_name(d.data)), reverse=True)
    return named[0] if named else (same[0] if len(same) == 1 else None)


def _locate(obj: dict, work: str, home, files: Files, display) -> RenderedDocument:
    origin, _generated = _origin(obj, work)
    source = None
    if origin is not None and origin.is_file():
        docs, _ = files.load(origin, display(origin))
        source = _source(obj, docs)
    patches, operations = _patches(obj, source, home, files, display)
    role = roles.Role(roles.OBJECT, f"as kustomize renders {display(home.path)}")
    if source is None:
        shown = display(origin) if origin is not None else display(home.path)
        return RenderedDocument(shown, obj, role=role, patches=patches, operations=operations)
    return RenderedDocument(source.file, obj, source.index, source.node, source.text, source.line_shift,
                            source.col_shift, source.flat, role=role, patches=patches, operations=operations)


def _patches(obj: dict, source: Document | None, home, files: Files, display) -> tuple[list, list]:
    """The patches of the home kustomization that apply to this object: strategic-merge documents of its kind and
    name, JSON 6902 operations whose entry targets it."""
    names = {_name(obj)} | ({_name(source.data)} if source is not None else set())
    data = home.data
    entries = []  # (path, target kind, target name)
    for field_name in ("patches", "patchesJson6902"):
        for entry in data.get(field_name) or [] if isinstance(data.get(field_name), list) else []:
            if isinstance(entry, str) and "\n" not in entry and ": " not in entry:
                entries.append((entry, None, None))
            elif isinstance(entry, dict) and isinstance(entry.get("path"), str):
                target = entry.get("target") if isinstance(entry.get("target"), dict) else {}
                entries.append((entry["path"], target.get("kind"), target.get("name")))
    for entry in data.get("patchesStrategicMerge") or [] if isinstance(data.get("patchesStrategicMerge"), list) else []:
        if isinstance(entry, str) and "\n" not in entry and ": " not in entry:
            entries.append((entry, None, None))
    patches, operations = [], []
    for rel, kind, name in entries:
        path = home.folder / rel
        if not path.is_file():
            continue
        if kind and kind != obj.get("kind") or name and not any(re.fullmatch(str(name), n) for n in names):
            continue
        docs, _ = files.load(path, display(path))
        for doc in docs:
            if isinstance(doc.data, dict) and doc.data.get("kind") in (None, obj.get("kind")) and \
                    (name or kind or _name(doc.data) in names):
                patches.append(doc)
            elif isinstance(doc.data, list):
                for i, op in enumerate(doc.data):
                    if isinstance(op, dict) and isinstance(op.get("path"), str) and op.get("op") in ("add", "replace"):
                        operations.append((doc, i, json_pointer(op["path"]), ()))
    return patches, operations


def json_pointer(text: str) -> tuple:
    """A JSON pointer (RFC 6901: /spec/values/a~1b) as a path tuple, list indexes as ints."""
    parts = []
    for raw in text.strip("/").split("/") if text.strip("/") else []:
        part = raw.replace("~1", "/").replace("~0", "~")
        parts.append(int(part) if part.isdecimal() else part)
    return tuple(parts)
