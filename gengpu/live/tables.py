"""The GPU stack's workloads as people paste them: `kubectl get pods` (-n, -A, -o wide), `kubectl get events`,
`kubectl get ds` tables and `kubectl describe pod` text, read into the objects `kubectl get -o yaml` would have
printed for the same columns, each remembering its line.

A table's STATUS column is kubectl's summary of a pod's container states (live/stack.py computes it the same way
from a captured pod); a pasted row becomes a pod whose states give back that summary, so a row and a captured pod
are judged alike. Mixed pastes (a pods table, then `describe node`, then events) are read table by table: each table
runs from its header to the first line that is not one of its rows; what is left is read as before.
"""

from __future__ import annotations

import re

from gengpu.live.pasted import COMMAND, TextDoc, number

_PODS = re.compile(r"^(NAMESPACE\s+)?NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\b")
# (kubectl get events; -o wide puts SUBOBJECT and SOURCE before MESSAGE; kubectl events prints the same five)
_EVENTS = re.compile(r"^(NAMESPACE\s+)?LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+(?:SUBOBJECT\s+SOURCE\s+)?MESSAGE\b")
# (kubectl's columns since DaemonSets have rolling updates; v1.2 printed NODE-SELECTOR and no READY: kubernetes#30206)
_DAEMONSETS = re.compile(r"^(NAMESPACE\s+)?NAME\s+DESIRED\s+CURRENT\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+NODE SELECTOR\b")
_SLICES = re.compile(r"^NAME\s+NODE\s+DRIVER\s+POOL\s+AGE\b")
# (columns between NAME and STATE: RESOURCECLASSNAME and ALLOCATIONMODE, as kubectl printed v1alpha2 claims)
_CLAIMS = re.compile(r"^(NAMESPACE\s+)?NAME\s+(?:[A-Z][A-Z-]*\s+)*?STATE\s+AGE\b")
_HEADERS = {"pods": _PODS, "events": _EVENTS, "daemonsets": _DAEMONSETS, "resourceslices": _SLICES,
            "resourceclaims": _CLAIMS}
# the columns each kind's rows are read by: a header whose spaces collapsed ("NAME READY STATUS") names none of them
# apart, and is no table (its rows may still be read one by one, as pods rows without a header)
_COLUMNS = {"pods": {"NAME", "READY", "STATUS", "RESTARTS"},
            "events": {"LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"},
            "daemonsets": {"NAME", "DESIRED", "CURRENT", "READY", "UP-TO-DATE", "AVAILABLE", "NODE SELECTOR"},
            "resourceslices": {"NAME", "NODE", "DRIVER", "POOL"}, "resourceclaims": {"NAME", "STATE"}}
# a row of `kubectl get pods` whose header the paste lost (`kubectl get pods -A | grep nvidia`): [namespace] name
# ready status restarts age [ip node ...]
_POD_ROW = re.compile(r"^\s*(?:(?P<ns>[a-z0-9][-a-z0-9]*)\s+)?(?P<name>[a-z0-9][-a-z0-9.]*)\s+(?P<ready>\d+/\d+)\s+"
                      r"(?P<status>Init: ?\d+/\d+|\S+)\s+(?P<restarts>\d+(?: \([^)]*\))?)\s+"
                      r"(?P<age>\d+(?:\.\d+)?[smhdy][0-9smhdy]*)(?:\s+(?P<ip>\S+)\s+(?P<node>\S+)(?:\s+.*)?)?\s*$")
# the scheduler's message, pasted alone: "0/2 nodes are available: ..."
_SCHEDULER = re.compile(r"^\s*\d+/\d+ nodes are available: .*$")
# a header's columns: words separated by one space belong together ("LAST SEEN", "NODE SELECTOR")
_COLUMN = re.compile(r"\S+(?: \S+)*")
_NAMESPACE = re.compile(r"(?:\s-n\s*|\s--namespace[=\s]\s*)([a-z0-9][-a-z0-9]*)")
_PROMPT = COMMAND
# the kubelet's waiting reasons (a row showing one is a container waiting, not one that ended): pkg/kubelet images,
# kuberuntime and container errors, v1.34
_WAITING_REASONS = {"CrashLoopBackOff", "ImagePullBackOff", "ErrImagePull", "InvalidImageName", "ErrImageNeverPull",
                    "ImageInspectError", "CreateContainerConfigError", "CreateContainerError", "RunContainerError",
                    "ContainerCreating", "PodInitializing", "RegistryUnavailable", "SignatureValidationFailed",
                    "PreCreateHookError", "PreStartHookError", "PostStartHookError"}
# STATUS of a container that ended without a reason: its exit code or the signal that ended it
_ENDED = re.compile(r"^(ExitCode|Signal):(-?\d+)$")
_TERMINATED_REASONS = {"Completed", "Error", "OOMKilled", "ContainerCannotRun", "DeadlineExceeded", "StartError"}


def _table(line: str) -> tuple[str, str, str] | None:
    """(kind, header, the command before it) where the line is a table's header (no command: ""), or a command and a
    header pasted on one line (`k get resourceslice      NAME  NODE ...`: the newline lost, the header as kubectl
    aligned it after the command)."""
    kind = _kind(line.strip())
    if kind is not None:
        return kind, line, ""
    if _PROMPT.match(line):
        for m in re.finditer(r"\s(?=(NAMESPACE|NAME)\s)", line):
            rest = line[m.end():]
            kind = _kind(rest)
            if kind is not None:
                return kind, rest, line[:m.end()]
    return None


def _kind(head: str) -> str | None:
    return next((k for k, p in _HEADERS.items() if p.match(head) and _COLUMNS[k] <= set(_COLUMN.findall(head))), None)


def has_tables(text: str) -> bool:
    """Whether the text holds a pods, events or DaemonSets table, events as `kubectl describe` prints them,
    `kubectl describe pod` or `describe daemonset` output, or a ComputeDomain's described status."""
    from gengpu.live import described

    lines = text.splitlines()
    return any(_table(line) for line in lines) or \
        any(described.DESCRIBED_EVENT.match(line) or _POD_ROW.match(line) or _SCHEDULER.match(line)
            for line in lines) or described.looks_like_describe_pod(text) or described.looks_like_custom_resource(text) \
        or described.looks_like_describe_daemonset(text)


def read(text: str, shown: str) -> tuple[list[dict], TextDoc, str]:
    """Every object the tables and pod descriptions of the text show, the positions of their fields, and the text
    left over (table lines blanked, so what is left keeps its line numbers)."""
    doc = TextDoc(shown)
    objects: list[dict] = []
    lines = text.splitlines()
    used = [False] * len(lines)
    i = 0
    while i < len(lines):
        table = _table(lines[i])
        if table is None:
            i += 1
            continue
        kind, header, command = table
        used[i] = True
        # the namespace the command above the table (or before its header) asked for (`kubectl get pods -n
        # gpu-operator`), for rows that carry none
        above = command or next((lines[k] for k in range(i - 1, max(-1, i - 3), -1) if lines[k].strip()), "")
        asked = asked_namespace(above)
        end = i + 1
        while end < len(lines) and lines[end].strip() and not _PROMPT.match(lines[end]) and \
                not any(p.match(lines[end].strip()) for p in _HEADERS.values()):
            end += 1
        for j in range(i + 1, end):
            row = _row(header, lines[j])
            if row is not None and asked and not row.get("NAMESPACE"):
                row["NAMESPACE"] = asked
            obj = _ROWS[kind](row) if row else None
            if obj is not None:
                doc.places[("items", len(objects))] = (j + 1, 1)
                objects.append(obj)
            used[j] = True
        i = end
    from gengpu.live import described

    if described.looks_like_describe_pod(text):
        described.pods(lines, used, objects, doc)
    if described.looks_like_describe_daemonset(text):
        described.daemonsets(lines, used, objects, doc)
    for i, line in enumerate(lines):
        m = None if used[i] else _POD_ROW.match(line)
        if m:
            doc.places[("items", len(objects))] = (i + 1, 1)
            node = m.group("node") or ""
            objects.append(pod(m.group("name"), m.group("ns") or "", re.sub(r"^Init:\s+", "Init:", m.group("status")),
                               m.group("ready"), _restarts(m.group("restarts")),
                               "" if node in ("<none>", "") else node))
            used[i] = True
        elif not used[i] and _SCHEDULER.match(line):
            doc.places[("items", len(objects))] = (i + 1, 1)
            objects.append(event("", "", "", "Warning", "FailedScheduling", line.strip()))
            used[i] = True
    described.event_lines(lines, used, objects, doc)
    if described.looks_like_custom_resource(text):
        domains, where = described.custom_resource(text, shown)
        for n, obj in enumerate(domains):
            for key, place in where.places.items():
                if key[:2] == ("items", n):
                    doc.places[("items", len(objects)) + key[2:]] = place
            objects.append(obj)
    rest = "\n".join("" if u else line for u, line in zip(used, lines))
    return objects, doc, rest


def _row(header: str, line: str) -> dict[str, str] | None:
    """The row's cells by the header's column names: by the columns' positions when the row is aligned with the
    header (kubectl's tab writer pads every cell to its column), else by words (a paste whose spaces were collapsed),
    the last column taking the rest of the line."""
    indent = len(header) - len(header.lstrip())
    columns = [(m.start() + indent, m.group()) for m in _COLUMN.finditer(header.strip())]
    text = line.rstrip()
    if len(text.strip().split()) < 2:
        return None
    stops = [start for start, _ in columns[1:]] + [len(text)]
    # (every column but the last starts in the row at a word's start, or is blank to the next column: kubectl prints
    # an event's empty SUBOBJECT as nothing; the last may be empty. A row whose spaces were collapsed is shorter than
    # the header: its words are not under the columns, and it has no run of blanks as wide as a column)
    aligned = all((start >= len(text) and n == len(columns) - 1) or
                  (start < len(text) and text[start - 1] == " " and
                   (text[start] != " " or (n < len(columns) - 1 and not text[start:stop].strip())))
                  for n, ((start, _), stop) in enumerate(zip(columns, stops)) if n) and \
        (text[columns[0][0]:columns[0][0] + 1] or " ") != " "
    cells: dict[str, str] = {}
    if aligned:
        for (start, name), stop in zip(columns, stops):
            cells[name] = text[start:stop].strip()
        return cells
    words = _words(text.strip())
    names = [name for _, name in columns]
    if len(words) < len(names) - 1:
        return None
    for n, name in enumerate(names):
        cells[name] = " ".join(words[n:]) if n == len(names) - 1 else (words[n] if n < len(words) else "")
    return cells


_TIMES = re.compile(r"\(x(\d+) over ")
_COUNT_OR_AGE = re.compile(r"^(\d+|(\d+[smhdy])+)$")


def _words(text: str) -> list[str]:
    """Words, with a parenthesised part kept with the count or age before it (RESTARTS "7 (2m ago)", an event's
    LAST SEEN "2m (x14 over 6m)"); a message's "(combined from similar events)" is a word of its own."""
    out: list[str] = []
    for word in text.split():
        if out and (word.startswith("(") and _COUNT_OR_AGE.match(out[-1]) or
                    (out[-1].count("(") > out[-1].count(")")) or
                    (out[-1] == "Init:" and re.match(r"^\d+/\d+$", word))):
            out[-1] += " " + word
        else:
            out.append(word)
    return out


# the most containers a pasted row's READY or Init:N/M is read as (a pod's are counted in tens)
CONTAINERS = 1000


def _ended(code: re.Match) -> dict:
    """The terminated state STATUS ExitCode:N or Signal:N shows (a signal's exit code unknown: 1, a failure). Both are
    the API's int32, which kubectl prints signed: a Windows code past 2^31 shows as ExitCode:-1073741510. A figure
    outside int32, which no cluster prints, is read as 1."""
    magnitude = number(code.group(2).removeprefix("-"), 2 ** 31)  # (None past it)
    value = -magnitude if magnitude is not None and code.group(2).startswith("-") else magnitude
    value = value if value is not None and value < 2 ** 31 else 1
    return {"terminated": {"exitCode": value} if code.group(1) == "ExitCode" else {"exitCode": 1, "signal": value}}


def asked_namespace(line: str) -> str:
    """The namespace a pasted command line asks for (`kubectl get pods -n gpu-operator`), "" where none."""
    asked = _NAMESPACE.search(line) if _PROMPT.match(line) else None
    return asked.group(1) if asked else ""


def _restarts(cell: str) -> int:
    return number(cell.split(" ")[0]) or 0


def pod(name: str, namespace: str, shown: str, ready: str, restarts: int, node: str = "") -> dict:
    """A pod whose container states kubectl would print as STATUS shown, READY ready, RESTARTS restarts."""
    have, _, want = ready.partition("/")
    # (a pod of more containers than any pod runs is no row kubectl printed: read as one)
    total = number(want, CONTAINERS)
    total = 1 if total is None else total
    up = min(number(have) or 0, total)
    meta = {"name": name, **({"namespace": namespace} if namespace else {})}
    obj: dict = {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
                 "spec": {"containers": [{"name": ""} for _ in range(total)], **({"nodeName": node} if node else {})}}
    status: dict = {"phase": "Running"}
    running = [{"name": "", "ready": n < up, "restartCount": 0, "state": {"running": {}}} for n in range(total)]
    # while init containers run the others wait; a row that shows some ready anyway (READY 1/1, STATUS Init:0/1) is a
    # pod initialized once whose init containers run again: kubectl counts its ready containers only then
    waiting = [{"name": "", "ready": False, "restartCount": 0, "state": {"waiting": {"reason": "PodInitializing"}}}
               for _ in range(total)]
    initializing = {"containerStatuses": running, "conditions": [{"type": "Initialized", "status": "True"}]} \
        if up else {"containerStatuses": waiting}
    init = re.match(r"^Init:(\d+)/(\d+)$", shown)
    if init:
        inits = number(init.group(2), CONTAINERS) or 0
        done = min(number(init.group(1)) or 0, inits)
        obj["spec"]["initContainers"] = [{"name": ""} for _ in range(inits)]
        status = {"phase": "Pending", "initContainerStatuses": [
            # (an init container that exited 0 is ready: the kubelet's prober manager, UpdatePodStatus)
            {"name": "", "ready": n < done, "restartCount": restarts if n == done else 0,
             "state": {"terminated": {"exitCode": 0, "reason": "Completed"}} if n < done else
             {"waiting": {"reason": "PodInitializing"}}} for n in range(inits)],
            **initializing}
    elif shown.startswith("Init:"):
        reason = shown[5:]
        code = _ENDED.match(reason)
        state = _ended(code) if code else \
            {"waiting": {"reason": reason}} if reason in _WAITING_REASONS or reason not in _TERMINATED_REASONS else \
            {"terminated": {"exitCode": 1, "reason": reason}}
        obj["spec"]["initContainers"] = [{"name": ""}]
        status = {"phase": "Pending", "initContainerStatuses": [{"name": "", "ready": False, "restartCount": restarts,
                                                                 "state": state}],
                  **initializing}
    elif shown == "Running" or shown == "Terminating":
        status["conditions"] = [{"type": "Ready", "status": "True" if up == total else "False"}]
        status["containerStatuses"] = running
        if shown == "Terminating":
            meta["deletionTimestamp"] = "(pasted: Terminating)"
    elif shown == "Pending":
        status = {"phase": "Pending"}
    elif shown == "SchedulingGated":  # a pending pod its scheduling gates hold (printPod: the PodScheduled reason)
        status = {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False",
                                                      "reason": "SchedulingGated"}]}
    elif shown == "NotReady":
        # kubectl's word for a running pod one of whose containers completed, without a Ready condition (printPod)
        status["containerStatuses"] = running[:-1] + [
            {"name": "", "ready": False, "state": {"terminated": {"exitCode": 0, "reason": "Completed"}}}]
    elif shown in _WAITING_REASONS or shown in _TERMINATED_REASONS or _ENDED.match(shown):
        code = _ENDED.match(shown)
        state = _ended(code) if code else \
            {"terminated": {"exitCode": 0 if shown == "Completed" else 1, "reason": shown}} \
            if shown in _TERMINATED_REASONS else {"waiting": {"reason": shown}}
        if shown == "Completed":
            status["phase"] = "Succeeded"
        elif shown in ("ContainerCreating", "PodInitializing") and not restarts:
            status["phase"] = "Pending"
        status["containerStatuses"] = running[:-1] + [{"name": "", "ready": False, "state": state}]
    else:  # a reason of the pod's own (Evicted, NodeAffinity, UnexpectedAdmissionError, Unknown ...)
        status = {"phase": "Unknown" if shown == "Unknown" else "Failed", "reason": shown}
    if status.get("containerStatuses") and status["containerStatuses"] is not waiting:
        # (the row's restarts are a container's; containers waiting for the init containers never started)
        status["containerStatuses"][-1]["restartCount"] = restarts
    obj["status"] = status
    return obj


def _pod_row(row: dict) -> dict | None:
    """(every pods header has NAME, READY, STATUS and RESTARTS; NAMESPACE with -A, NODE with -o wide)"""
    name, shown = row["NAME"], row["STATUS"]
    if not name or not shown or not re.match(r"^\d+/\d+$", row["READY"]):
        return None
    name = name.removeprefix("pod/")
    shown = re.sub(r"^Init:\s+", "Init:", shown)  # "Init: 0/1", as a docs page printed it
    node = row.get("NODE", "")
    return pod(name, row.get("NAMESPACE", ""), shown, row["READY"], _restarts(row["RESTARTS"]),
               "" if node == "<none>" else node)


def _event_row(row: dict) -> dict | None:
    """(every events header has LAST SEEN, TYPE, REASON, OBJECT and MESSAGE; NAMESPACE with -A, COUNT with -o wide)"""
    kind_name = row["OBJECT"]
    if "/" not in kind_name or row["TYPE"] not in ("Warning", "Normal"):
        return None
    kind, _, name = kind_name.partition("/")
    # how many times it happened: `-o wide`'s COUNT, `kubectl events`' LAST SEEN; `kubectl get events` prints neither
    return event(row.get("NAMESPACE", ""), kind, name, row["TYPE"], row["REASON"], row["MESSAGE"],
                 number(row.get("COUNT", "")) or times(row["LAST SEEN"]))


def times(age: str) -> int:
    """How many times an event happened, as an age cell says it ("2m (x14 over 6m)"); 0 where it does not."""
    said = _TIMES.search(age)
    return (number(said.group(1)) or 0) if said else 0


_KINDS = {"pod": "Pod", "node": "Node", "daemonset": "DaemonSet", "deployment": "Deployment",
          "replicaset": "ReplicaSet", "computedomain": "ComputeDomain", "clusterpolicy": "ClusterPolicy",
          "nvidiadriver": "NVIDIADriver", "resourceclaim": "ResourceClaim", "job": "Job"}


def event(namespace: str, kind: str, name: str, type_: str, reason: str, message: str, count: int = 0) -> dict:
    kind = _KINDS.get(kind.lower().split(".")[0], kind)
    return {"apiVersion": "v1", "kind": "Event", "metadata": {"namespace": namespace} if namespace else {},
            "involvedObject": {"kind": kind, "name": name, **({"namespace": namespace} if namespace else {})},
            "type": type_, "reason": reason, "message": message, **({"count": count} if count else {})}


def _daemonset_row(row: dict) -> dict | None:
    """(every DaemonSets header has NAME, DESIRED, CURRENT, READY, UP-TO-DATE, AVAILABLE and NODE SELECTOR; -o wide
    adds CONTAINERS, IMAGES and SELECTOR)"""
    numbers = {k: number(row[k]) for k in ("DESIRED", "CURRENT", "READY", "UP-TO-DATE", "AVAILABLE")}
    if not row["NAME"] or None in numbers.values():
        return None
    status = {"desiredNumberScheduled": numbers["DESIRED"], "currentNumberScheduled": numbers["CURRENT"],
              "numberReady": numbers["READY"], "updatedNumberScheduled": numbers["UP-TO-DATE"],
              "numberAvailable": numbers["AVAILABLE"]}
    selector = {}
    for pair in row["NODE SELECTOR"].split(","):
        key, sep, value = pair.partition("=")
        if sep:
            selector[key] = value
    meta = {"name": row["NAME"].removeprefix("daemonset.apps/"),
            **({"namespace": row["NAMESPACE"]} if row.get("NAMESPACE") else {})}
    # -o wide's CONTAINERS and IMAGES, comma-separated in the same order: what tells a renamed operand by its image
    containers = [{"name": name, "image": image} for name, image in
                  zip(row.get("CONTAINERS", "").split(","), row.get("IMAGES", "").split(",")) if name and image]
    template = {**({"nodeSelector": selector} if selector else {}), **({"containers": containers} if containers else {})}
    return {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": meta,
            "spec": {"template": {"spec": template}} if template else {}, "status": status}


def _slice_row(row: dict) -> dict | None:
    """(the slices header is NAME, NODE, DRIVER, POOL, AGE; a slice of devices no one node holds has no NODE)"""
    if not row["NAME"] or not row["DRIVER"]:
        return None
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": row["NAME"]},
            "spec": {"driver": row["DRIVER"], **({"nodeName": row["NODE"]} if row["NODE"] else {}),
                     "pool": {"name": row["POOL"]}}}


def _claim_row(row: dict) -> dict | None:
    """A ResourceClaim as its STATE column shows it: allocated, reserved (in use), pending, deleted."""
    if not row["NAME"] or not row["STATE"]:  # (every claims header has both)
        return None
    states = set(row["STATE"].split(","))
    status: dict = {}
    if "allocated" in states:
        status["allocation"] = {"devices": {}}
    if "reserved" in states:
        status["reservedFor"] = [{"resource": "pods", "name": "(pasted)"}]
    meta = {"name": row["NAME"], **({"namespace": row["NAMESPACE"]} if row.get("NAMESPACE") else {})}
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": meta, "status": status}


_ROWS = {"pods": _pod_row, "events": _event_row, "daemonsets": _daemonset_row, "resourceslices": _slice_row,
         "resourceclaims": _claim_row}
