"""CRDs as schemas: upstream CRDs converted into the strict JSON Schemas gengpu and kubeconform check objects
with (scripts/sync-schemas writes schemas/crds/ with these functions), and the CRDs a repository carries itself.

A repository that publishes an operator carries its CRDs (config/crd/bases, a chart's crds/, an OLM bundle), often
newer than the copy gengpu pins; its own custom resources are checked against them.
"""

from __future__ import annotations

import copy
import functools
import re
from pathlib import Path


def convert(node):
    """openAPIV3Schema -> strict JSON Schema (draft 4 keywords, as kubeconform compiles it): additionalProperties
    false where an object lists its properties (unless it preserves unknown fields), int-or-string as either,
    nullable as null allowed, and a defaulted field not required (the API server defaults before it validates)."""
    if isinstance(node, list):
        return [convert(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {k: convert(v) for k, v in node.items()}
    if out.pop("x-kubernetes-int-or-string", False) or out.get("format") == "int-or-string":
        out.pop("format", None)
        out.pop("anyOf", None)
        out.pop("type", None)
        out["oneOf"] = [{"type": "string"}, {"type": "integer"}]
    if out.pop("nullable", False) and isinstance(out.get("type"), str):
        out["type"] = [out["type"], "null"]
    if isinstance(out.get("required"), list) and isinstance(out.get("properties"), dict):
        out["required"] = [r for r in out["required"] if "default" not in out["properties"].get(r, {})]
        if not out["required"]:
            del out["required"]
    preserve = out.get("x-kubernetes-preserve-unknown-fields")
    if "properties" in out and not preserve and "additionalProperties" not in out:
        out["additionalProperties"] = False
    return out


def has_cel(node) -> bool:
    if isinstance(node, dict):
        return "x-kubernetes-validations" in node or any(has_cel(v) for v in node.values())
    return isinstance(node, list) and any(has_cel(v) for v in node)


def crd_schemas(crd: dict, origin: str):
    """(file name, converted schema, the schema as written when it has CEL rules, else None) per served version."""
    spec = crd["spec"]
    group, kind = spec["group"], spec["names"]["kind"]
    for ver in spec.get("versions", []):
        schema = (ver.get("schema") or {}).get("openAPIV3Schema")
        if not schema or not ver.get("served", True):
            continue
        converted = convert(copy.deepcopy(schema))
        if isinstance(converted.get("properties"), dict):  # the API server adds these to every CRD's root
            for field, typ in (("apiVersion", "string"), ("kind", "string"), ("metadata", "object")):
                converted["properties"].setdefault(field, {"type": typ})
        converted["$comment"] = f"{group}/{ver['name']} {kind} from {origin}, converted by scripts/sync-schemas"
        name = f"{kind}-{group.split('.')[0]}-{ver['name']}".lower() + ".json"
        yield name, converted, (schema if has_cel(schema) else None)


# --- a repository's own CRDs ---------------------------------------------------------------------------------------

_CANDIDATE = re.compile(r"crd", re.I)
# where repositories keep CRDs, most authoritative first: the generated bases, a chart's crds/, anything else
_RANK = (re.compile(r"(^|/)config/crd/bases/"), re.compile(r"(^|/)crds?/"), re.compile(r"."))


class RepositoryCRDs:
    """The CRDs of one repository, found by file name and read only for the groups asked about."""

    def __init__(self, root: Path, files: list[Path]):
        self.root = root
        self._files = files  # YAML files that may hold CRDs (repository._index)
        self._found: dict[tuple[str, str, str], tuple[dict, dict | None, str] | None] = {}
        self._order: list[Path] | None = None
        self._texts: dict[Path, str] = {}
        self._parsed: dict[Path, list[dict]] = {}

    def schema(self, group: str, version: str, kind: str) -> tuple[dict, dict | None, str] | None:
        """(converted schema, schema as written if it has CEL rules, where) of the repository's CRD for a kind, or
        None when the repository has none."""
        key = (group, version, kind)
        if key not in self._found:
            self._found[key] = self._find(group, version, kind)
        return self._found[key]

    def _find(self, group: str, version: str, kind: str):
        from gengpu.loading.reading import read_text

        for path in self._ranked():
            if path not in self._texts:
                self._texts[path] = read_text(path) or ""
            text = self._texts[path]
            if "CustomResourceDefinition" not in text or group not in text or kind not in text:
                continue
            for crd in self._crds_in(path, text):
                spec = crd["spec"]
                if spec.get("group") != group or (spec.get("names") or {}).get("kind") != kind:
                    continue
                try:
                    for name, converted, raw in crd_schemas(crd, _rel(path, self.root)):
                        if name.rsplit("-", 1)[-1] == f"{version}.json".lower():
                            return converted, raw, _rel(path, self.root)
                except (KeyError, TypeError, AttributeError):
                    continue
        return None

    def _ranked(self) -> list[Path]:
        if self._order is None:
            self._order = sorted(self._files, key=lambda p: (
                next(i for i, r in enumerate(_RANK) if r.search(_rel(p, self.root))), _rel(p, self.root)))
        return self._order

    def _crds_in(self, path: Path, text: str) -> list[dict]:
        """The CRDs of one file, parsed once a run (operators' CRDs run to megabytes)."""
        if path not in self._parsed:
            import yaml

            try:
                docs = list(yaml.load_all(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)))
            except yaml.YAMLError:
                docs = []
            self._parsed[path] = [d for d in docs if isinstance(d, dict) and d.get("kind") == "CustomResourceDefinition"
                                  and isinstance(d.get("spec"), dict)]
        return self._parsed[path]


def _rel(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def candidate(rel_parts: tuple[str, ...], name: str) -> bool:
    """Whether a YAML file may hold CRDs, by its name or folder: *crd*, crds/, crd/, or kubebuilder's
    <group>_<plural>.yaml."""
    return bool(_CANDIDATE.search(name)) or any(p in ("crd", "crds", "bases") for p in rel_parts) or \
        ("_" in name and "." in name.split("_", 1)[0])


# --- the release behind each CRD gengpu ships ------------------------------------------------------------------------

def shipped_release(group: str, schema_name: str) -> tuple[tuple[str, ...], str] | None:
    """(the charts that install the group's CRDs, the release gengpu's CRD came from) for a CRD gengpu ships, or
    None (gengpu/data/kinds.yaml crdCharts, schemas/crds/SOURCES.yaml)."""
    from gengpu import catalog

    charts = catalog.data_file("kinds.yaml").get("crdCharts", {}).get(group)
    release = _releases().get(schema_name)
    return (tuple(charts), release) if charts and release else None


@functools.cache
def sources() -> list[dict]:
    """schemas/crds/SOURCES.yaml: where each CRD gengpu ships came from (scripts/sync-schemas writes it)."""
    import yaml

    from gengpu.schemas_dir import schemas_path

    text = (schemas_path() / "crds" / "SOURCES.yaml").read_text(encoding="utf-8")
    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))["sources"]


@functools.cache
def _releases() -> dict[str, str]:
    """Schema file -> the release of the upstream CRD it was converted from."""
    return {name: str(e.get("tag") or e.get("version")) for e in sources() for name in e.get("schemas", [])}
