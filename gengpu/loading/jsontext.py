"""JSON from outside (an API server's answer, a snapshot file), parsed once and refused with a reason: a key given
twice (which JSON parsers resolve differently; gengpu's YAML reading refuses it too) and nesting deeper than any
Kubernetes object or Prometheus answer has."""

from __future__ import annotations

import functools
import json
import re


class JsonRefused(ValueError):
    """Why an answer or file is not JSON gengpu reads."""


class NotJson(JsonRefused):
    """Not JSON at all (a login page, a proxy's error), as opposed to JSON gengpu refuses."""


def _unique(pairs: list) -> dict:
    data = dict(pairs)
    if len(data) != len(pairs):
        seen = set()
        key = next(k for k, _ in pairs if k in seen or seen.add(k))
        raise JsonRefused(f"the key {key!r} is given twice in one object")
    return data


def parse(raw: bytes | str):
    """The JSON value, or JsonRefused naming why not (not JSON, a duplicate key, nested too deep)."""
    try:
        return json.loads(raw, object_pairs_hook=_unique)
    except JsonRefused:
        raise
    except RecursionError:
        raise JsonRefused("it is nested deeper than any Kubernetes object or Prometheus answer") from None
    except ValueError as exc:
        raise NotJson(f"not JSON ({str(exc).splitlines()[0][:120]})") from None


@functools.lru_cache(maxsize=8)
def _marks(unread: tuple[tuple[str, str], ...]) -> re.Pattern:
    """Where a value under one of the keys `unread` starts: `,"key":[` (as a key, not first in its object: a key's
    quote cannot be inside a string), every key in one pass over the text, left to right."""
    return re.compile(",\"(?:" + "|".join(re.escape(f'{key}":{opening}') for key, opening in unread) + ")")


_STEP_OVER = json.JSONDecoder().raw_decode  # the C scanner without a hook: finds a value's end, builds it plainly


def parse_unread(raw: bytes, unread: tuple[tuple[str, str], ...]):
    """parse() of a large answer whose values under the keys `unread` ((key, "[" or "{") pairs: arrays or objects
    nothing reads, as an object's managedFields) are stepped over by the plain scanner and left out, so the checks
    for a key twice run on what is read; where the text is not what this reading expects, parse() of the whole, as
    before. A pod's managedFields are half its bytes and nine in ten of its objects: reading around them halves a
    large cluster's parse."""
    try:
        text = raw.decode("utf-8")
        pieces, at = [], 0
        for hit in _marks(unread).finditer(text):
            found, value = hit.start(), hit.end() - 1
            if found >= at:  # (not within a value already left out)
                pieces.append(text[at:found])
                at = _STEP_OVER(text, value)[1]
        pieces.append(text[at:])
    except (ValueError, RecursionError):  # (not UTF-8, a value without an end: the whole's reason is given)
        return parse(raw)
    if at == 0:
        return parse(raw)
    try:
        return parse("".join(pieces))
    except JsonRefused:
        return parse(raw)  # (the whole's reason, where the rest is refused too)


_SPACE = " \t\n\r"


class Positions:
    """Where values are in a JSON text that was already parsed (a large snapshot): found by walking the text down a
    path, each container's children indexed once when first walked through (one pass over what the path crosses,
    never a second parse of the whole file into a node tree)."""

    def __init__(self, text: str):
        self.text = text
        self.decoder = json.JSONDecoder()
        self.children: dict[int, dict] = {}  # a container's offset -> key or index -> (key offset, value offset)

    def _skip(self, at: int) -> int:
        text = self.text
        while at < len(text) and text[at] in _SPACE:
            at += 1
        return at

    def _index(self, start: int) -> dict:
        """The children of the object or array at `start`: key or index -> (key's offset, value's offset)."""
        known = self.children.get(start)
        if known is not None:
            return known
        text, out = self.text, {}
        opening = text[start]
        at = self._skip(start + 1)
        i = 0
        while at < len(text) and text[at] not in "]}":
            if opening == "{":
                key_at = at
                key, at = json.decoder.scanstring(text, at + 1)
                at = self._skip(at)
                at = self._skip(at + 1)  # (the colon)
            else:
                key, key_at = i, at
            value_at = at
            _, at = self.decoder.raw_decode(text, value_at)
            out.setdefault(key, (key_at, value_at))  # (a key twice was refused when the file was parsed)
            i += 1
            at = self._skip(at)
            if at < len(text) and text[at] == ",":
                at = self._skip(at + 1)
        self.children[start] = out
        return out

    def offset(self, path, key: bool = False) -> int:
        """The offset of the value at path, or of its key (key=True, or where the value is an object or array, as
        a reader looks for a block's key); the nearest parent's when the path goes further than the text."""
        at, key_at = self._skip(0), None
        for part in tuple(path):
            if at >= len(self.text) or self.text[at] not in "{[":
                break
            child = self._index(at).get(part)
            if child is None or isinstance(part, bool) or (self.text[at] == "[") != isinstance(part, int):
                break
            key_at, at = child
        if key_at is not None and (key or self.text[at] in "{["):
            return key_at
        return at

    def position(self, path, key: bool = False) -> tuple[int, int]:
        """1-based line and column of offset(path)."""
        at = self.offset(path, key)
        line = self.text.count("\n", 0, at) + 1
        return line, at - (self.text.rfind("\n", 0, at) + 1) + 1
