"""Run schemas and rules over what the loader found, honouring suppressions."""

from __future__ import annotations

import functools
import json
from dataclasses import replace

from gengpu.checking.rules import RULES
from gengpu.checking.subjects import SUPPRESS_PREFIX, Documents, Subject
from gengpu.checking.targets import (DEVICE_PLUGIN_CONFIG, GKE_AUTOPROVISIONING, MIG_PARTED_CONFIG, OBJECT, OVERLAY,
                                     PROFILE)
from gengpu.findings import Finding
from gengpu.schemas_dir import schemas_path

# kind -> (schema file under schemas/, rule for schema errors, rule for unknown keys)
SCHEMAS = {
    DEVICE_PLUGIN_CONFIG: ("device-plugin-config.schema.json", "device-plugin-config-schema",
                           "device-plugin-unknown-field"),
    MIG_PARTED_CONFIG: ("mig-parted-config.schema.json", "mig-parted-config-schema", "mig-parted-unknown-field"),
    GKE_AUTOPROVISIONING: ("gke-autoprovisioning.schema.json", "gke-autoprovisioning-schema",
                           "gke-autoprovisioning-schema"),
}


@functools.cache
def schema_file(name: str) -> dict:
    return json.loads((schemas_path() / name).read_text(encoding="utf-8"))


def rules_for(target: str):
    return [r for r in RULES.for_target(target) if r.check is not None]


def _finding(doc, rule, hit) -> Finding:
    return Finding(*doc.where(hit.path, key=hit.key), rule.severity, rule.id, hit.message, rule.fix, hit.needs)


def _annotation_findings(subject: Subject) -> list[Finding]:
    """Suppression annotations must name a rule and give a reason."""
    out = []
    for rule_id, reason in subject.suppressed.items():
        path = ("metadata", "annotations", SUPPRESS_PREFIX + rule_id)
        file, line, col = subject.doc.where(path, key=True) if not subject.in_configmap else (subject.doc.file, 1, 1)
        if rule_id not in RULES:
            r = RULES["suppression-unknown-rule"]
            out.append(Finding(file, line, col, r.severity, r.id,
                               f"{subject.label}: annotation suppresses '{rule_id}', which is not a rule", r.fix))
        elif not reason.strip():
            r = RULES["suppression-without-reason"]
            out.append(Finding(file, line, col, r.severity, r.id,
                               f"{subject.label}: annotation silences {rule_id} without a reason", r.fix))
    return out


def check_subject(subject: Subject, ctx=None, schemas=None, shapeless: bool = False) -> list[Finding]:
    """Schema, then rules. shapeless: the subject's object already failed its schema."""
    honoured = {r for r, why in subject.suppressed.items() if why.strip() and (r not in RULES or RULES[r].suppressible)}
    findings = []
    if subject.kind in SCHEMAS:
        from gengpu.checking.schema import check_schema  # (python-jsonschema: only for the configs it checks)

        name, rule, unknown = SCHEMAS[subject.kind]
        findings += check_schema(subject.doc, schema_file(name), rule, unknown, data=subject.data, suppressed=honoured)
    if subject.kind == OBJECT and schemas is not None:
        from gengpu.checking.objects import check_object

        findings += [f for f in check_object(schemas, subject.doc, subject.data, subject.label, RULES, honoured)
                     if f.rule not in honoured]
    shapeless = shapeless or any(f.is_error for f in findings)
    if subject.kind == OBJECT and subject.kubernetes_version is None:
        subject.kubernetes_version = getattr(schemas, "kubernetes_version", None) or \
            getattr(getattr(ctx, "profile", None), "kubernetes_version", None)
    role = subject.doc.role.name if subject.doc.role is not None else None
    for rule in rules_for(subject.kind):
        if rule.id in honoured or role is not None and rule.judges is not None and role not in rule.judges:
            continue  # a document of a role the rule does not judge (a patch, for a rule on whole objects)
        findings += _run_rule(rule, subject, ctx, shapeless)
    return findings + (_annotation_findings(subject) if subject.kind == OBJECT else [])


def _run_rule(rule, subject, ctx, shapeless: bool) -> list[Finding]:
    """A rule may rely on the shape the schema describes: on a subject that failed its schema, a rule that
    trips over the shape is skipped (the schema findings already say what is wrong). On a subject that passed,
    an exception is a bug and surfaces."""
    try:
        return [_finding(subject.doc, rule, replace(hit, path=subject.written(hit.path)) if subject.renamed else hit)
                for hit in rule.check(subject, ctx)]
    except (TypeError, AttributeError, KeyError, IndexError, ValueError):
        if shapeless:
            return []
        raise


def check_overlay_rules(overlay: Documents, ctx=None) -> list[Finding]:
    """Rules across documents; they see only documents that passed their schema."""
    findings = []
    for rule in rules_for(OVERLAY):
        for hit in rule.check(overlay, ctx):
            findings.append(_finding(hit.doc, rule, hit))
    return findings


def _suppressed(profile, rule_id: str, path: tuple) -> bool:
    pool = None
    if len(path) > 2 and path[:2] == ("spec", "nodePools") and isinstance(path[2], int):
        pool = profile.node_pools[path[2]].name
    if not RULES[rule_id].suppressible:
        return False
    for s in profile.suppressions:
        if s.rule == rule_id and s.reason and (not s.pools or pool in s.pools):
            return True
    return False


def check_profile_rules(profile, doc) -> list[Finding]:
    findings = []
    for rule in rules_for(PROFILE):
        for hit in rule.check(profile, None):
            if not _suppressed(profile, rule.id, hit.path):
                findings.append(_finding(doc, rule, hit))
    return findings
