"""Stage 6, report: findings as text or JSON; the exit code is decided once, here."""

from __future__ import annotations

import json

from gengpu.findings import Finding


def text(findings: list[Finding]) -> str:
    lines = []
    for f in findings:
        lines.append(f"{f.file}:{f.line}:{f.column}: {f.severity} {f.rule} {f.message}")
        if f.fix:
            lines.append(f"  fix: {f.fix}")
    return "\n".join(lines)


def as_json(findings: list[Finding]) -> str:
    return json.dumps({
        "findings": [
            {"file": f.file, "line": f.line, "column": f.column, "severity": f.severity, "rule": f.rule,
             "message": f.message, "fix": f.fix}
            for f in findings
        ],
        "summary": {s: sum(1 for f in findings if f.severity == s) for s in ("error", "warning", "info")},
    }, indent=2)


REPORTERS = {"text": text, "json": as_json}


def exit_code(findings: list[Finding], strict: bool = False) -> int:
    if any(f.severity == "error" for f in findings):
        return 1
    if strict and any(f.severity == "warning" for f in findings):
        return 1
    return 0
