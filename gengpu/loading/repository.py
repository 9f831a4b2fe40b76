"""The repository around the files of a run: its root, what each of its kustomizations names and how, and where its
Helm charts are. Loading asks it what names a file (roles.py decides what the file is from that); it is read once
per run, and only when a file needs it.

A pre-commit hook hands gengpu the changed files alone; what a file is often shows only from elsewhere in the
repository: a kustomization two folders up names it as a patch, a Chart.yaml beside it makes it a chart's values.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from gengpu.loading.folders import KUSTOMIZATION_NAMES

MAX_ENTRIES = 200_000  # folders and files looked at before the index stops (a run from a home folder, say)
CHART_FILE = "Chart.yaml"

# How a kustomization names a file (kustomize's Kustomization type, api/types/kustomization.go)
RESOURCE, PATCH, GENERATOR_INPUT, KUSTOMIZE_CONFIG, CHART_VALUES = (
    "resource", "patch", "generator input", "kustomize configuration", "chart values")
_RESOURCE_FIELDS = ("resources", "bases", "crds")
_CONFIG_FIELDS = ("configurations", "generators", "transformers", "validators")


@dataclass(frozen=True)
class Use:
    """One way a kustomization names a file."""

    kustomization: Path  # the kustomization file (resolved)
    how: str  # RESOURCE, PATCH, GENERATOR_INPUT, KUSTOMIZE_CONFIG or CHART_VALUES
    field: str  # the kustomization's field that names it
    chart: str | None = None  # CHART_VALUES: the chart of the helmCharts entry
    version: str | None = None
    target: tuple = ()  # PATCH: the (kind, name) its entry's target selects, where it says

    def says(self, root: Path) -> str:
        where = relative(self.kustomization, root)
        return f"{where} names it under {self.field}" + (f" (chart {self.chart})" if self.chart else "")


@dataclass
class Kustomization:
    path: Path  # the file (resolved)
    data: dict
    folders: list[Path] = field(default_factory=list)  # folders it includes (resources, bases, components)

    @property
    def folder(self) -> Path:
        return self.path.parent

    @property
    def component(self) -> bool:
        return self.data.get("kind") == "Component"

    @property
    def remote(self) -> bool:
        """Whether it names anything kustomize must fetch or run (a URL, a Helm chart, a plugin): a build needs the
        network or tools gengpu does not run."""
        named = [r for f in ("resources", "bases", "components") for r in _strings(self.data.get(f))]
        return any(_is_remote(r) for r in named) or bool(self.data.get("helmCharts")) or \
            bool(self.data.get("helmChartInflationGenerator"))


def relative(path: Path, root: Path) -> str:
    """A path as the repository names it (POSIX, from its root), links resolved; as it is when outside."""
    try:
        return Path(os.path.relpath(os.path.realpath(path), os.path.realpath(root))).as_posix()
    except ValueError:
        return path.as_posix()


def _strings(value) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _is_remote(name: str) -> bool:
    return "://" in name or name.startswith(("github.com/", "git@", "gitlab.com/", "bitbucket.org/")) or \
        "?ref=" in name


def _is_inline(text: str) -> bool:
    """A patchesStrategicMerge entry written as the patch itself rather than a file name."""
    return "\n" in text or ": " in text or text.strip().startswith(("{", "["))


class Repository:
    """One repository's kustomizations (what each names, and how), its Helm charts, the files that may hold CRDs and
    its YAML files: one walk, on first use."""

    def __init__(self, root: Path):
        self.root = root
        self._kustomizations: dict[Path, Kustomization] | None = None
        self._uses: dict[Path, list[Use]] = {}
        self._crd_files: list[Path] = []  # YAML files that may hold CRDs (checking/crds.py candidate)
        self._yaml_files: list[Path] = []
        self._crds = None
        self._substitutes: bool | None = None

    # --- what the repository holds ---------------------------------------------------------------------------
    @property
    def kustomizations(self) -> dict[Path, Kustomization]:
        if self._kustomizations is None:
            self._index()
        return self._kustomizations

    def uses(self, path: Path) -> list[Use]:
        """Every way a kustomization of the repository names this file."""
        self.kustomizations  # noqa: B018  (indexes on first use)
        return self._uses.get(_resolved(path), [])

    def chart_of(self, path: Path) -> Path | None:
        """The folder of the Helm chart a file belongs to: the nearest folder above it with a Chart.yaml, up to the
        repository's root."""
        folder = _resolved(path).parent
        root = _resolved(self.root)
        while True:
            if (folder / CHART_FILE).is_file():
                return folder
            if folder == root or folder.parent == folder or root not in folder.parents:
                return None
            folder = folder.parent

    @property
    def crds(self):
        """The repository's own CRDs (checking/crds.py RepositoryCRDs)."""
        if self._crds is None:
            from gengpu.checking.crds import RepositoryCRDs

            self.kustomizations  # noqa: B018  (indexes on first use)
            self._crds = RepositoryCRDs(self.root, self._crd_files)
        return self._crds

    @property
    def substitutes(self) -> bool:
        """Whether Flux fills in ${VAR} placeholders here: a Flux Kustomization of the repository has
        postBuild.substitute or substituteFrom (kustomize-controller's post-build variable substitution)."""
        if self._substitutes is None:
            self.kustomizations  # noqa: B018  (indexes on first use)
            self._substitutes = any(_substituting(path) for path in self._yaml_files)
        return self._substitutes

    def kustomization_at(self, folder: Path) -> Kustomization | None:
        for name in KUSTOMIZATION_NAMES:
            found = self.kustomizations.get(_resolved(folder / name))
            if found is not None:
                return found
        return None

    def includers(self, kustomization: Kustomization) -> list[Kustomization]:
        """The kustomizations that include this one's folder (as a resource, base or component)."""
        return [k for k in self.kustomizations.values() if kustomization.folder in k.folders]

    # --- the index ----------------------------------------------------------------------------------------------
    def _index(self) -> None:
        from gengpu.checking.crds import candidate
        from gengpu.loading.reading import read_text

        self._kustomizations = {}
        seen = 0
        for folder, dirs, files in os.walk(self.root):
            seen += len(dirs) + len(files)
            if seen > MAX_ENTRIES:
                break  # a run from far above any repository (no .git): what is indexed so far is the evidence
            dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "node_modules")
            parts = Path(folder).relative_to(self.root).parts
            for name in files:
                if name.endswith((".yaml", ".yml")):
                    self._yaml_files.append(Path(folder) / name)
                    if candidate(parts, name):
                        self._crd_files.append(Path(folder) / name)
                if name in KUSTOMIZATION_NAMES:
                    path = _resolved(Path(folder) / name)
                    data = _parse(read_text(path))
                    if isinstance(data, dict):
                        self._kustomizations[path] = Kustomization(path, data)
        for k in self._kustomizations.values():
            self._read(k)

    def _name(self, k: Kustomization, how: str, field_name: str, name: str, chart=None, version=None,
              target: tuple = ()) -> None:
        path = _resolved(k.folder / name)
        self._uses.setdefault(path, []).append(Use(k.path, how, field_name, chart, version, target))

    def _read(self, k: Kustomization) -> None:
        data = k.data
        for field_name in (*_RESOURCE_FIELDS, "components"):
            for name in _strings(data.get(field_name)):
                if _is_remote(name):
                    continue
                target = _resolved(k.folder / name)
                if target.is_dir():
                    k.folders.append(target)
                elif field_name != "components":
                    self._name(k, RESOURCE, field_name, name)
        for field_name in ("patches", "patchesJson6902"):
            for entry in data.get(field_name) or [] if isinstance(data.get(field_name), list) else []:
                if isinstance(entry, str) and not _is_inline(entry):  # a bare path, as older kustomizations write
                    self._name(k, PATCH, field_name, entry)
                elif isinstance(entry, dict) and isinstance(entry.get("path"), str):
                    target = entry.get("target") if isinstance(entry.get("target"), dict) else {}
                    self._name(k, PATCH, field_name, entry["path"],
                               target=(str(target.get("kind") or ""), str(target.get("name") or "")))
        for entry in _strings(data.get("patchesStrategicMerge")):
            if not _is_inline(entry):
                self._name(k, PATCH, "patchesStrategicMerge", entry)
        for field_name in ("configMapGenerator", "secretGenerator"):
            for entry in data.get(field_name) or [] if isinstance(data.get(field_name), list) else []:
                if not isinstance(entry, dict):
                    continue
                names = _strings(entry.get("files")) + _strings(entry.get("envs"))
                names += [entry["env"]] if isinstance(entry.get("env"), str) else []
                for name in names:
                    self._name(k, GENERATOR_INPUT, field_name, name.split("=", 1)[-1])
        for field_name in _CONFIG_FIELDS:
            for name in _strings(data.get(field_name)):
                if not _is_remote(name):
                    self._name(k, KUSTOMIZE_CONFIG, field_name, name)
        openapi = data.get("openapi")
        if isinstance(openapi, dict) and isinstance(openapi.get("path"), str):
            self._name(k, KUSTOMIZE_CONFIG, "openapi", openapi["path"])
        for entry in data.get("replacements") or [] if isinstance(data.get("replacements"), list) else []:
            if isinstance(entry, dict) and isinstance(entry.get("path"), str):
                self._name(k, KUSTOMIZE_CONFIG, "replacements", entry["path"])
        for entry in data.get("helmCharts") or [] if isinstance(data.get("helmCharts"), list) else []:
            if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
                continue
            version = str(entry["version"]) if entry.get("version") is not None else None
            for name in ([entry["valuesFile"]] if isinstance(entry.get("valuesFile"), str) else []) + \
                    _strings(entry.get("additionalValuesFiles")):
                self._name(k, CHART_VALUES, "helmCharts", name, entry["name"], version)


def _substituting(path: Path) -> bool:
    from gengpu.loading.reading import read_text

    text = read_text(path) or ""
    if "postBuild" not in text or "kustomize.toolkit.fluxcd.io" not in text:
        return False
    import yaml

    try:
        docs = list(yaml.load_all(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)))
    except yaml.YAMLError:
        return False
    for doc in docs:
        if isinstance(doc, dict) and doc.get("kind") == "Kustomization" and \
                str(doc.get("apiVersion", "")).startswith("kustomize.toolkit.fluxcd.io/"):
            post = (doc.get("spec") or {}).get("postBuild") if isinstance(doc.get("spec"), dict) else None
            if isinstance(post, dict) and (post.get("substitute") or post.get("substituteFrom")):
                return True
    return False


def _parse(text: str | None):
    if text is None:
        return None
    import yaml

    try:
        return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError:
        return None


def _resolved(path: Path) -> Path:
    return Path(os.path.realpath(path))


def root_of(path: Path) -> Path:
    """The repository a file is in: the nearest folder above it that holds .git; else the working directory when
    the file is under it; else the file's own folder."""
    here = _resolved(path)
    here = here if here.is_dir() else here.parent
    for folder in (here, *here.parents):
        if (folder / ".git").exists():
            return folder
    cwd = _resolved(Path.cwd())
    return cwd if cwd == here or cwd in here.parents else here


class Repositories:
    """The repositories of one run, each indexed at most once (a run's files usually share one)."""

    def __init__(self):
        self._by_root: dict[Path, Repository] = {}

    def around(self, path: Path) -> Repository:
        root = root_of(path)
        if root not in self._by_root:
            self._by_root[root] = Repository(root)
        return self._by_root[root]
