"""Text from outside (a node's condition message, a label value, a series' pod name) made safe to show: on a
terminal, in a GitHub annotation or pull-request comment, in SARIF or JUnit XML. Control characters (the terminal
title escape, a bell), line breaks (a forged "no findings" line), bidirectional overrides (text that reads
otherwise than it is) and lone surrogates (not text at all) are written as visible escapes; everything else is left
as it is. Markdown read by people (a pull-request comment) also loses links, images and mentions (markdown())."""

from __future__ import annotations

import dataclasses

# bidirectional embeddings, overrides and isolates, and the invisible marks that steer them
_BIDI = {0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)}


def shown(text: str, lines: bool = False) -> str:
    """lines: keep line breaks, for formats that encode them (JSON, SARIF, XML, GitHub's %0A): only a terminal or a
    markdown line reads a raw one as a new line."""
    if text.isprintable():
        return text  # the common case: no copy
    out = []
    for ch in text:
        code = ord(ch)
        if lines and ch in "\n\r":
            out.append(ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif code < 0x20 or 0x7F <= code < 0xA0:
            out.append(f"\\x{code:02x}")
        elif code in _BIDI or code in (0x2028, 0x2029) or 0xD800 <= code <= 0xDFFF:
            # (a lone surrogate, which JSON and YAML parsers let through, cannot be written as UTF-8 at all)
            out.append(f"\\u{code:04x}")
        else:
            out.append(ch)
    return "".join(out)


def findings(found: list, lines: bool = False) -> list:
    """The findings with their file and message shown safely (gengpu's own fix texts need nothing)."""
    return [f if all(v.isprintable() for v in (f.message, f.file, f.subject, f.node, f.pool))
            else dataclasses.replace(f, file=shown(f.file), message=shown(f.message, lines), subject=shown(f.subject),
                                     node=shown(f.node), pool=shown(f.pool)) for f in found]


def markdown(text: str) -> str:
    """Outside text inside markdown a platform renders (a pull-request comment): shown(), and nothing that acts when
    rendered: a link or image ([x](y)), a bare URL, an @mention or #reference that notifies people, HTML, table
    cells, emphasis that could forge gengpu's own lines. What acts is written as HTML entities, which render as the
    same characters; a mention or reference is broken by a zero-width space, as Renovate does."""
    return shown(text).translate(_MARKDOWN).replace("://", "&#58;//")


_MARKDOWN = str.maketrans({
    "&": "&amp;", "<": "&lt;", ">": "&gt;", "[": "&#91;", "]": "&#93;", "`": "&#96;", "|": "&#124;", "*": "&#42;",
    "_": "&#95;", "~": "&#126;", "\\": "&#92;", "!": "&#33;", "@": "@&#8203;", "#": "#&#8203;"})
