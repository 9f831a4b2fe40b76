"""Validate a document against a JSON Schema, with findings at exact lines and a fix for each."""

from __future__ import annotations

import re

from gengpu.findings import Finding
from gengpu.loading import Document
from gengpu.schemas_dir import profile_schema

RULE = "profile-schema"


def _dotted(path) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def _allowed_keys(schema: dict) -> list[str]:
    return sorted(schema.get("properties", {}))


def _fix_for(error, written: str | None = None) -> str:
    """written: the value as the file spells it (YAML reads 1.30 as the number 1.3)."""
    v, schema = error.validator, error.schema
    if v == "enum":
        return "use one of: " + ", ".join(map(str, error.validator_value))
    if v == "const":
        return f"set it to {error.validator_value}"
    if v == "type":
        if error.validator_value == "string" and isinstance(error.instance, (int, float)):
            return f'quote the value: "{written if written is not None else error.instance}"'
        if error.validator_value == "integer" and isinstance(error.instance, float) and error.instance.is_integer():
            return f"write a whole number without a decimal point: {int(error.instance)}"
        return f"give a value of type {error.validator_value}"
    if v == "pattern":
        return f"match the pattern {error.validator_value}"
    if v == "required":
        return "add the missing field"
    if v == "additionalProperties":
        import difflib

        close = difflib.get_close_matches(written or "", _allowed_keys(schema), n=1, cutoff=0.75)
        return (f"did you mean {close[0]}? " if close else "") + "remove it or fix its spelling; allowed here: " + \
            ", ".join(_allowed_keys(schema))
    if v == "minimum":
        if list(error.absolute_path)[-2:] == ["mig", "replicas"] and error.instance == 1:
            return "use 2 or more to time-slice each MIG device; for one pod per MIG device, remove mig.replicas"
        if list(error.absolute_path)[-1:] == ["replicas"] and error.instance == 1:
            return "use 2 or more to share each GPU; for one pod per GPU, set sharing.mode: none"
        return f"use {error.validator_value} or more"
    if v == "maximum":
        return f"use {error.validator_value} or less"
    if v in ("minItems", "minLength", "minProperties"):
        return f"give at least {error.validator_value}"
    if v == "maxLength":
        return f"use at most {error.validator_value} characters"
    if v == "uniqueItems":
        return "remove the repeated entries"
    if v == "not" and "enum" in error.validator_value:
        return "pick a name other than " + ", ".join(error.validator_value["enum"])
    if v == "not" and error.validator_value == {"required": ["mig"]}:
        return ("a MIG layout goes with mode: mig; to share MIG devices between pods set mode: mig and mig.replicas "
                "(time-slicing on each MIG device: NVIDIA's device plugin runs no MPS on MIG devices)")
    if v == "oneOf" and "layout" in str(error.validator_value):
        return "give exactly one of layout, preset or layouts"
    if v == "False":
        return "remove it"
    return "see `gengpu schema` for this field"


def _message(error, path) -> str:
    field = _dotted(path)
    v = error.validator
    if v == "additionalProperties":
        return f"unknown field '{field}'"
    if v == "required":
        missing = [k for k in error.validator_value if k not in (error.instance or {})]
        base = _dotted(error.absolute_path)
        return f"missing required field '{missing[0]}'" + ("" if base == "(top level)" else f" in '{base}'")
    if v == "oneOf" and "layout" in str(error.validator_value):
        return f"'{field}' needs exactly one of layout, preset or layouts"
    if v == "not" and error.validator_value == {"required": ["mig"]}:  # (on objects only: check_schema drops the rest)
        return f"'{field}.mig' is not allowed with sharing mode {error.instance.get('mode')}"
    if error.schema is False or v == "False":
        return f"'{field}' is not allowed with this sharing mode"
    return f"'{field}': {error.message}"


def _forbidden_by(error, schema: dict, data) -> str:
    """What forbids a field (a false schema under an if/then): the profile's platform, or the pool's sharing mode."""
    node, condition = schema, None
    for part in error.absolute_schema_path:
        if isinstance(node, dict) and part in ("then", "else"):
            condition = node.get("if")
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            break
    if condition is not None and "platform" in str(condition):
        spec = data.get("spec") if isinstance(data, dict) else None
        platform = spec.get("platform") if isinstance(spec, dict) else None
        return f"on platform {platform}" if isinstance(platform, str) else "on this platform"
    return "with this sharing mode"


def _walk(errors):
    """Flatten allOf and anyOf wrappers so each leaf error stands on its own."""
    for error in errors:
        if error.validator in ("allOf", "anyOf") and error.context:
            yield from _walk(error.context)
        else:
            yield error


def _at(data, path):
    for part in path:
        data = data[part]
    return data


_COMPILED: dict = {}


def _ecma(pattern: str) -> str:
    """A JSON Schema pattern (ECMA-262) for Python's re: `$` ends the string there, while Python's `$` also matches
    before a final newline, which let "name\\n" through."""
    return re.sub(r"(?<!\\)\$", r"\\Z", pattern)


def _pattern(validator, pattern, instance, schema):
    import jsonschema

    if validator.is_type(instance, "string") and not re.search(_ecma(pattern), instance):
        yield jsonschema.ValidationError(f"{instance!r} does not match {pattern!r}")


def _strict(cls):
    """The validator class as the fast one and the parsers downstream judge: integer means an int (json.Unmarshal
    refuses 1.0 for an int, gcloud writes count=1.0), and `$` in a pattern means the end of the string."""
    import jsonschema

    checker = cls.TYPE_CHECKER.redefine(
        "integer", lambda _, value: isinstance(value, int) and not isinstance(value, bool))
    return jsonschema.validators.extend(cls, {"pattern": _pattern}, type_checker=checker)


def _has_float(data) -> bool:
    """A float anywhere: the fast validator takes 1.0 for an integer, so such a document goes to the strict one."""
    if isinstance(data, float):
        return True
    if isinstance(data, dict):
        return any(_has_float(v) for v in data.values())
    return isinstance(data, list) and any(_has_float(v) for v in data)


# $schema -> (jsonschema-rs class, python-jsonschema class); no $schema: draft 4, as python-jsonschema defaults
_DRAFTS = {
    "http://json-schema.org/draft-04/schema#": ("Draft4Validator", "Draft4Validator"),
    "http://json-schema.org/draft-07/schema#": ("Draft7Validator", "Draft7Validator"),
    "https://json-schema.org/draft/2020-12/schema": ("Draft202012Validator", "Draft202012Validator"),
}


def _validators(schema: dict):
    """(fast, detailed) validators of a schema, compiled once: jsonschema-rs says whether a document is valid;
    only an invalid one goes through python-jsonschema, whose errors carry what the messages and fixes need. The
    detailed one is a function: python-jsonschema is imported and compiled only when a document fails (a clean
    pre-commit run never pays for it)."""
    key = id(schema)
    if key not in _COMPILED:
        import jsonschema_rs

        name = _DRAFTS.get(schema.get("$schema", "http://json-schema.org/draft-04/schema#"))
        fast = getattr(jsonschema_rs, name[0])(schema, validate_formats=False) if name else None
        holder: dict = {}

        def detailed():
            if "v" not in holder:
                import jsonschema

                cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft4Validator)
                holder["v"] = _strict(cls)(schema)
            return holder["v"]

        _COMPILED[key] = (schema, fast, detailed)  # the schema is kept so its id stays its own
    _, fast, detailed = _COMPILED[key]
    return fast, detailed


def _fast_valid(fast, data) -> bool:
    try:
        return fast.is_valid(data)
    except ValueError:
        return True


def _fast_findings(doc: Document, fast, data, rule: str, suppressed) -> list[Finding]:
    findings = []
    for error in fast.iter_errors(data):
        path = tuple(error.instance_path)
        findings.append(Finding(*doc.where(path), "error", rule, f"'{_dotted(path)}': {error.message}",
                                "see `gengpu schema` for this field"))
    return [f for f in findings if f.rule not in suppressed]


def check_schema(doc: Document, schema: dict | None = None, rule: str = RULE, unknown_rule: str | None = None,
                 data=None, suppressed=frozenset()) -> list[Finding]:
    """Findings for every schema error; unknown keys get unknown_rule (default: rule) at the key's own line."""
    fast, detailed = _validators(schema if schema is not None else profile_schema())
    data = doc.data if data is None else data
    if fast is not None:
        try:
            if fast.is_valid(data) and not _has_float(data):
                return []
        except ValueError:  # a key that is not a string (YAML allows `true:`): python-jsonschema decides
            pass
    findings = []
    validator = detailed()
    errors = list(_walk(validator.iter_errors(data)))
    if not errors and fast is not None and not _fast_valid(fast, data):
        return _fast_findings(doc, fast, data, rule, suppressed)  # the engines disagree: the stricter one decides
    for error in errors:
        path = tuple(error.absolute_path)
        if error.validator == "not" and not isinstance(error.instance, dict) and \
                set(error.validator_value) == {"required"}:
            continue  # ("not required" fails on anything but an object: its type error says what is wrong)
        if error.validator == "additionalProperties" and isinstance(error.instance, dict):
            allowed = set(error.schema.get("properties", {}))
            for extra in sorted(k for k in error.instance if k not in allowed):
                kpath = path + (extra,)
                findings.append(Finding(*doc.where(kpath, key=True), "error", unknown_rule or rule,
                                        _message(error, kpath), _fix_for(error, str(extra))))
            continue
        if error.schema is False:
            # jsonschema leaves the property out of a false-schema error's path: find it by its value.
            parent = _at(data, path)
            if isinstance(parent, dict) and error.instance is not parent:
                keys = [k for k, v in parent.items() if v is error.instance] or \
                    [k for k, v in parent.items() if v == error.instance]
                if keys:
                    path = path + (keys[0],)
            findings.append(Finding(*doc.where(path, key=True), "error", rule,
                                    f"'{_dotted(path)}' is not allowed {_forbidden_by(error, validator.schema, data)}",
                                    "remove it"))
            continue
        file, line, col = doc.where(path, key=error.validator == "required")
        written = doc.written(path) if error.validator == "type" and doc.node is not None else None
        message = _message(error, path)
        if written is not None and isinstance(error.instance, (int, float)) and error.validator_value == "string":
            message = f"'{_dotted(path)}': {written} is read as a number, but a string is expected"
        findings.append(Finding(file, line, col, "error", rule, message, _fix_for(error, written)))
    return [f for f in findings if f.rule not in suppressed]
