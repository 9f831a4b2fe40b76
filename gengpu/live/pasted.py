"""Node states as people paste them: `kubectl describe node` text and `kubectl get nodes --show-labels` tables,
read into the Node objects `kubectl get -o yaml` would have printed for the same fields.

Issue threads and support tickets show a GPU node far more often as `kubectl describe node` than as YAML, so
`gengpu check --snapshot` takes that text as it is pasted: prompt lines, several nodes one after another, a paste
cut short. Only what describe prints is kept (name, labels, taints, conditions, capacity, allocatable); annotations
are never kept (they may carry secrets). Each field remembers its line, so findings point into the pasted text.
"""

from __future__ import annotations

import datetime
import email.utils
import re
import sys
from dataclasses import dataclass, field

# A shell's command line in a paste, the one definition every reader uses: a prompt (`$ `, `% `, `> `, root's `# `,
# `user@host:~$ `, `[user@host dir]$ ` as bash prints it on RHEL), or kubectl (oc, its `k` alias) typed without one
PROMPT = r"(?:[$%>#]\s|\S+@\S+[$#%]\s|\[[^\]\n]*@[^\]\n]*\][$#%]\s)"
COMMAND = re.compile(rf"^\s*(?:{PROMPT}|(?:kubectl|oc|k)\s)")

# describe prints "Key:" at column 0, its value aligned after it; continuation lines of a multi-value key are
# indented to that column (Labels, Annotations, Taints), and sections (Capacity, Conditions ...) are indented by two.
_TOP = re.compile(r"^([A-Z][A-Za-z -]*?):(?:\s+(.*))?$")
# (indented as kubectl prints them; a grep or a docs page may have lost the indent)
_SECTION_ENTRY = re.compile(r"^\s*([^\s:][^:]*?):\s*(\S.*)?$")
_COLUMNS = re.compile(r"\s{2,}")
_ELISION = re.compile(r"^\s*(\.{2,}|…|\[(\.{3}|…)\])\s*$")
# (kubectl before 1.8 printed NAME STATUS AGE LABELS: no ROLES, no VERSION)
_SHOW_LABELS = re.compile(r"^NAME\s+STATUS(\s+\S+)*\s+LABELS\s*$")


@dataclass
class TextDoc:
    """Positions of the fields of objects read from text: (object index, path...) -> (line, column)."""

    file: str
    places: dict = field(default_factory=dict)

    def position(self, path, *, key: bool = False) -> tuple[int, int]:
        path = tuple(path)
        while path:
            if path in self.places:
                return self.places[path]
            path = path[:-1]
        return (1, 1)


_DESCRIBE_KEYS = ("Labels:", "Capacity:", "Allocatable:", "Conditions:", "Taints:", "Roles:", "Annotations:")


def looks_like_describe(text: str) -> bool:
    """Whether the text is `kubectl describe node` output: a `Name:` line followed by describe's own keys, or (a
    paste cut above its name) one of those keys at the start of a line with its indented entries below."""
    lines = text.splitlines()
    if any(re.match(r"^Kind:\s+(?!Node\s*$)\S", line) or line.startswith("Namespace:") for line in lines):
        return False  # describe of another kind: a Kind line (custom resources) or a namespace (a node has none)
    names = [i for i, line in enumerate(lines) if line.startswith("Name:")]
    if names:
        return any(line.startswith(_DESCRIBE_KEYS) for line in lines[names[0]:names[0] + 400])
    return any(line.startswith(_DESCRIBE_KEYS) and i + 1 < len(lines) and lines[i + 1][:1] in (" ", "\t")
               for i, line in enumerate(lines))


def looks_like_show_labels(text: str) -> bool:
    first = next((line for line in text.splitlines() if line.strip() and not _PROMPT.search(line)), "")
    return bool(_SHOW_LABELS.match(first.strip()))


def read_describe(text: str, shown: str) -> tuple[list[dict], TextDoc]:
    """Every node of a describe paste, in order, as a v1 Node; the TextDoc has each field's line under
    ("items", i, ...), as a List's objects would."""
    doc = TextDoc(shown)
    nodes: list[dict] = []
    lines = text.splitlines()
    named = any(line.startswith("Name:") for line in lines)
    if not named:  # cut above its name: one node, named as pasted
        lines = ["Name:  (pasted node)"] + lines
    i = 0
    while i < len(lines):
        if not lines[i].startswith("Name:"):
            i += 1
            continue
        end = i + 1
        while end < len(lines) and not lines[end].startswith("Name:"):
            end += 1
        nodes.append(_node(lines, i, end, len(nodes), doc))
        i = end
    if not named:  # lines were counted with the name line put in front
        doc.places = {k: (max(1, line - 1), col) for k, (line, col) in doc.places.items()}
    return nodes, doc


def _node(lines: list[str], start: int, end: int, index: int, doc: TextDoc) -> dict:
    at = ("items", index)
    meta: dict = {"name": lines[start].partition(":")[2].strip()}
    node: dict = {"apiVersion": "v1", "kind": "Node", "metadata": meta}
    doc.places[at] = doc.places[at + ("metadata", "name")] = (start + 1, 1)
    status: dict = {}
    elided: set[str] = set()
    key = None
    i = start + 1
    while i < end:
        line = lines[i]
        top = _TOP.match(line)
        if top:
            key, value = top.group(1), (top.group(2) or "").rstrip()
            if key == "Labels":
                meta["labels"] = {}
                _label(meta["labels"], value, doc, at, (i + 1, top.start(2) + 1))
            elif key == "Taints":
                node.setdefault("spec", {})["taints"] = []
                _taint(node["spec"]["taints"], value, doc, at, (i + 1, top.start(2) + 1))
            elif key == "Unschedulable" and value == "true":
                node.setdefault("spec", {})["unschedulable"] = True
            elif key in ("Capacity", "Allocatable"):
                status[key.lower()] = {}
                doc.places[at + ("status", key.lower())] = (i + 1, 1)
            elif key == "Conditions":
                status["conditions"] = []
                doc.places[at + ("status", "conditions")] = (i + 1, 1)
                i = _conditions(lines, i + 1, end, status["conditions"], doc, at)
                key = None
                continue
            elif key == "CreationTimestamp" and (created := _rfc3339(value)):
                meta["creationTimestamp"] = created
            elif key == "ProviderID" and value:
                node.setdefault("spec", {})["providerID"] = value
                doc.places[at + ("spec", "providerID")] = (i + 1, 1)
            i += 1
            continue
        if key is None or not line.strip():
            i += 1
            continue
        if _ELISION.match(line) and key in ("Capacity", "Allocatable"):
            elided.add(key.lower())
            i += 1
            continue
        if key == "Labels" and line[0] in " \t":
            _label(meta["labels"], line.strip(), doc, at, _at(line, i))
        elif key == "Taints" and line[0] in " \t":
            _taint(node["spec"]["taints"], line.strip(), doc, at, _at(line, i))
        elif key == "System Info" and line.strip().startswith("Kubelet Version:"):
            status.setdefault("nodeInfo", {})["kubeletVersion"] = line.partition(":")[2].strip()
            doc.places[at + ("status", "nodeInfo", "kubeletVersion")] = (i + 1, 1)
        elif key in ("Capacity", "Allocatable"):
            entry = _SECTION_ENTRY.match(line)
            if entry and entry.group(2) is not None:
                name = entry.group(1).strip()
                # a quantity is one word: what follows is the paster's note ("7   <=== here")
                status[key.lower()][name] = entry.group(2).split()[0]
                doc.places[at + ("status", key.lower(), name)] = _at(line, i)
        i += 1
    for section in ("capacity", "allocatable"):
        # a section the paster cut ("...") and that shows no NVIDIA resource says nothing about the GPUs: left out,
        # so its absent GPUs are not judged missing
        if section in elided and not any(k.startswith("nvidia.com/") for k in status.get(section, {})):
            status.pop(section, None)
    if status:
        node["status"] = status
    return node


def number(text: str, most: int = 10 ** 12) -> int | None:
    """A count as kubectl prints it (decimal digits), or None for text that is none, or past `most`: a paste's figure
    no cluster prints, which must neither stop the reading (Python converts at most 4,300 digits) nor size a list."""
    return int(text) if text.isdecimal() and len(text) <= len(str(most)) and int(text) <= most else None


def _rfc3339(text: str) -> str | None:
    """describe's time (RFC 1123 with a zone offset, "Thu, 17 Mar 2022 10:11:37 +0100") as the API gives it
    (RFC 3339 in UTC); None for text that is no such time."""
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        return None
    return when.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _at(line: str, i: int) -> tuple[int, int]:
    """Where the text of line i (0-based) starts: its 1-based line and column."""
    return i + 1, len(line) - len(line.lstrip()) + 1


def _label(labels: dict, text: str, doc: TextDoc, at: tuple, where: tuple[int, int]) -> None:
    """name=value at `where` (its line and column); describe's "<none>" is no pair."""
    name, sep, value = text.partition("=")
    if sep and name:
        labels[name] = value
        doc.places[at + ("metadata", "labels", name)] = where


def _taint(taints: list, text: str, doc: TextDoc, at: tuple, where: tuple[int, int]) -> None:
    """key=value:Effect or key:Effect, as describe prints a taint, at `where` (its line and column)."""
    if not text or text == "<none>":
        return
    head, _, effect = text.rpartition(":")
    key, sep, value = head.partition("=")
    taint = {"key": key, "effect": effect}
    if sep:
        taint["value"] = value
    doc.places[at + ("spec", "taints", len(taints))] = where
    taints.append(taint)


def _conditions(lines: list[str], i: int, end: int, out: list, doc: TextDoc, at: tuple) -> int:
    """The Conditions table: a header (Type, Status, ...), a rule of dashes, then one row per condition; columns
    are separated by two or more spaces, as kubectl's tab writer pads them."""
    header: list[str] = []
    while i < end and (lines[i].startswith((" ", "\t")) or not lines[i].strip()):
        cells = [c for c in _COLUMNS.split(lines[i].strip()) if c]
        if not cells or set("".join(cells)) <= set("- "):
            i += 1
            continue
        if not header:
            header = cells
            i += 1
            continue
        row = dict(zip(header, cells))
        if "Type" in row and "Status" in row:
            condition = {"type": row["Type"], "status": row["Status"]}
            for name in ("Reason", "Message"):
                if row.get(name):
                    condition[name.lower()] = row[name]
            doc.places[at + ("status", "conditions", len(out))] = _at(lines[i], i)
            out.append(condition)
        i += 1
    return i


_LABEL_LINE = re.compile(r"^\s*((?:[a-z0-9]([-a-z0-9.]*[a-z0-9])?/)?[A-Za-z0-9][-A-Za-z0-9_.]*)=(\S*)\s*$")
# a line of a paste that is no data: a command line, a bare prompt or comment sign, an elision ("...", "[…]"), or a
# line that names kubectl or `oc get|describe` anywhere
_PROMPT = re.compile(rf"{COMMAND.pattern}|^\s*(\$|#|>|\.{{2,}}|…|\[(\.{{3}}|…)\]|[a-z]+@[^ ]+[$#])|kubectl |"
                     r"\boc (get|describe)\b")
_JQ_LINE = re.compile(r'^\s*"([^"]+)"\s*:\s*("(?:[^"\\]|\\.)*"|true|false|null|-?\d+(?:\.\d+)?)\s*,?\s*$')


def _jq_shaped(text: str) -> bool:
    lines = [line for line in text.splitlines() if line.strip() and line.strip() not in ("{", "}")]
    entries = [line for line in lines if _JQ_LINE.match(line)]
    return bool(entries) and not text.lstrip().startswith("{") and \
        all(_JQ_LINE.match(line) or _PROMPT.search(line) for line in lines)


def looks_like_jq_lines(text: str) -> bool:
    """Lines of a JSON object without its braces, as people copy them out of `jq .metadata.labels` output (each
    value JSON: a string with an escape JSON has not, or a raw control character, is not such a line)."""
    return _jq_shaped(text) and _jq_object(text) is not None


def jq_line_error(text: str) -> tuple[int, int, str] | None:
    """(line, column, JSON's reason) of the first value JSON refuses in lines shaped as jq's (an escape JSON has
    not, a raw tab: what a hand edit leaves), so the finding is at that value, not where YAML gives up."""
    import json

    if not _jq_shaped(text):
        return None
    for i, line in enumerate(text.splitlines()):
        m = _JQ_LINE.match(line)
        try:
            if m:
                json.loads(m.group(2))
        except json.JSONDecodeError as exc:
            return i + 1, m.start(2) + exc.pos + 1, f"{exc.msg.removesuffix(' at')} in the value of {m.group(1)!r}"
        except ValueError:  # Python's own bound on an integer's digits (sys.get_int_max_str_digits)
            return i + 1, m.start(2) + 1, (f"a number of {len(m.group(2).lstrip('-'))} digits, more than the "
                                           f"{sys.get_int_max_str_digits()} read, in the value of {m.group(1)!r}")
    return None


def read_jq_lines(text: str) -> dict:
    """The lines as the JSON object they were cut from."""
    return _jq_object(text) or {}


def _jq_object(text: str) -> dict | None:
    import json

    body = ",".join(f"{json.dumps(m.group(1))}: {m.group(2)}"
                    for m in (_JQ_LINE.match(line) for line in text.splitlines()) if m)
    try:
        return json.loads("{" + body + "}")
    except ValueError:
        return None


# `kubectl describe node | grep nvidia` also keeps Capacity's and Allocatable's lines ("  nvidia.com/gpu:  4", in that
# order) and the Allocated resources table's ("  nvidia.com/gpu  2  2", requests and limits)
_RESOURCE_LINE = re.compile(r"^\s+(nvidia\.com/[A-Za-z0-9][-A-Za-z0-9_.]*):\s+(\d+)\s*$")
_ALLOCATED_LINE = re.compile(r"^\s+nvidia\.com/[A-Za-z0-9][-A-Za-z0-9_.]*\s+\d+(\s+\(\d+%\))?\s+\d+(\s+\(\d+%\))?\s*$")


def looks_like_label_lines(text: str) -> bool:
    """Label lines as `kubectl describe node | grep nvidia` prints them: key=value, one per line (indented or
    not), with the command that made them, elisions, and the resource lines the grep kept around."""
    lines = [line for line in text.splitlines() if line.strip()]
    labels = [line for line in lines if _LABEL_LINE.match(line)]
    return bool(labels) and all(_LABEL_LINE.match(line) or _PROMPT.search(line) or _RESOURCE_LINE.match(line)
                                or _ALLOCATED_LINE.match(line) for line in lines)


def read_label_lines(text: str) -> dict:
    return {m.group(1): m.group(3) for m in map(_LABEL_LINE.match, text.splitlines()) if m}


def read_resource_lines(text: str) -> dict:
    """The status a grep of describe kept: a resource's first line is Capacity's, its second Allocatable's."""
    status: dict = {}
    for m in map(_RESOURCE_LINE.match, text.splitlines()):
        if m:
            section = "capacity" if m.group(1) not in status.get("capacity", {}) else "allocatable"
            if m.group(1) not in status.get(section, {}):
                status.setdefault(section, {})[m.group(1)] = m.group(2)
    return status


# `kubectl get nodes -o custom-columns=...` without its header, as NVIDIA's driver upgrade docs print the upgrade
# state: a node name and one of the states the upgrade controller writes (k8s-operator-libs upgrade/consts.go)
_UPGRADE_STATE = re.compile(r"^\s*([a-z0-9][-a-z0-9.]*)\s+(upgrade-required|cordon-required|wait-for-jobs-required|"
                            r"pod-deletion-required|drain-required|pod-restart-required|validation-required|"
                            r"uncordon-required|upgrade-done|upgrade-failed|node-maintenance-required|"
                            r"post-maintenance-required|wait-for-safe-load-required)\s*$")


# what a transcript shows between the states: kubectl's answer to a change ("clusterpolicy.nvidia.com/x patched"), a
# comment ("// Wait for upgrades to complete")
_TRANSCRIPT = re.compile(r"^\s*(\S+/\S+ (patched|labeled|annotated|configured|created|unchanged)|//.*|NAME\s+\S+)\s*$")


def looks_like_upgrade_states(text: str) -> bool:
    """Upgrade states alone, or in a transcript: the commands (a command continued over lines too) and what they
    answered besides."""
    lines = [line for line in text.splitlines() if line.strip()]
    continued = [i > 0 and lines[i - 1].rstrip().endswith("\\") for i in range(len(lines))]
    return bool(lines) and all(_UPGRADE_STATE.match(line) or _PROMPT.search(line) or _TRANSCRIPT.match(line) or
                               continued[i] for i, line in enumerate(lines)) and \
        any(_UPGRADE_STATE.match(line) for line in lines)


def read_upgrade_states(text: str, shown: str) -> tuple[list[dict], TextDoc]:
    """A node per name, in the order first shown, at the state its last line shows (a transcript that polls until
    the upgrade is done shows each node once a poll)."""
    doc = TextDoc(shown)
    last: dict[str, tuple[int, str]] = {}
    for i, line in enumerate(text.splitlines()):
        m = _UPGRADE_STATE.match(line)
        if m:
            last[m.group(1)] = (i, m.group(2))
    nodes = []
    for name, (i, state) in last.items():
        doc.places[("items", len(nodes))] = (i + 1, 1)
        nodes.append({"apiVersion": "v1", "kind": "Node", "metadata": {
            "name": name, "labels": {"nvidia.com/gpu-driver-upgrade-state": state}}})
    return nodes, doc


def read_show_labels(text: str, shown: str) -> tuple[list[dict], TextDoc]:
    """`kubectl get nodes --show-labels`: a node per row, its labels comma-separated in the last column."""
    doc = TextDoc(shown)
    nodes: list[dict] = []
    header = None
    for i, line in enumerate(text.splitlines()):
        if header is None:
            if _SHOW_LABELS.match(line.strip()):
                header = line
            continue
        cells = line.split()
        # a row of every column, or one whose empty cells (a VERSION no kubelet reported) left its LABELS under the
        # header's (kubectl's tab writer pads each column)
        if len(cells) < len(header.split()) and not (
                len(cells) >= 3 and len(line.rstrip()) - len(cells[-1]) == header.index("LABELS")):
            continue
        at = ("items", len(nodes))
        labels = {}
        for pair in cells[-1].split(","):
            name, sep, value = pair.partition("=")
            if sep and name:
                labels[name] = value
        ready = cells[1].split(",")[0]
        node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": cells[0], "labels": labels}}
        if ready in ("Ready", "NotReady"):
            node["status"] = {"conditions": [{"type": "Ready", "status": "True" if ready == "Ready" else "False"}]}
        if "SchedulingDisabled" in cells[1]:
            node["spec"] = {"unschedulable": True}
        doc.places[at] = (i + 1, 1)
        nodes.append(node)
    return nodes, doc
