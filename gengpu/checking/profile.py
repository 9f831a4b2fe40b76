"""Check one loaded profile: schema, then rules. Returns the typed profile when it is usable."""

from __future__ import annotations

from gengpu.checking.run import check_profile_rules
from gengpu.checking.schema import check_schema
from gengpu.findings import Finding
from gengpu.loading import Document, roles
from gengpu.model import Profile, build_profile


def is_profile(doc: Document) -> bool:
    """A GPUProfile, or something meant as one (loading/roles.py decides)."""
    return roles.is_profile(doc.data)


def _schema_finding(file: str, message: str, fix: str) -> Finding:
    return Finding(file, 1, 1, "error", "profile-schema", message, fix)


def check_profile_file(docs: list[Document], shown: str, source: str) -> tuple[Profile | None, list[Finding]]:
    """A profile file that parsed: exactly one GPUProfile document, then check_profile."""
    if len(docs) != 1 or not is_profile(docs[0]):
        return None, [_schema_finding(shown, "a profile file holds exactly one document of kind GPUProfile",
                                      "put one cluster per file, starting with apiVersion: gengpu.dev/v1alpha1")]
    return check_profile(docs[0], source)


def check_profile(doc: Document, source: str) -> tuple[Profile | None, list[Finding]]:
    """Schema errors stop here (the rules need well-typed data); rule findings come back with the profile."""
    if not isinstance(doc.data, dict):
        return None, [_schema_finding(doc.file, "a profile must be a YAML mapping with apiVersion, kind, metadata "
                                      "and spec", "start from an example in profiles/")]
    findings = check_schema(doc)
    if findings:
        return None, findings
    profile = build_profile(doc.data, source)
    return profile, check_profile_rules(profile, doc)


def duplicate_name(shown: str, at: tuple[int, int], name: str, first: str) -> Finding:
    """A profile whose metadata.name an earlier profile (first) already has: both would write one overlay."""
    from gengpu.checking.rules import finding

    return finding("duplicate-profile-name", shown, at[0], at[1], f"metadata.name '{name}' is also used by {first}")
