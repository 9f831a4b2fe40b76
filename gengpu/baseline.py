"""A baseline: findings a team accepted on the day it adopted gengpu, so that CI fails only on new ones.

Each finding is known by a fingerprint that survives moved lines and reformatting: its rule, its file and its
message (which names the object, the field and the value), with line and column numbers taken out. A finding that
occurs several times is counted. The file is JSON, sorted, with the rule, file and message of every entry beside its
fingerprint so that a reviewer can read what was accepted.

The repository's settings file (.gengpu.yaml, `baseline: FILE`) lets the pre-commit hooks and the pull-request job
use the baseline without a flag.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from gengpu.findings import Finding, UsageError

VERSION = 1
SETTINGS = ".gengpu.yaml"
# places that move when lines move: "line 12", "lines 3-5", "file.yaml:12:7"
_PLACES = re.compile(r"\blines? \d+(?:\s*[-–]\s*\d+)?|(?:(?<=\.yaml)|(?<=\.yml)|(?<=\.json)):\d+(?::\d+)?")


def normalised(message: str) -> str:
    return " ".join(_PLACES.sub("#", message).split())


def fingerprint(f: Finding) -> str:
    """Stable across moved lines and reformatting: rule, file and the message without positions."""
    text = f"{f.rule}\0{Path(f.file).as_posix()}\0{normalised(f.message)}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


@dataclass
class Baseline:
    path: str
    entries: dict[str, dict] = field(default_factory=dict)  # fingerprint -> {rule, file, message, count}
    lines: dict[str, int] = field(default_factory=dict)  # fingerprint -> its line in the file (for findings)


def render(findings: list[Finding]) -> str:
    counts = Counter(fingerprint(f) for f in findings)
    first: dict[str, Finding] = {}
    for f in findings:
        first.setdefault(fingerprint(f), f)
    entries = sorted(({"fingerprint": fp, "rule": f.rule, "file": f.file, "message": f.message, "count": counts[fp]}
                      for fp, f in first.items()), key=lambda e: (e["file"], e["rule"], e["message"], e["fingerprint"]))
    head = {"version": VERSION, "about": "Findings accepted by `gengpu validate --write-baseline`; validate with "
            "--baseline (or `baseline:` in .gengpu.yaml) reports only new ones. Remove an entry once it is fixed."}
    if not entries:
        return json.dumps({**head, "findings": []}) + "\n"
    # one entry a line: a reviewer sees in the diff which finding was accepted or removed
    lines = [json.dumps(head)[:-1] + ', "findings": [', *(f"  {json.dumps(e)}," for e in entries)]
    lines[-1] = lines[-1][:-1]
    lines.append("]}")
    return "\n".join(lines) + "\n"


def load(path: str) -> Baseline:
    """A baseline file; a missing or malformed one is a UsageError naming the file and the fix."""
    fix = f"write it again with `gengpu validate --write-baseline {path}`"
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(f"baseline {path}: no such file; {fix}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise UsageError(f"baseline {path}: cannot be read ({e}); {fix}") from None
    try:
        data = json.loads(text)
    except ValueError as e:
        raise UsageError(f"baseline {path}: not JSON ({e}); {fix}") from None
    if not isinstance(data, dict) or data.get("version") != VERSION or not isinstance(data.get("findings"), list):
        raise UsageError(f"baseline {path}: not a gengpu baseline of version {VERSION}; {fix}")
    base = Baseline(path)
    for number, line in enumerate(text.splitlines(), 1):
        match = re.search(r'"fingerprint": "([0-9a-f]+)"', line)
        if match:
            base.lines.setdefault(match.group(1), number)
    for entry in data["findings"]:
        if not isinstance(entry, dict) or not isinstance(entry.get("fingerprint"), str):
            raise UsageError(f"baseline {path}: an entry without a fingerprint; {fix}")
        count = entry.get("count", 1)
        base.entries[entry["fingerprint"]] = {**entry, "count": count if isinstance(count, int) and count > 0 else 1}
    return base


def write(path: str, findings: list[Finding]) -> None:
    """Whole or not at all (a temporary file beside it, fsync, rename)."""
    from gengpu import filewrites

    target = Path(path)
    if target.is_symlink() or (target.exists() and not target.is_file()):
        raise UsageError(f"{path} is not a regular file; give another baseline path")
    if target.exists():
        try:
            load(path)
        except UsageError:
            raise UsageError(f"{path} exists and is not a gengpu baseline; give another path") from None
    filewrites.write_whole(target, render(findings), 0o644)


def in_scope(file: str, scope: list[str]) -> bool:
    return any(file == s or file.startswith(s.rstrip("/") + "/") for s in scope)


def apply(findings: list[Finding], base: Baseline, scope: list[str]) -> tuple[list[Finding], int]:
    """The findings the baseline does not accept, one info finding with the count of those it does, and one per
    entry of the checked files that no longer occurs (removable). Returns (findings, accepted)."""
    from gengpu.checking.rules import finding

    left = {fp: e["count"] for fp, e in base.entries.items()}
    out, accepted = [], 0
    for f in findings:
        fp = fingerprint(f)
        if left.get(fp, 0) > 0 and f.severity != "info":
            left[fp] -= 1
            accepted += 1
        else:
            out.append(f)
    if accepted:
        out.append(finding("baseline-accepted", base.path, 1, 1, f"{accepted} finding(s) accepted by the baseline "
                           "(not shown; --no-baseline shows them)"))
    for fp, count in sorted(left.items(), key=lambda kv: base.lines.get(kv[0], 0)):
        entry = base.entries[fp]
        if count > 0 and in_scope(str(entry.get("file", "")), scope):
            gone = "no longer occurs" if count == entry["count"] else f"occurs {entry['count'] - count} time(s), not {entry['count']}"
            out.append(finding("baseline-stale", base.path, base.lines.get(fp, 1), 3,
                               f"{entry.get('rule')} in {entry.get('file')} ({entry.get('message')}) {gone}: "
                               "remove the entry"))
    return out, accepted


def settings_baseline() -> str | None:
    """`baseline:` of the repository's .gengpu.yaml (in the working directory), if any."""
    path = Path(SETTINGS)
    if not path.is_file():
        return None
    import yaml

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (yaml.YAMLError, OSError, UnicodeDecodeError) as e:
        raise UsageError(f"{SETTINGS}: cannot be read ({str(e).splitlines()[0]}); fix or remove it") from None
    if data is None:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("baseline", ""), str) or set(data) - {"baseline"}:
        raise UsageError(f"{SETTINGS}: expected a mapping with `baseline: FILE` only")
    return data.get("baseline") or None
