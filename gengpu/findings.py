"""The one value every stage reports: a finding at a place in a file."""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

@dataclass(frozen=True, order=True)
class Finding:
    file: str
    line: int  # 1-based; 0 when the finding is about the whole file
    column: int  # 1-based; 0 when unknown
    severity: str
    rule: str
    message: str
    fix: str = field(default="", compare=False)
    # advice: what must also be in the files for this to be a warning (checking/consequences.py); "" for none
    needs: str = field(default="", compare=False, repr=False)
    # what a finding of a running cluster is about, for machines (JSON, SARIF): Kind/namespace/name, and the node
    # and pool it is tied to; "" where it does not say
    subject: str = field(default="", compare=False, repr=False)
    node: str = field(default="", compare=False, repr=False)
    pool: str = field(default="", compare=False, repr=False)

    def __post_init__(self):
        # a value quoted whole (a schema's message repeats the instance) can be thousands of characters of a hostile
        # file: it is cut to its ends, which keep what it is and its quotes
        if len(self.message) > _LONG:
            object.__setattr__(self, "message", _LONG_WORD.sub(_clip, self.message))

    @property
    def is_error(self) -> bool:
        return self.severity == "error"


_LONG = 200
_LONG_WORD = re.compile(r"\S{%d,}" % _LONG)


def _clip(word: re.Match) -> str:
    text = word.group()
    return f"{text[:60]}…[{len(text) - 70} characters]…{text[-10:]}"


def sort_findings(findings):
    """Stable order: by file, position, rule, message."""
    return sorted(set(findings), key=lambda f: (f.file, f.line, f.column, f.rule, f.message))


class UsageError(Exception):
    """A problem with how gengpu was called or with its environment (exit 2)."""


def display(path) -> str:
    """Paths in findings: relative to the working directory when inside it. Symlinks are shown, not followed."""
    return _display(str(path), os.getcwd())


@functools.lru_cache(maxsize=65536)
def _display(path: str, cwd: str) -> str:
    absolute = os.path.abspath(path)
    inside = absolute == cwd or absolute.startswith(cwd.rstrip(os.sep) + os.sep)
    return Path(os.path.relpath(absolute, cwd)).as_posix() if inside else Path(absolute).as_posix()
