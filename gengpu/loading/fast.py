"""Large machine-written JSON (a cluster's snapshot) read by the json module: the data at once, the YAML node tree
that positions come from only when a finding asks for one (Document.lazy)."""

from __future__ import annotations

from gengpu.loading import jsontext, reading
from gengpu.loading.source import Document, decode


def load_json_fast(raw: bytes, display: str) -> list[Document] | None:
    """A large machine-written JSON file (a snapshot), parsed by the json module: the data at once, its positions
    only if a finding asks for one (Document.lazy). None when it is not plain JSON: the YAML loader then reads it
    and reports what is wrong where."""
    text, findings = decode(raw, display, reading.snapshot_max_bytes())
    if text is None or findings or not text.lstrip().startswith(("{", "[")):
        return None
    try:
        data = jsontext.parse(text)
    except jsontext.JsonRefused:  # (a key given twice, nesting too deep: the YAML reading says where, as for YAML)
        return None
    return [Document(display, data, 0, None, text, lazy=True)]
