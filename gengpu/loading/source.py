"""Read YAML with ruamel.yaml so every value keeps its line and column.

Parse errors are returned as findings, never raised: one broken file must not
hide the findings of the others.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from pathlib import Path

from gengpu.findings import Finding

@dataclass
class Document:
    """One YAML document: plain data plus the position of every key and value."""

    file: str
    data: object
    index: int = 0  # position in a multi-document stream
    values: dict = field(default_factory=dict, repr=False)  # path -> (line, col), 1-based
    keys: dict = field(default_factory=dict, repr=False)  # path -> (line, col) of the key itself
    lines: list = field(default_factory=list, repr=False)  # the file's text, for embedded documents

    def position(self, path, *, key: bool = False) -> tuple[int, int]:
        """Line and column of the value at path (or of its key), falling back to the nearest parent."""
        path = tuple(path)
        while True:
            table = self.keys if key and path in self.keys else self.values
            if path in table:
                return table[path]
            if not path:
                return (1, 1)
            path = path[:-1]


def _yaml():
    from ruamel.yaml import YAML

    yml = YAML(typ="rt")
    yml.allow_duplicate_keys = False
    return yml


def _plain(node, path, doc: Document):
    """Convert ruamel's round-trip nodes to plain Python, recording positions."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    if isinstance(node, CommentedMap):
        out = {}
        for k in node:
            key = str(k) if not isinstance(k, (str, int, bool)) else k
            kline, kcol = node.lc.key(k)
            vline, vcol = node.lc.value(k)
            child = path + (key,)
            doc.keys[child] = (kline + 1, kcol + 1)
            doc.values[child] = (vline + 1, vcol + 1)
            out[key] = _plain(node[k], child, doc)
            if isinstance(out[key], (dict, list)):
                # A block collection's own line is its key's line.
                doc.values[child] = doc.keys[child]
        return out
    if isinstance(node, CommentedSeq):
        out = []
        for i, item in enumerate(node):
            line, col = node.lc.item(i)
            doc.values[path + (i,)] = (line + 1, col + 1)
            out.append(_plain(item, path + (i,), doc))
        return out
    if isinstance(node, bool) or node is None:
        return node
    if isinstance(node, int):
        return int(node)
    if isinstance(node, float):
        return float(node)
    if isinstance(node, (datetime.date, datetime.datetime)):
        return node.isoformat()
    return str(node)


def _first_key_line(text: str, key: str, start: int, end: int, column: int) -> int | None:
    """1-based line of the first `key:` at this column between two 0-based lines."""
    for number, line in enumerate(text.splitlines()[start:end], start=start + 1):
        stripped = line[column:]
        if line[:column].strip() in ("", "-") and stripped.split(":", 1)[0].strip().strip("'\"") == key \
                and ":" in stripped:
            return number
    return None


def _error_finding(file: str, exc, text: str) -> Finding:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
    problem = getattr(exc, "problem", None) or str(exc)
    context = getattr(exc, "context", None)
    from ruamel.yaml.constructor import DuplicateKeyError

    if isinstance(exc, DuplicateKeyError):
        key = str(problem).split('"')[1] if '"' in str(problem) else "?"
        first = _first_key_line(text, key, exc.context_mark.line, mark.line, mark.column)
        return Finding(
            file, line, col, "error", "yaml-duplicate-key",
            f"duplicate key '{key}'" + (f" (the first one is on line {first})" if first else ""),
            "remove one of the two keys; YAML parsers disagree on which one wins",
        )
    message = f"{context}: {problem}" if context else str(problem)
    return Finding(file, line, col, "error", "yaml-syntax", f"invalid YAML: {message.strip()}",
                   "fix the YAML syntax at this position")


def load_documents(text: str, file: str) -> tuple[list[Document], list[Finding]]:
    """All documents of a YAML stream, or the finding that stopped the parse."""
    from ruamel.yaml.error import YAMLError

    docs: list[Document] = []
    lines = text.splitlines()
    try:
        for i, node in enumerate(_yaml().load_all(text)):
            doc = Document(file=file, data=None, index=i, lines=lines)
            doc.data = _plain(node, (), doc)
            if node is not None and hasattr(node, "lc"):
                doc.values[()] = (node.lc.line + 1, node.lc.col + 1)
            docs.append(doc)
    except YAMLError as exc:
        return docs, [_error_finding(file, exc, text)]
    return docs, []


def load_file(path: Path, display: str | None = None) -> tuple[list[Document], list[Finding]]:
    display = display or str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return [], [Finding(display, 0, 0, "error", "file-unreadable", "file is not UTF-8 text",
                            "save the file as UTF-8")]
    except OSError as exc:
        return [], [Finding(display, 0, 0, "error", "file-unreadable", f"cannot read file: {exc.strerror}",
                            "check the path and its permissions")]
    return load_documents(text, display)


def load_embedded(doc: Document, path: tuple) -> tuple[list[Document], list[Finding]]:
    """Parse a YAML document held in a string field (a ConfigMap data key), keeping file positions.

    For a block scalar (`key: |`) the text starts on the line after the key, at
    the indentation of its first line; positions inside it are shifted there.
    """
    text = doc.data
    for part in path:
        text = text[part]
    key_line, _ = doc.position(path, key=True)
    first = key_line  # 0-based index of the line after the key
    indent = 0
    if first < len(doc.lines):
        content = doc.lines[first]
        indent = len(content) - len(content.lstrip(" "))
    inner, findings = load_documents(text, doc.file)
    shift = lambda pos: (pos[0] + key_line, pos[1] + indent)  # noqa: E731
    for d in inner:
        d.values = {k: shift(v) for k, v in d.values.items()}
        d.keys = {k: shift(v) for k, v in d.keys.items()}
        d.lines = doc.lines
    findings = [Finding(f.file, f.line + key_line, f.column + indent, f.severity, f.rule, f.message, f.fix)
                for f in findings]
    return inner, findings
