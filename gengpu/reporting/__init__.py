"""Stage 6, report: findings as text, JSON, GitHub annotations, SARIF 2.1.0 or JUnit XML.

The exit code is decided once, here, from the findings.
"""

from __future__ import annotations

import json

from gengpu import __version__
from gengpu.findings import Finding
from gengpu.reporting import safe

SARIF_LEVEL = {"error": "error", "warning": "warning", "info": "note"}
GITHUB_LEVEL = {"error": "error", "warning": "warning", "info": "notice"}


_COLORS = {"error": {"fg": "red", "bold": True}, "warning": {"fg": "yellow", "bold": True}, "info": {"fg": "cyan"}}


def use_color(stream) -> bool:
    """Colour for a terminal, unless NO_COLOR is set (no-color.org); FORCE_COLOR asks for it anywhere."""
    import os

    if os.environ.get("NO_COLOR"):
        return False
    return bool(os.environ.get("FORCE_COLOR")) or (hasattr(stream, "isatty") and stream.isatty())


def text(findings: list[Finding], color: bool = False) -> str:
    findings = safe.findings(findings)
    import click

    lines = []
    for f in findings:
        severity = click.style(f.severity, **_COLORS.get(f.severity, {})) if color else f.severity
        lines.append(f"{f.file}:{f.line}:{f.column}: {severity} {f.rule} {f.message}")
        if f.fix:
            lines.append(click.style(f"  fix: {f.fix}", dim=True) if color else f"  fix: {f.fix}")
    return "\n".join(lines)


def as_json(findings: list[Finding]) -> str:
    findings = safe.findings(findings, lines=True)
    return json.dumps({
        "findings": [
            {"file": f.file, "line": f.line, "column": f.column, "severity": f.severity, "rule": f.rule,
             "message": f.message, "fix": f.fix, **_about(f)}
            for f in findings
        ],
        "summary": {s: sum(1 for f in findings if f.severity == s) for s in ("error", "warning", "info")},
    }, indent=2)


def _about(f: Finding) -> dict:
    """What a finding of a running cluster is about: object (Kind/namespace/name), node, pool, where it says."""
    return {k: v for k, v in (("object", f.subject), ("node", f.node), ("pool", f.pool)) if v}


def _gh_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _gh_property(value: str) -> str:
    return _gh_data(value).replace(":", "%3A").replace(",", "%2C")


def github(findings: list[Finding]) -> str:
    """GitHub Actions workflow commands: one annotation per finding, on its line."""
    findings = safe.findings(findings, lines=True)
    lines = []
    for f in findings:
        props = [f"file={_gh_property(f.file)}"]
        if f.line:
            props.append(f"line={f.line}")
        if f.column:
            props.append(f"col={f.column}")
        props.append(f"title={_gh_property(f'gengpu {f.rule}')}")
        body = f.message + (f"\nfix: {f.fix}" if f.fix else "")
        lines.append(f"::{GITHUB_LEVEL[f.severity]} {','.join(props)}::{_gh_data(body)}")
    return "\n".join(lines)


def sarif(findings: list[Finding]) -> str:
    """SARIF 2.1.0 as GitHub code scanning reads it: every rule described, results with regions."""
    from gengpu import baseline  # only SARIF needs it: text and JSON runs skip the import
    from gengpu.checking.rules import RULES

    identities = baseline.Identities()  # each file read once for the whole report
    # the baseline's fingerprint, of the finding as found (before its text is made safe to show)
    prints = [baseline.fingerprint(f, identities) for f in findings]
    findings = safe.findings(findings, lines=True)

    used = sorted({f.rule for f in findings} | set(RULES))
    rules = []
    for rule_id in used:
        r = RULES.get(rule_id)
        summary = r.summary if r else rule_id
        rules.append({
            "id": rule_id,
            "name": rule_id,
            "shortDescription": {"text": summary},
            "fullDescription": {"text": r.explanation if r else summary},
            "help": {"text": f"{r.fix}\n\nSource: {r.source}" if r else summary,
                     "markdown": f"{r.fix}\n\n*Source: {r.source}*" if r else summary},
            "defaultConfiguration": {"level": SARIF_LEVEL[r.severity] if r else "error"},
            "properties": {"tags": ["gpu", "kubernetes"], "problem.severity": r.severity if r else "error"},
        })
    results = []
    for f, fingerprint in zip(findings, prints):
        region = {"startLine": max(f.line, 1)}
        if f.column:
            region["startColumn"] = f.column
        results.append({
            "ruleId": f.rule,
            "ruleIndex": used.index(f.rule),
            "level": SARIF_LEVEL[f.severity],
            "message": {"text": f.message + (f" Fix: {f.fix}" if f.fix else "")},
            "locations": [{"physicalLocation": {"artifactLocation": {"uri": f.file}, "region": region}}],
            # the baseline's fingerprint, for tools that read it (GitHub matches alerts on primaryLocationLineHash,
            # which its upload action computes from the line's text)
            "partialFingerprints": {"gengpu/v2": fingerprint},
            **({"properties": _about(f)} if _about(f) else {}),
        })
    return json.dumps({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "gengpu", "semanticVersion": __version__, "version": __version__,
                                "informationUri": "https://github.com/gengpu/gengpu", "rules": rules}},
            "results": results,
        }],
    }, indent=2)


def junit(findings: list[Finding]) -> str:
    """JUnit XML: one test case per file, failed by its errors (warnings and infos as system-out)."""
    findings = safe.findings(findings)  # (a report read as lines: a break in a message would forge one)
    from xml.sax.saxutils import escape, quoteattr  # pulls in urllib and email: loaded only for this format
    by_file: dict[str, list[Finding]] = {}
    for f in findings:
        by_file.setdefault(f.file, []).append(f)
    failures = sum(1 for fs in by_file.values() if any(f.is_error for f in fs))
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           f'<testsuites name="gengpu" tests="{len(by_file)}" failures="{failures}">',
           f'  <testsuite name="gengpu validate" tests="{len(by_file)}" failures="{failures}" errors="0">']
    for file, fs in by_file.items():
        out.append(f"    <testcase classname=\"gengpu\" name={quoteattr(file)}>")
        errors = [f for f in fs if f.is_error]
        body = "\n".join(f"{f.file}:{f.line}:{f.column}: {f.severity} {f.rule} {f.message}" for f in fs)
        if errors:
            out.append(f"      <failure message={quoteattr(f'{len(errors)} error(s)')} "
                       f"type=\"gengpu\">{escape(body)}</failure>")
        else:
            out.append(f"      <system-out>{escape(body)}</system-out>")
        out.append("    </testcase>")
    out += ["  </testsuite>", "</testsuites>"]
    return "\n".join(out)


REPORTERS = {"text": text, "json": as_json, "github": github, "sarif": sarif, "junit": junit}


def exit_code(findings: list[Finding], strict: bool = False) -> int:
    if any(f.severity == "error" for f in findings):
        return 1
    if strict and any(f.severity == "warning" for f in findings):
        return 1
    return 0
