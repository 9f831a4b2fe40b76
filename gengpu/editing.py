"""Changing a profile the way a person would: ruamel.yaml's round trip keeps comments, key order, quoting and
indentation, and only the fields a proposal names are set (gengpu rightsize --write)."""

from __future__ import annotations

import io

from gengpu.findings import UsageError


def set_pool_fields(text: str, source: str, pool_index: int, changes: list[tuple[tuple, object]]) -> str:
    """The profile text with each (path under spec.nodePools[pool_index], value) set, everything else as it was."""
    from ruamel.yaml import YAML
    from ruamel.yaml.comments import CommentedMap
    from ruamel.yaml.util import load_yaml_guess_indent

    try:
        _, sequence, offset = load_yaml_guess_indent(text)
    except Exception as e:  # ruamel raises many types; the profile was parsed before, so this is unexpected
        raise UsageError(f"{source}: cannot be edited as YAML ({type(e).__name__}); change it by hand") from None
    yaml = YAML()
    yaml.preserve_quotes = True
    yaml.width = 4096
    mapping = _mapping_indent(text)
    yaml.indent(mapping=mapping, sequence=sequence or mapping + (offset or 0), offset=offset or 0)
    doc = yaml.load(text)
    pool = doc["spec"]["nodePools"][pool_index]

    def plain(value):
        if isinstance(value, dict):
            out = CommentedMap()
            for k, v in value.items():
                out[k] = plain(v)
            return out
        return value

    for path, value in changes:
        node = pool
        for part in path[:-1]:
            if part not in node or not isinstance(node[part], dict):
                _append(node, part, CommentedMap())
            node = node[part]
        if path[-1] in node:
            node[path[-1]] = plain(value)
        else:
            _append(node, path[-1], plain(value))
    out = io.StringIO()
    yaml.dump(doc, out)
    return out.getvalue()


def _append(mapping, key, value) -> None:
    """Add a key at the end of a mapping. ruamel keeps the comment lines that follow a mapping (those written above
    the next list item, say) on its last scalar: they move to the new last one, or they would end up above it."""
    last = _last_scalar(mapping)
    mapping[key] = value
    if last is None:
        return
    holder, k = last
    tokens = holder.ca.items.get(k)
    if not tokens or len(tokens) < 3 or tokens[2] is None or "\n" not in tokens[2].value.rstrip("\n"):
        return
    token = tokens[2]
    head, rest = token.value.split("\n", 1)
    token.value = head + "\n"
    target = _last_scalar(mapping)
    if target is None:
        return
    import copy

    moved = copy.copy(token)
    moved.value = "\n" + rest
    t_holder, t_key = target
    slots = t_holder.ca.items.setdefault(t_key, [None, None, None, None])
    slots[2] = moved


def _last_scalar(node):
    """(the mapping or sequence, its key or index) of the last scalar under node, where ruamel hangs what follows."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    found = None
    while isinstance(node, (CommentedMap, CommentedSeq)) and len(node):
        key = list(node.keys())[-1] if isinstance(node, CommentedMap) else len(node) - 1
        found = (node, key)
        node = node[key]
    return found


def _mapping_indent(text: str) -> int:
    """The indentation of nested mappings as the file writes them (ruamel guesses only its sequences')."""
    widths = [len(line) - len(line.lstrip(" ")) for line in text.splitlines()
              if line.startswith(" ") and line.strip() and not line.lstrip().startswith(("-", "#"))]
    return min(widths, default=2) or 2
