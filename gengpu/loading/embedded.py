"""A YAML document held in a string field of another (a ConfigMap's data key, Helm values' config.data), parsed with
positions in the file that holds it."""

from __future__ import annotations

from yaml.nodes import ScalarNode

from gengpu.findings import Finding
from gengpu.loading.source import Document, _child, load_documents


def _place(doc: Document, path: tuple):
    """(text, host document, line shift, column shift, flat) of the string at path: where its lines are in the file.

    A block scalar (`key: |`) starts on the line after its indicator, at the
    indentation of its first line; positions inside it are shifted there.
    """
    text = doc.data
    for part in path:
        text = text[part]
    doc = doc.source_for(path)  # the file the string was written in
    found = None
    node = doc.node
    for part in path:
        found = _child(node, part)
        node = found[1] if found else None
    line_shift, col_shift = doc.line_shift, doc.col_shift
    if isinstance(node, ScalarNode) and node.style in ("|", ">"):
        line_shift += node.start_mark.line + 1
        # The first content line's indentation in the host file, read off the file itself.
        lines = doc.text.split("\n", node.start_mark.line + 2)
        host = lines[node.start_mark.line + 1] if node.start_mark.line + 1 < len(lines) else ""
        col_shift += len(host) - len(host.lstrip(" "))
    elif node is not None:
        line_shift += node.start_mark.line
        col_shift += node.start_mark.column + (1 if node.style in ("'", '"') else 0)
    # a quoted string whose lines are escapes (\n), not lines of the file: its positions are the string's own
    flat = isinstance(node, ScalarNode) and node.style not in ("|", ">") and isinstance(text, str) and \
        text.count("\n") != node.end_mark.line - node.start_mark.line
    return text, doc, line_shift, col_shift, flat


def load_embedded(doc: Document, path: tuple) -> tuple[list[Document], list[Finding]]:
    """Parse a YAML document held in a string field (a ConfigMap data key), keeping file positions."""
    role = doc.role  # what holds it says where it is (a patch's ConfigMap, a chart's values)
    text, doc, line_shift, col_shift, flat = _place(doc, path)
    inner, findings = load_documents(text, doc.file)
    for d in inner:
        d.line_shift, d.col_shift, d.flat, d.role = line_shift, col_shift, flat, role
    findings = [Finding(f.file, 1 + line_shift, col_shift, f.severity, f.rule, f.message, f.fix) if flat else
                Finding(f.file, f.line + line_shift, f.column + col_shift, f.severity, f.rule, f.message, f.fix)
                for f in findings]
    return inner, findings


def embedded_counters(doc: Document, path: tuple):
    """A dcgm-exporter counters file held in a string field (a ConfigMap key the exporter mounts), with positions in
    the file that holds it; None when the string is not one."""
    from gengpu.loading import counters

    role = doc.role
    text, host, line_shift, col_shift, flat = _place(doc, path)
    if flat or not isinstance(text, str) or not counters.looks_like(text):
        return None
    return counters.document(host.file, text, host.index, line_shift, col_shift, role=role)
