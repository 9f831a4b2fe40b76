"""A baseline: findings a team accepted on the day it adopted gengpu, so that CI fails only on new ones.

Each finding is known by a fingerprint that survives moved lines, reordered lists and reformatting: its rule, its
file (relative to the repository's root, wherever gengpu runs from), the object it is about (kind/namespace/name of
the document at its line; for a profile, the pool a message names by its place in spec.nodePools) and its message
with line numbers and list indexes taken out. A finding that occurs several times is counted. Info findings are
never recorded. The file is JSON, sorted, with the rule, file and message of every entry beside its fingerprint so
that a reviewer can read what was accepted.

The repository's settings file (.gengpu.yaml, `baseline: FILE`) lets the pre-commit hooks and the pull-request job
use the baseline without a flag.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from gengpu.findings import Finding, UsageError

VERSION = 2  # 1: fingerprints of file and message alone (list indexes and the working directory in them)
SETTINGS = ".gengpu.yaml"
MAX_BYTES = 16 * 1024 * 1024
# places that move when lines move: "line 12", "lines 3-5", "file.yaml:12:7"; indexes that move when lists change
_PLACES = re.compile(r"\blines? \d+(?:\s*[-–]\s*\d+)?|(?:(?<=\.yaml)|(?<=\.yml)|(?<=\.json)):\d+(?::\d+)?")
_INDEX = re.compile(r"\[\d+\]")
_POOL = re.compile(r"nodePools\[(\d+)\]")


def normalised(message: str) -> str:
    return " ".join(_INDEX.sub("[#]", _PLACES.sub("#", message)).split())


def fingerprint(f: Finding, identities: "Identities | None" = None) -> str:
    """Stable across moved lines, reordered lists and reformatting: rule, file, object, message without positions."""
    ids = identities or Identities()
    text = f"{f.rule}\0{ids.path(f.file)}\0{ids.of(f)}\0{normalised(ids.named(f))}"
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]  # (a lone surrogate from outside)


class Identities:
    """What a finding is about, read from its file once per run: the repository-relative path, the object at its
    line, and the names of the pools its message gives by index."""

    def __init__(self):
        self._docs: dict[str, list] = {}
        self.root = _repository_root()

    def path(self, file: str) -> str:
        try:
            return Path(file).resolve().relative_to(self.root).as_posix()
        except (ValueError, OSError):
            return Path(file).as_posix()

    def _load(self, file: str) -> list:
        if file not in self._docs:
            docs = []
            if file.endswith((".yaml", ".yml")) and Path(file).is_file():
                from gengpu.loading import load_file

                try:
                    docs = load_file(Path(file), file)[0]
                except Exception:  # noqa: BLE001  (an unreadable file has no identities; its findings say why)
                    docs = []
            self._docs[file] = docs
        return self._docs[file]

    def _document(self, f: Finding):
        docs = [d for d in self._load(f.file) if isinstance(d.data, dict) and d.position(())[0] <= max(f.line, 1)]
        return max(docs, key=lambda d: d.position(())[0], default=None)

    def of(self, f: Finding) -> str:
        """kind/namespace/name of the Kubernetes object the finding is in ('' for other documents)."""
        doc = self._document(f)
        data = doc.data if doc is not None else {}
        meta = data.get("metadata") if isinstance(data.get("metadata"), dict) else {}
        if not data.get("kind") or data.get("kind") == "GPUProfile":
            return ""
        return f"{data.get('kind')}/{meta.get('namespace', '')}/{meta.get('name', '')}"

    def named(self, f: Finding) -> str:
        """The message with a profile's nodePools[i] given as the pool's name."""
        if not _POOL.search(f.message):
            return f.message
        doc = self._document(f)
        spec = doc.data.get("spec") if doc is not None and isinstance(doc.data, dict) else None
        pools = spec.get("nodePools") if isinstance(spec, dict) else None
        if not isinstance(pools, list):
            return f.message

        def name(m):
            i = int(m.group(1))
            pool = pools[i] if i < len(pools) and isinstance(pools[i], dict) else {}
            return f"nodePools[{pool['name']}]" if isinstance(pool.get("name"), str) else m.group(0)

        return _POOL.sub(name, f.message)


def _repository_root() -> Path:
    """The git work tree gengpu runs in (else the working directory): baseline paths do not depend on where."""
    here = Path.cwd().resolve()
    for folder in (here, *here.parents):
        if (folder / ".git").exists():
            return folder
    return here


@dataclass
class Baseline:
    path: str
    entries: dict[str, dict] = field(default_factory=dict)  # fingerprint -> {rule, file, message, count}
    lines: dict[str, int] = field(default_factory=dict)  # fingerprint -> its line in the file (for findings)


def render(findings: list[Finding]) -> str:
    # never failed CI: nothing to accept; but advice is recorded, as it is a warning in a run whose files show why
    findings = [f for f in findings if f.severity != "info" or f.needs]
    ids = Identities()
    prints = [fingerprint(f, ids) for f in findings]
    counts = Counter(prints)
    first: dict[str, Finding] = {}
    for fp, f in zip(prints, findings):
        first.setdefault(fp, f)
    entries = sorted(({"fingerprint": fp, "rule": f.rule, "file": ids.path(f.file),
                       **({"object": ids.of(f)} if ids.of(f) else {}), "message": f.message, "count": counts[fp]}
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
    from gengpu.loading.reading import read_bytes

    fix = f"write it again with `gengpu validate --write-baseline {path}`"
    if not Path(path).exists():
        raise UsageError(f"baseline {path}: no such file; {fix}")
    # bounded, regular files only: a FIFO or /dev/zero given as the baseline is refused, never read until it ends
    raw, problems = read_bytes(Path(path), path, MAX_BYTES)
    if problems:
        raise UsageError(f"baseline {path}: {problems[0].message}; {fix}")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise UsageError(f"baseline {path}: cannot be read ({e}); {fix}") from None
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as e:
        raise UsageError(f"baseline {path}: not JSON ({str(e)[:200] or 'nested too deep'}); {fix}") from None
    if isinstance(data, dict) and data.get("version") == 1:
        raise UsageError(f"baseline {path}: written by an older gengpu, whose fingerprints held list indexes and "
                         f"the working directory; {fix} (and review its diff)")
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
    out, accepted, used = [], 0, set()
    ids = Identities()
    # entries of a file that no longer exists: a renamed file's findings are the same findings (rule, object and
    # message), found under its new path
    moved = {_moved_key(e["rule"], e.get("object", ""), e.get("message", "")): fp for fp, e in base.entries.items()
             if e.get("file") and not (ids.root / str(e["file"])).exists()}
    for f in findings:
        # advice the files of this run show no consequence of (checking/consequences.py) is still the finding
        fp = fingerprint(f, ids) if f.severity != "info" or f.needs else ""
        if fp and left.get(fp, 0) <= 0 and moved:
            fp = moved.get(_moved_key(f.rule, ids.of(f), f.message), fp)
        if left.get(fp, 0) > 0:
            left[fp] -= 1
            accepted += 1
            used.add(fp)
        else:
            out.append(f)
    if accepted:
        out.append(finding("baseline-accepted", base.path, 1, 1, f"{accepted} finding(s) accepted by "
                           f"{len(used)} baseline entr{'y' if len(used) == 1 else 'ies'} (not shown; --no-baseline "
                           "shows them)"))
    for fp, count in sorted(left.items(), key=lambda kv: base.lines.get(kv[0], 0)):
        entry = base.entries[fp]
        if count > 0 and in_scope(str(entry.get("file", "")), [ids.path(s) for s in scope]):
            gone = "no longer occurs" if count == entry["count"] else f"occurs {entry['count'] - count} time(s), not {entry['count']}"
            out.append(finding("baseline-stale", base.path, base.lines.get(fp, 1), 3,
                               f"{entry.get('rule')} in {entry.get('file')} ({entry.get('message')}) {gone}: "
                               "remove the entry"))
    return out, accepted


def _moved_key(rule: str, obj: str, message: str) -> tuple:
    return (rule, obj, normalised(message))


def settings_path() -> Path | None:
    """The repository's .gengpu.yaml: in the working directory, else at the root of the git work tree it is in (a
    hook or CI job run from a subfolder reads the same settings)."""
    if Path(SETTINGS).is_file():
        return Path(SETTINGS)
    root = _repository_root()
    return Path(os.path.relpath(root / SETTINGS)) if (root / SETTINGS).is_file() else None


def settings_baseline() -> str | None:
    """`baseline:` of the repository's .gengpu.yaml, if any, as a path from the working directory (the settings name
    it from the folder they are in)."""
    path = settings_path()
    if path is None:
        return None
    import yaml

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (yaml.YAMLError, OSError, UnicodeDecodeError) as e:
        raise UsageError(f"{path}: cannot be read ({str(e).splitlines()[0]}); fix or remove it") from None
    if data is None:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("baseline", ""), str) or set(data) - {"baseline"}:
        raise UsageError(f"{path}: expected a mapping with `baseline: FILE` only")
    named = data.get("baseline") or None
    if named is None or Path(named).is_absolute() or path.parent.resolve() == Path.cwd().resolve():
        return named
    return os.path.relpath(path.parent / named)
