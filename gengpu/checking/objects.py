"""Kubernetes objects against their schemas, in one process: the Kubernetes schemas of a version (the
kubernetes-validate package), the CRD schemas gengpu commits (schemas/crds, schemas/documented), strict about
unknown fields as kubeconform -strict and the API server's strict field validation are. Validators are compiled
once per kind and version in a run.

The same schema files serve kubeconform; tests hold the two to the same per-resource verdicts.
"""

from __future__ import annotations

import functools
import json
import os
import re
from dataclasses import replace
from pathlib import Path

from gengpu.checking import cel
from gengpu.checking.consequences import NEWER
from gengpu.checking.crds import shipped_release
from gengpu.loading import roles
from gengpu.findings import Finding, UsageError
from gengpu.schemas_dir import kubernetes_schemas_path, schemas_path

DEFAULT_KUBERNETES_VERSION = "1.37"
SUBSTITUTED, FILLED_IN = roles.SUBSTITUTED, roles.FILLED_IN


def placeholder(value, substituted) -> bool:
    """A value a template leaves for something else to fill in: {VAR} (as a string, or unquoted, which YAML reads as
    a mapping of one key and no value), and ${VAR} where the repository has Flux substitute it (substituted(), asked
    only then; a file applied as it is gives the API server the placeholder itself)."""
    if isinstance(value, str):
        return FILLED_IN.fullmatch(value) is not None or SUBSTITUTED.fullmatch(value) is not None and substituted()
    return isinstance(value, dict) and len(value) == 1 and next(iter(value.values())) is None and \
        re.fullmatch(r"[A-Z][A-Z0-9_]*", str(next(iter(value)))) is not None
_DEFINITIONS_REF = "/api/_definitions.json#/$defs/"  # how a kind's schema refers to Kubernetes' definitions
_REF = re.compile(r'"\$ref":\s*"(?:/api/_definitions\.json)?#/\$defs/([^"]+)"')


def _refs(schema) -> list[str]:
    return _REF.findall(json.dumps(schema))


def schema_name(group: str, version: str, kind: str) -> str:
    """kubeconform's {{ .ResourceKind }}{{ .KindSuffix }}: kind, first label of the group, version."""
    return (f"{kind}-{group.split('.')[0]}-{version}" if group else f"{kind}-{version}").lower() + ".json"


def native_dir(kubernetes_version: str) -> Path:
    folder = kubernetes_schemas_path() / f"v{kubernetes_version}.0-local-strict"
    if not folder.is_dir():
        raise UsageError(f"no Kubernetes schemas for {kubernetes_version} in kubernetes-validate "
                         "(it has 1.25 to 1.37); give --kubernetes-version X.Y or the profile's kubernetesVersion")
    return folder


class Schemas:
    """Validators by (group, version, kind) for one Kubernetes version, compiled on first use. With the run's
    repositories (loading/repository.py), a custom resource is checked against the CRD its own repository carries,
    where it carries one."""

    def __init__(self, kubernetes_version: str | None = None, repositories=None):
        self.kubernetes_version = kubernetes_version or DEFAULT_KUBERNETES_VERSION
        self.repositories = repositories
        self._validators: dict = {}
        self._definitions_of_version = None

    def repository_crd(self, file: str, group: str, version: str, kind: str):
        """(validator, schema as written if it has CEL rules, where) of the CRD the file's repository carries for a
        custom resource, or None."""
        if self.repositories is None or not group or self.source(group, version, kind) is not None and \
                self.source(group, version, kind)[1]:
            return None  # a built-in kind is Kubernetes' own
        found = self.repositories.around(Path(file)).crds.schema(group, version, kind)
        if found is None:
            return None
        key = ("repository", found[2], group, version, kind)
        if key not in self._validators:
            import jsonschema_rs

            self._validators[key] = jsonschema_rs.validator_for(found[0], validate_formats=False)
        return self._validators[key], found[1], found[2]

    def source(self, group: str, version: str, kind: str) -> tuple[Path, bool] | None:
        """The schema file for a kind, and whether it is a Kubernetes one (needs the definitions)."""
        name = schema_name(group, version, kind)
        for folder, native in ((native_dir(self.kubernetes_version), True), (schemas_path() / "crds", False),
                               (schemas_path() / "documented", False)):
            path = folder / name
            if path.is_file():
                return path, native
        return None

    def validator(self, group: str, version: str, kind: str):
        """A compiled validator, or None when gengpu has no schema for the kind."""
        key = (group, version, kind)
        if key not in self._validators:
            self._validators[key] = self._compile(*key)
        return self._validators[key]

    def _compile(self, group: str, version: str, kind: str):
        import jsonschema_rs

        found = self.source(group, version, kind)
        if found is None:
            return None
        path, native = found
        schema = json.loads(path.read_text(encoding="utf-8"))
        if native:
            # A sub-type can share a kind's file name (core ResourceClaim is a pod's claim): only top-level kinds.
            gvks = schema.get("x-kubernetes-group-version-kind") or []
            if not any(g.get("group", "") == group and g.get("version") == version and g.get("kind") == kind
                       for g in gvks):
                return None
            return jsonschema_rs.validator_for(self._bundled(path.name, schema), validate_formats=False)
        return jsonschema_rs.validator_for(schema, validate_formats=False)

    def _bundled(self, name: str, schema: dict) -> dict:
        """A Kubernetes kind's schema with the definitions it reaches inside it: what a run that checks a few objects
        compiles instead of all of Kubernetes' definitions (1.8 MB). Kept in gengpu's cache by version and kind."""
        from gengpu import fleet

        store = fleet.Cache()
        key = store.key("kubernetes-schema", self.kubernetes_version, name)
        cached = store.get_json(key)
        if isinstance(cached, dict):
            return cached
        defs = self._definitions()
        needed, todo = {}, _refs(schema)
        while todo:
            ref = todo.pop()
            if ref not in needed and ref in defs:
                needed[ref] = defs[ref]
                todo += _refs(defs[ref])
        bundle = json.loads(json.dumps(schema).replace(f'"{_DEFINITIONS_REF}', '"#/$defs/'))
        bundle["$defs"] = needed
        if store.root.is_dir():  # a repository gengpu has run in (as catalog.data_file keeps its tables)
            store.put_json(key, bundle)
        return bundle

    def _definitions(self) -> dict:
        if self._definitions_of_version is None:
            text = (native_dir(self.kubernetes_version) / "_definitions.json").read_text(encoding="utf-8")
            self._definitions_of_version = json.loads(text)["$defs"]
        return self._definitions_of_version


@functools.cache
def documented(group: str, version: str, kind: str) -> dict | None:
    """For a kind whose schema is a dump of what one cluster served (schemas/documented/: no upstream publishes the
    CRD), what it is and the date it was served; None for a schema from an upstream CRD."""
    path = schemas_path() / "documented" / schema_name(group, version, kind)
    if not path.is_file():
        return None
    return json.loads(path.read_text(encoding="utf-8")).get("x-gengpu-documented")


def unknown_field(rules, file: str, at: tuple[int, int], label: str, pointer: str, field: str, marked: dict | None,
                  engine: str = "") -> Finding:
    """An unknown field: an error against an upstream schema, a warning against a documented one (the platform
    may have added the field since the day its schema was read)."""
    if marked:
        rule = rules["object-field-undocumented"]
        return Finding(file, *at, rule.severity, rule.id,
                       f"{label} at {pointer}: unknown field '{field}' in gengpu's schema, {marked['what']} on "
                       f"{marked['served']}; a newer version may have it{engine}", rule.fix)
    rule = rules["object-schema"]
    return Finding(file, *at, rule.severity, rule.id, f"{label} at {pointer}: unknown field '{field}'{engine}",
                   "remove or rename the field")


def _pointer(path) -> str:
    return "/" + "/".join(str(p).replace("~", "~0").replace("/", "~1") for p in path)


def _at(data, path):
    for part in path:
        if isinstance(data, dict) and part in data or isinstance(data, list) and isinstance(part, int) \
                and 0 <= part < len(data):
            data = data[part]
        else:
            return None
    return data


def schema_errors(validator, data, written=None, substituted=lambda: False) -> list[tuple[tuple, str, bool]]:
    """(path, message, points at a key) for every schema error; an unknown field is reported at its key. written:
    the object as written, before nulls were dropped (where placeholders are seen as written); substituted: Flux
    fills in ${VAR} placeholders in this repository."""
    import jsonschema_rs

    out = []
    for error in validator.iter_errors(data):
        path = tuple(error.instance_path)
        if placeholder(error.instance, substituted) or \
                written is not None and placeholder(_at(written, path), substituted):
            continue  # Flux's post-build substitution (or a test's own) puts the value there before it is applied
        kind = error.kind
        if isinstance(kind, jsonschema_rs.ValidationErrorKind.AdditionalProperties):
            for name in kind.unexpected:
                out.append((path + (name,), f"unknown field '{name}'", True))
        elif isinstance(kind, jsonschema_rs.ValidationErrorKind.Required):
            out.append((path, f"missing required field '{kind.property}'", False))
        else:
            out.append((path, error.message, False))
    return out


def _json_key(key) -> str:
    """A key as sigs.k8s.io/yaml turns it into JSON: `true:` becomes "true", `1:` becomes "1"."""
    if isinstance(key, bool):
        return "true" if key else "false"
    return key if isinstance(key, str) else str(key)


def without_directives(data):
    """A strategic-merge patch without kustomize's directives ($patch, $retainKeys, $setElementOrder/...)."""
    if isinstance(data, dict):
        return {k: without_directives(v) for k, v in data.items() if not str(k).startswith("$")}
    if isinstance(data, list):
        return [without_directives(v) for v in data]
    return data


def without_nulls(data):
    """The API server drops explicit nulls of fields (CRD pruning; zero values of Go types) before it validates."""
    if isinstance(data, dict):
        return {_json_key(k): without_nulls(v) for k, v in data.items() if v is not None}
    if isinstance(data, list):
        return [without_nulls(v) for v in data]
    return data


def not_served(schemas: Schemas, group: str, version: str, kind: str) -> str | None:
    """Why no API serves the kind (kinds.yaml servedKinds), or None where gengpu cannot tell."""
    import re

    from gengpu.checking.subjects import table

    served = table()["servedKinds"]
    if any(re.search(p, group) for p in served["restApis"]):
        return (f"{group}/{version} is a cloud API's REST resource, not a Kubernetes API group: no cluster serves "
                f"kind {kind}")
    moved = (served.get("elsewhere") or {}).get(group) or {}
    if kind in moved:
        return f"{group} serves no kind {kind}: it is served as {moved[kind]}"
    if group in served["groups"] and kind not in served["groups"][group]:
        return f"the {group} group serves {', '.join(served['groups'][group])}, not {kind}"
    if group in served["builtin"]:
        from gengpu.checking.rules.api_version_removed import served as elsewhere
        from gengpu.checking.subjects import entry

        known = entry({"apiVersion": f"{group}/{version}" if group else version, "kind": kind}) or {}
        groups = {w.rpartition("/")[0] for w in elsewhere(schemas.kubernetes_version).get(kind.lower(), [])}
        if version in (known.get("removed") or {}) or groups - {group}:
            return None  # a removed version, or a kind of another group: api-version-removed says which to use
        suffix = f"-{group.split('.')[0]}-{version}.json" if group else f"-{version}.json"
        folder = native_dir(schemas.kubernetes_version)
        if any(name.endswith(suffix) for name in os.listdir(folder)):  # the version is served: the kind is not
            where = f"{group}/{version}" if group else version
            return f"Kubernetes {schemas.kubernetes_version} serves no kind {kind} in {where}"
    return None


def _named(data: dict) -> dict:
    """The object as CEL rules see it on create: a generateName gets its name first (the API server's
    SimpleNameGenerator appends five characters before validation; these five are fixed, so the run is the same)."""
    metadata = data.get("metadata")
    if isinstance(metadata, dict) and "name" not in metadata and isinstance(metadata.get("generateName"), str):
        return {**data, "metadata": {**metadata, "name": metadata["generateName"][:58] + "b2c4d"}}
    return data


def check_object(schemas: Schemas, doc, data: dict, label: str, rules, honoured=frozenset()) -> list[Finding]:
    """Schema findings for one object, or an info that gengpu has no schema for its kind. A custom resource that
    passes its schema goes on to the CEL rules of its CRD."""
    group, _, version = str(data.get("apiVersion", "")).rpartition("/")
    kind = str(data.get("kind", ""))
    if doc.role is not None and doc.role.name == roles.PATCH and not doc.role.uses:
        return []  # a patch no kustomization applies patches nothing: there is no object to check
    local = schemas.repository_crd(doc.file, group, version, kind)
    validator = local[0] if local else schemas.validator(group, version, kind)
    if validator is None:
        why = not_served(schemas, group, version, kind)
        if why and "kind-not-served" in rules:
            rule = rules["kind-not-served"]
            return [Finding(*doc.where(("kind",)), rule.severity, rule.id, f"{label}: {why}", rule.fix)]
        rule = rules["object-no-schema"]
        return [Finding(*doc.where(("kind",)), rule.severity, rule.id,
                        f"{label}: no schema for {data.get('apiVersion')} {data.get('kind')}; its fields are not "
                        "checked (GPU rules still run)", rule.fix)]
    rule = rules["object-schema"]
    findings = []
    marked = None if local else documented(group, version, kind)
    shipped = None if local or marked else shipped_release(group, schema_name(group, version, kind))
    # a strategic-merge patch is part of an object: the object it patches has the rest, and its $patch directives
    # are kustomize's (a patch a kustomization names is judged again as the object it patches: pipeline/parts.py)
    patch = doc.role is not None and doc.role.name == roles.PATCH
    def substituted() -> bool:
        return schemas.repositories is not None and schemas.repositories.around(Path(doc.file)).substitutes

    for path, message, key in schema_errors(validator, without_nulls(without_directives(data) if patch else data),
                                            data, substituted):
        if patch and message.startswith("missing required field"):
            continue
        file, line, col = doc.where(path, key=key)
        if key:
            found = unknown_field(rules, file, (line, col), label, _pointer(path), path[-1], marked)
            # a field a newer release of the CRD's chart may have: moot where the files pin one (consequences.py)
            findings.append(replace(found, needs=f"{NEWER}{','.join(shipped[0])}@{shipped[1]}") if shipped else found)
            continue
        findings.append(Finding(file, line, col, rule.severity, rule.id, f"{label} at {_pointer(path)}: {message}",
                                "fix the field so it matches the schema"))
    name = schema_name(group, version, kind)
    # the API server evaluates CEL rules on an object whose only fault is unknown fields (it prunes them, or refuses
    # them first under strict validation, and the CEL rule would refuse what is left): both are said at once
    unknown = [f for f in findings if f.is_error and f.message.partition(": unknown field ")[1]]
    if any(f.is_error for f in findings if f not in unknown) or "object-cel" in honoured:
        return findings
    data = _named(data)
    if local:  # the repository's own CRD: its CEL rules, if it has any
        if local[1] is not None:
            findings += cel.findings(doc, doc.file, data, label, f"{local[2]}#{kind}/{version}", rules, inline=local[1])
    elif cel.has_rules(name):
        findings += cel.findings(doc, doc.file, data, label, name, rules)
    return findings
