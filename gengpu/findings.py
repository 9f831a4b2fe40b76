"""The one value every stage reports: a finding at a place in a file."""

from __future__ import annotations

from dataclasses import dataclass, field

@dataclass(frozen=True, order=True)
class Finding:
    file: str
    line: int  # 1-based; 0 when the finding is about the whole file
    column: int  # 1-based; 0 when unknown
    severity: str
    rule: str
    message: str
    fix: str = field(default="", compare=False)

    @property
    def is_error(self) -> bool:
        return self.severity == "error"


def sort_findings(findings):
    """Stable order: by file, position, rule, message."""
    return sorted(set(findings), key=lambda f: (f.file, f.line, f.column, f.rule, f.message))


class UsageError(Exception):
    """A problem with how gengpu was called or with its environment (exit 2)."""
