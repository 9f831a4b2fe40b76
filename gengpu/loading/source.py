"""Read YAML with libyaml, keeping every node's line and column, within limits hostile input cannot break.

Parse errors and broken limits are returned as findings, never raised: one
broken file must not hide the findings of the others. Scalars resolve as
YAML 1.1, as the Go YAML libraries behind kubectl, the API server and NVIDIA's
config parsers resolve them (`yes` is a boolean, `0644` an octal number).
"""

from __future__ import annotations

import codecs
import sys
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from yaml.constructor import SafeConstructor
from yaml.nodes import MappingNode, ScalarNode, SequenceNode

from gengpu.findings import Finding
from gengpu.loading import reading
from gengpu.loading.reading import read_bytes, too_large

_IMPLICIT = yaml.resolver.Resolver.yaml_implicit_resolvers  # YAML 1.1: first character -> [(tag, pattern)]
_DEFAULT_TAGS = {ScalarNode: "tag:yaml.org,2002:str", SequenceNode: "tag:yaml.org,2002:seq",
                 MappingNode: "tag:yaml.org,2002:map"}


class _Loader(getattr(yaml, "CBaseLoader", yaml.BaseLoader)):
    """libyaml composes; scalars are resolved later, only where it matters (_tag), with PyYAML's own table."""

    def resolve(self, kind, value, implicit):
        return _DEFAULT_TAGS[kind]


class _RedefiningLoader(yaml.BaseLoader):
    """For a stream that defines an anchor twice, which libyaml's composer refuses: YAML 1.2 lets a later anchor
    replace an earlier one (an alias names the nearest one before it), and Go's yaml.v3 behind kustomize, kubectl
    and Flux reads it so. Pure Python, so only such streams pay for it."""

    resolve = _Loader.resolve

    def compose_node(self, parent, index):
        if not self.check_event(yaml.AliasEvent):
            anchor = self.peek_event().anchor
            if anchor is not None:
                self.anchors.pop(anchor, None)
        return super().compose_node(parent, index)

# Limits a file must stay within. Kubernetes refuses objects over 3 MiB; a GitOps file is far smaller.
MAX_DEPTH = 100  # CRD schemas, the deepest real objects, nest about 40 levels
_DEEP = ("yaml-limit", f"values nest deeper than {MAX_DEPTH} levels",
         "flatten the structure; no Kubernetes object or GPU config nests this deep")
MIN_NODE_BUDGET = 100_000  # values a document may expand to through aliases, at the least...
ALIAS_GROWTH = 10  # ...or this many times the nodes it is written with

TAG = "tag:yaml.org,2002:"
_SCALAR_TAGS = {f"{TAG}{t}" for t in ("str", "int", "float", "bool", "null", "timestamp", "value", "binary")}
_constructor = SafeConstructor()


class _Stop(Exception):
    """A document breaks a rule of the loader: reported as a finding, the document is dropped."""

    def __init__(self, node, rule: str, message: str, fix: str, key_of=None):
        super().__init__(message)
        self.mark = (key_of or node).start_mark if node is not None else None
        self.rule, self.message, self.fix = rule, message, fix


@dataclass
class Document:
    """One YAML document: plain data, and the node tree it came from for line:column positions."""

    file: str
    data: object
    index: int = 0  # position in a multi-document stream
    node: object = field(default=None, repr=False)
    text: str = field(default="", repr=False)  # the file's text
    line_shift: int = 0  # for a document embedded in a string field of another: where that string starts
    col_shift: int = 0
    flat: bool = False  # embedded in a one-line quoted string ("{\n ...}"): every position is the string's
    lazy: bool = False  # read by a fast JSON parser: the node tree (positions) is built from text when first asked
    role: object = field(default=None, repr=False)  # what it is (loading/roles.py Role), once loading decided it
    positions: object = field(default=None, repr=False, compare=False)  # a lazy document's jsontext.Positions

    def position(self, path, *, key: bool = False) -> tuple[int, int]:
        """Line and column (1-based) of the value at path (or of its key), falling back to the nearest parent.

        A block collection's position is its key's, where a reader looks for it.
        """
        if self.flat:
            return (1 + self.line_shift, self.col_shift)
        if self.lazy:  # a large JSON file: its text walked down the path, never parsed again (jsontext.Positions)
            from gengpu.loading import jsontext

            self.positions = self.positions or jsontext.Positions(self.text)
            return self.positions.position(tuple(path), key)
        node, key_node, found_key = self.node, None, None
        for part in tuple(path):
            child = _child(node, part)
            if child is None:
                break
            key_node, node = child
            found_key = key_node
        if node is None:
            return (1 + self.line_shift, 1 + self.col_shift)
        mark = node.start_mark
        if found_key is not None and (key or not isinstance(node, ScalarNode)):
            mark = found_key.start_mark
        return (mark.line + 1 + self.line_shift, mark.column + 1 + self.col_shift)

    def source_for(self, path) -> "Document":
        """The document the value at path was written in: this one (a rendered object's comes from its patch or
        its base file: rendering/kustomized.py)."""
        return self

    def where(self, path, *, key: bool = False) -> tuple[str, int, int]:
        """File, line and column of the value at path (or of its key): what a finding names."""
        source = self.source_for(path)
        return (source.file, *source.position(path, key=key))

    def at(self, path) -> "Document | None":
        """The mapping or list at path as a document of its own (a HelmRelease's values), positions unchanged."""
        data, node = self.data, self.node
        for part in tuple(path):
            if isinstance(data, dict) and part in data or isinstance(data, list) and isinstance(part, int) \
                    and 0 <= part < len(data):
                data = data[part]
            else:
                return None
            child = _child(node, part) if node is not None else None
            node = child[1] if child else None
        return Document(self.file, data, self.index, node, self.text, self.line_shift, self.col_shift, self.flat,
                        role=self.role)

    def written(self, path) -> str | None:
        """The scalar at path as the file spells it (1.30, not the float 1.3), or None."""
        node = self.node
        for part in tuple(path):
            child = _child(node, part)
            if child is None:
                return None
            node = child[1]
        return node.value if isinstance(node, ScalarNode) else None


def _child(node, part):
    """(key node or item node, value node) one step down, following merge keys; None when absent."""
    if isinstance(node, SequenceNode):
        if isinstance(part, int) and 0 <= part < len(node.value):
            item = node.value[part]
            return item, item
        return None
    if not isinstance(node, MappingNode):
        return None
    merged = []
    for k, v in node.value:
        if isinstance(k, ScalarNode) and k.style in ("", None) and k.value == "<<":
            merged += v.value if isinstance(v, SequenceNode) else [v]
        elif isinstance(k, ScalarNode) and _key_value(k) == part:
            return k, v
    for source in merged:
        found = _child(source, part)
        if found is not None:
            return found
    return None


_STR = f"{TAG}str"


def _tag(node: ScalarNode, text: str | None) -> str:
    """A plain scalar without a tag of its own is resolved as YAML 1.1 says (PyYAML's own table); quoted scalars
    and explicit tags are as written."""
    tag = node.tag
    if tag != _STR or node.style:
        return tag
    value = node.value
    resolvers = _IMPLICIT.get(value[:1] if value else "")
    if not resolvers:
        return tag  # most scalars: no implicit type starts with this character
    if text is not None and text[node.start_mark.index:node.start_mark.index + 1] == "!":
        return tag  # an explicit !!str
    for resolved, pattern in resolvers:
        if pattern.match(value):
            return resolved
    return tag


def _key_value(node, text: str | None = None):
    if not isinstance(node, ScalarNode):
        return f"<{node.id} key>"
    try:
        value = _scalar(node, text)
    except _Stop:
        return node.value
    return value if isinstance(value, (str, int, bool)) else node.value


def _scalar(node: ScalarNode, text: str | None = None):
    tag = _tag(node, text)
    if tag in (_STR, f"{TAG}value", f"{TAG}merge", f"{TAG}timestamp"):
        return node.value  # (a timestamp as written: JSON, and so the API server, sees a string)
    if tag == f"{TAG}null":
        return None
    if tag not in _SCALAR_TAGS:
        raise _Stop(node, "yaml-tag", f"unknown tag {tag!r}",
                    "remove the tag; Kubernetes manifests and GPU configs use plain YAML values")
    kind = tag[len(TAG):]
    try:
        value = _constructor.construct_object(yaml.ScalarNode(tag, node.value, node.start_mark, node.end_mark),
                                              deep=True)
    except Exception as exc:  # noqa: BLE001  (a constructor refusing the text is the finding)
        if kind == "int" and (digits := sum(map(str.isdigit, node.value))) > sys.get_int_max_str_digits():
            raise _Stop(node, "yaml-limit", f"a number of {digits} digits; gengpu reads numbers of up to "  # Python's
                        f"{sys.get_int_max_str_digits()}", "write a shorter number, or quote it if it is text") from exc
        article = "an" if kind[0] in "aeiou" else "a"
        raise _Stop(node, "yaml-tag", f"'{node.value}' is not a valid !!{kind} value",
                    f"remove the !!{kind} tag or write {article} {kind} value") from exc
    finally:
        _constructor.constructed_objects.clear()
    if kind == "binary":
        raise _Stop(node, "yaml-tag", "binary values (!!binary) are not supported here",
                    "write the value as a string (a ConfigMap's binaryData takes base64 text)")
    return value


class _Builder:
    """Nodes to plain Python data, counting every value so aliases cannot multiply a document without bound."""

    def __init__(self, root, text: str):
        self.root, self.text = root, text
        self.budget = MIN_NODE_BUDGET  # raised to ALIAS_GROWTH times the written nodes when a document is that big
        self.grown = False
        self.count = 0
        self.duplicates: list[tuple] = []  # (first key node, repeated key node, key)
        self.built: set[int] = set()
        self.alias = None  # the outermost node being expanded a second time: where a bomb is reported

    def build(self, node, depth: int = 0):
        self.count += 1
        if self.count > self.budget and not self.grown:
            self.grown = True
            self.budget = max(self.budget, ALIAS_GROWTH * _composed_nodes(self.root))
        if self.count > self.budget:
            raise _Stop(self.alias or node, "yaml-limit", f"the document expands to more than {self.budget} values "
                        "through aliases (an alias bomb?)", "write the values out instead of nesting aliases of aliases")
        outermost = self.alias is None and id(node) in self.built
        if outermost:
            self.alias = node
        self.built.add(id(node))
        try:
            return self._build(node, depth)
        finally:
            if outermost:
                self.alias = None

    def _build(self, node, depth: int):
        if depth > MAX_DEPTH:
            raise _Stop(node, *_DEEP)
        if isinstance(node, ScalarNode):
            return _scalar(node, self.text)
        if isinstance(node, SequenceNode):
            if node.tag != f"{TAG}seq":
                raise _Stop(node, "yaml-tag", f"a list cannot carry the tag {node.tag!r}", "remove the tag")
            return [self.build(item, depth + 1) for item in node.value]
        if node.tag != f"{TAG}map":
            raise _Stop(node, "yaml-tag", f"a mapping cannot carry the tag {node.tag!r}", "remove the tag")
        out, seen = {}, {}
        merged = []
        for k, v in node.value:
            if isinstance(k, ScalarNode) and _tag(k, self.text) == f"{TAG}merge":
                sources = v.value if isinstance(v, SequenceNode) else [v]
                if not all(isinstance(s, MappingNode) for s in sources):
                    raise _Stop(v, "yaml-merge", "a merge key (<<) needs a mapping or a list of mappings",
                                "merge an &anchor of a mapping, or remove the << key")
                merged += sources
                continue
            if not isinstance(k, ScalarNode):
                raise _Stop(k, "yaml-syntax", "a key must be a plain value, not a list or mapping",
                            "write the key as a string")
            key = _key_value(k, self.text)
            same = (type(key), key)  # True == 1 in Python; in YAML they are two keys
            if same in seen:
                self.duplicates.append((seen[same], k, key))
            seen[same] = k
            out[key] = self.build(v, depth + 1)
        for source in merged:  # explicit keys win, then earlier merge sources
            for key, value in self.build(source, depth).items():
                out.setdefault(key, value)
        return out


def _mark_finding(file: str, mark, rule: str, message: str, fix: str) -> Finding:
    line, col = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
    return Finding(file, line, col, "error", rule, message, fix)


def _syntax_finding(file: str, exc: yaml.YAMLError) -> Finding:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    problem = getattr(exc, "problem", None) or str(exc)
    context = getattr(exc, "context", None)
    message = f"{context}: {problem}" if context else str(problem)
    if "maximum nesting depth" in message:
        return _mark_finding(file, mark, "yaml-limit", "values nest too deep for a YAML parser",
                             "flatten the structure; no Kubernetes object or GPU config nests this deep")
    return _mark_finding(file, mark, "yaml-syntax", f"invalid YAML: {message.strip()}",
                         "fix the YAML syntax at this position")


def _composed_nodes(root) -> int:
    """Distinct nodes written in the document (aliases count once)."""
    seen, stack = set(), [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, SequenceNode):
            stack.extend(node.value)
        elif isinstance(node, MappingNode):
            for k, v in node.value:
                stack.extend((k, v))
    return len(seen)


def load_documents(text: str, file: str, loader_class=None) -> tuple[list[Document], list[Finding]]:
    """All documents of a YAML stream, or the finding that stopped it."""
    docs: list[Document] = []
    loader = (loader_class or _Loader)(text)
    try:
        while loader.check_node():
            node = loader.get_node()
            if node is None:
                continue
            builder = _Builder(node, text)
            try:
                data = builder.build(node)
            except _Stop as stop:
                return docs, [_mark_finding(file, stop.mark, stop.rule, stop.message, stop.fix)]
            if builder.duplicates:
                first, again, key = builder.duplicates[0]
                return docs, [_mark_finding(
                    file, again.start_mark, "yaml-duplicate-key",
                    f"duplicate key '{key}' (the first one is on line {first.start_mark.line + 1})",
                    "remove one of the two keys; YAML parsers disagree on which one wins")]
            docs.append(Document(file=file, data=data, index=len(docs), node=node, text=text))
    except yaml.YAMLError as exc:
        if loader_class is None and "found duplicate anchor" in str(exc):
            loader.dispose()
            return load_documents(text, file, _RedefiningLoader)
        return docs, [_syntax_finding(file, exc)]
    except RecursionError:  # (the pure-Python composer of _RedefiningLoader recurses per level; libyaml does not)
        return docs, [_mark_finding(file, None, *_DEEP)]
    finally:
        loader.dispose()
    return docs, []


_BOMS = ((codecs.BOM_UTF32_LE, "utf-32-le"), (codecs.BOM_UTF32_BE, "utf-32-be"), (codecs.BOM_UTF8, "utf-8"),
         (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))


def decode(raw: bytes, file: str, limit: int | None = None) -> tuple[str | None, list[Finding]]:
    """Text of a YAML file: UTF-8, or UTF-16/32 with a byte-order mark, as YAML allows (limit: its largest size,
    the reading module's MAX_BYTES unless the caller reads a kind of file allowed more)."""
    if len(raw) > (reading.max_bytes() if limit is None else limit):
        return None, [too_large(file, len(raw), limit)]
    encoding, body = "utf-8", raw
    for bom, name in _BOMS:
        if raw.startswith(bom):
            encoding, body = name, raw[len(bom):]
            break
    try:
        return body.decode(encoding), []
    except UnicodeDecodeError as exc:
        before = body[:exc.start]
        line = before.count(b"\n") + 1
        column = len(before) - (before.rfind(b"\n") + 1) + 1
        return None, [Finding(file, line, column, "error", "file-unreadable",
                              f"byte 0x{body[exc.start]:02x} is not {encoding.upper()} text",
                              "save the file as UTF-8")]


def load_bytes(raw: bytes, display: str, limit: int | None = None) -> tuple[list[Document], list[Finding]]:
    text, findings = decode(raw, display, limit)
    if text is None:
        return [], findings
    if display.endswith(".csv"):  # no YAML: dcgm-exporter's counters file, or nothing gengpu reads
        from gengpu.loading import counters

        return ([counters.document(display, text)] if counters.looks_like(text) else []), []
    return load_documents(text, display)


def load_file(path: Path, display: str | None = None) -> tuple[list[Document], list[Finding]]:
    display = display or str(path)
    raw, findings = read_bytes(path, display)
    return load_bytes(raw, display) if raw is not None else ([], findings)
