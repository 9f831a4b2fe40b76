"""dcgm-exporter's counters files: `DCGM field, Prometheus type, help` per line, as a .csv file or a ConfigMap key the
exporter mounts, read the way the exporter reads them.

dcgm-exporter (internal/pkg/counters/counter_config.go at 4.5.3-4.8.2, ReadCSVFile) reads the file with Go's
encoding/csv, Comment '#': a line that starts with '#' is skipped, an empty line is skipped, a field that starts
with '"' is quoted ("" inside it is a quote, it may span lines), a '"' anywhere in an unquoted field is an error
(bare quote), and every record must have as many fields as the first (wrong number of fields). A syntax error stops
the read, and the exporter with it. The records go on to ExtractCounters (checking/rules/dcgm_counters_*.py).

The file is held as a document whose data is {"dcgmCounters": [row, ...]} (kinds.yaml's shape of a counters file),
each row {"field", "type", "help", "fields", "line", "columns"}, and {"dcgmCountersError": {...}} for the error that
stops the read; positions come from each row's line and columns.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from gengpu.loading.source import Document

MARK = "dcgmCounters"
ERROR = "dcgmCountersError"
_FIELD = re.compile(r"^\s*DCGM_(FI|EXP)_[A-Z0-9_]+\s*,")


def looks_like(text: str) -> bool:
    """A counters file: its first record (after comments and blank lines) names a DCGM field."""
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        return bool(_FIELD.match(line))
    return False


@dataclass
class CountersDocument(Document):
    """A counters file (or ConfigMap key): positions from its rows' lines and columns."""

    places: dict = field(default_factory=dict, repr=False)  # (row, column) or (row,) -> (line, col), 1-based

    def position(self, path, *, key: bool = False) -> tuple[int, int]:
        path = tuple(path)
        if len(path) >= 2 and path[0] == MARK:
            row = path[1]
            place = self.places.get((row, path[2] if len(path) > 2 else None)) or self.places.get((row, None))
            if place:
                return (place[0] + self.line_shift, place[1] + self.col_shift)
        if path[:1] == (ERROR,) and isinstance(self.data.get(ERROR), dict):
            err = self.data[ERROR]
            return (err["line"] + self.line_shift, err["column"] + self.col_shift)
        return (1 + self.line_shift, 1 + self.col_shift)


def read(text: str) -> tuple[list[dict], dict | None]:
    """(rows, error): the records up to the first error Go's encoding/csv would stop at, and that error."""
    rows: list[dict] = []
    lines = text.split("\n")
    i, expected = 0, None
    while i < len(lines):
        line = lines[i].rstrip("\r")
        if line == "" or line.startswith("#"):
            i += 1
            continue
        first = i + 1
        fields, columns, pos = [], [], 0
        while True:
            columns.append(pos + 1)
            if line[pos:pos + 1] == '"':  # a quoted field, "" a quote inside, may span lines
                value, pos, start = [], pos + 1, i
                while True:
                    end = line.find('"', pos)
                    if end < 0:
                        value.append(line[pos:] + "\n")
                        i += 1
                        if i >= len(lines):
                            return rows, {"line": start + 1, "column": columns[-1],
                                          "message": 'extraneous or missing " in quoted-field'}
                        line, pos = lines[i].rstrip("\r"), 0
                        continue
                    value.append(line[pos:end])
                    if line[end + 1:end + 2] == '"':
                        value.append('"')
                        pos = end + 2
                        continue
                    pos = end + 1
                    break
                fields.append("".join(value))
                if pos < len(line) and line[pos] != ",":
                    return rows, {"line": i + 1, "column": pos + 1,
                                  "message": 'extraneous or missing " in quoted-field'}
            else:
                end = line.find(",", pos)
                value = line[pos:] if end < 0 else line[pos:end]
                quote = value.find('"')
                if quote >= 0:
                    return rows, {"line": i + 1, "column": pos + quote + 1, "message": 'bare " in non-quoted-field'}
                fields.append(value)
                pos = len(line) if end < 0 else end
            if pos < len(line) and line[pos] == ",":
                pos += 1
                continue
            break
        if expected is None:
            expected = len(fields)
        elif len(fields) != expected:
            return rows, {"line": first, "column": 1, "message": f"wrong number of fields ({len(fields)}, the first "
                          f"record has {expected})"}
        trimmed = [f.strip(" ") for f in fields]  # ExtractCounters trims spaces
        rows.append({"field": trimmed[0], "type": trimmed[1] if len(trimmed) > 1 else "",
                     "help": trimmed[2] if len(trimmed) > 2 else "", "fields": len(trimmed), "line": first,
                     "columns": columns})
        i += 1
    return rows, None


def document(file: str, text: str, index: int = 0, line_shift: int = 0, col_shift: int = 0,
             role=None) -> CountersDocument:
    rows, error = read(text)
    data: dict = {MARK: rows}
    if error:
        data[ERROR] = error
    doc = CountersDocument(file, data, index, None, text, line_shift, col_shift, role=role)
    for r, row in enumerate(rows):
        doc.places[(r, None)] = (row["line"], 1)
        for c, column in enumerate(row["columns"]):
            doc.places[(r, ("field", "type", "help")[c] if c < 3 else c)] = (row["line"], column)
    return doc
