"""What `kubectl describe` prints, read back into objects: a pod (its containers' states, restarts and images, its
Events), events pasted alone (the Events part of a describe), and the custom resources whose fields the GPU stack's
checks read (a ComputeDomain's status, a DeviceTaintRule), each remembering its line. live/tables.py reads the
`kubectl get` tables beside them.
"""

from __future__ import annotations

import re

from gengpu.live.pasted import COMMAND, TextDoc, number
from gengpu.live.tables import _row, asked_namespace, event, times


def _spans(starts: list[int], end: int) -> list[tuple[int, int]]:
    """Each described object's lines: from its start to the next one's (the last one's to the end)."""
    return list(zip(starts, [*starts[1:], end]))


def looks_like_describe_pod(text: str) -> bool:
    """`kubectl describe pod`: its name and namespace, or (a paste cut above them) the DaemonSet or ReplicaSet that
    controls it, with its containers."""
    lines = text.splitlines()
    containers = any(line.startswith(("Containers:", "Init Containers:")) for line in lines)
    named = any(line.startswith("Name:") for line in lines) and any(line.startswith("Namespace:") for line in lines)
    owned = any(re.match(r"^Controlled By:\s+(DaemonSet|ReplicaSet|Job|StatefulSet)/", line) for line in lines)
    return containers and (named or owned)


_TOP = re.compile(r"^([A-Z][A-Za-z -]*?):(?:\s+(.*))?$")
# an event as `kubectl describe` prints it: Type, Reason, Age ("2m (x14 over 6m)"), From, Message, two spaces apart
DESCRIBED_EVENT = re.compile(r"^\s*(Warning|Normal)\s{2,}\S+\s{2,}\S")
_DESCRIBED_HEADER = re.compile(r"^\s*(Events:\s*(<none>)?|Type\s+Reason\s+Age\s+From\s+Message|[-\s]+)\s*$")
_ASSIGNED = re.compile(r"^Successfully assigned ([a-z0-9][-a-z0-9]*)/([a-z0-9][-a-z0-9.]*) to (\S+)")
# where the kubelet's message names the pod: "... in pod NAME_NAMESPACE(UID)"
_IN_POD = re.compile(r"\bin pod ([a-z0-9][-a-z0-9.]*)_([a-z0-9][-a-z0-9]*)\(")


def event_lines(lines: list[str], used: list[bool], objects: list[dict], doc: TextDoc) -> None:
    """Events as describe prints them, outside a described pod (a paste of the Events part alone): the object they
    are about only where the message names it."""
    blocks: list[list[int]] = []
    for i, line in enumerate(lines):
        if used[i]:
            continue
        if _DESCRIBED_HEADER.match(line) and line.strip() and any(
                DESCRIBED_EVENT.match(later) for later in lines[i + 1:i + 4]):
            used[i] = True
            continue
        if not DESCRIBED_EVENT.match(line):
            continue
        cells = [c for c in re.split(r"\s{2,}", line.strip()) if c]
        if len(cells) < 5:
            continue
        type_, reason, age, _source, message = cells[0], cells[1], cells[2], cells[3], "  ".join(cells[4:])
        pod = _IN_POD.search(message)
        if i == 0 or not used[i - 1] or not blocks:
            blocks.append([])  # a new run of event lines: one object's Events, where describe printed them
        blocks[-1].append(len(objects))
        doc.places[("items", len(objects))] = (i + 1, 1)
        objects.append(event(pod.group(2) if pod else "", "Pod" if pod else "", pod.group(1) if pod else "", type_,
                             reason, message, times(age)))
        used[i] = True
    # a run whose events name one pod (the scheduler's "Successfully assigned NS/NAME to NODE", the kubelet's "in pod
    # NAME_NS(uid)") is that pod's: its other events are about it too
    for run in blocks:
        named = {(objects[k]["involvedObject"].get("namespace", ""), objects[k]["involvedObject"]["name"])
                 for k in run if objects[k]["involvedObject"]["name"]}
        named |= {(m.group(1), m.group(2)) for k in run for m in [_ASSIGNED.match(objects[k]["message"])] if m}
        if len(named) == 1:
            ns, name = named.pop()
            for k in run:
                objects[k]["metadata"] = {"namespace": ns}
                objects[k]["involvedObject"] = {"kind": "Pod", "name": name, "namespace": ns}


def pods(lines: list[str], used: list[bool], objects: list[dict], doc: TextDoc) -> None:
    """`kubectl describe pod`: name, namespace, node, status, each container's state, last state, restarts and
    image, and the Events table (kept as the pod's events)."""
    starts = [i for i, line in enumerate(lines) if line.startswith("Name:") and not used[i]]
    if not starts:  # cut above its name
        starts = [next(i for i, line in enumerate(lines) if line.strip())]
    for start, end in _spans(starts, len(lines)):
        block = lines[start:end]
        if not any(line.startswith(("Containers:", "Init Containers:")) for line in block):
            continue
        top: dict[str, str] = {}
        groups: dict[str, list[dict]] = {"initContainers": [], "containers": []}
        statuses: dict[str, list[dict]] = {"initContainerStatuses": [], "containerStatuses": []}
        section = ""
        current: dict | None = None
        state_key = amounts = ""
        shown: set[int] = set()  # the containers describe printed a status for (a pod not yet scheduled has none)
        for k, line in enumerate(block):
            used[start + k] = True
            m = _TOP.match(line)
            if m:
                key, value = m.group(1), (m.group(2) or "").strip()
                section = key
                current = None
                if key not in top:
                    top[key] = value
                continue
            if section in ("Containers", "Init Containers"):
                group = "containers" if section == "Containers" else "initContainers"
                entry = re.match(r"^  (\S[^:]*):\s*$", line)
                if entry:
                    groups[group].append({"name": entry.group(1)})
                    current = {"name": entry.group(1), "ready": False, "restartCount": 0, "state": {}}
                    amounts = ""
                    statuses["containerStatuses" if group == "containers" else "initContainerStatuses"].append(current)
                    continue
                field = re.match(r"^    (\S[^:]*):\s*(.*)$", line)
                sub = re.match(r"^      (\S[^:]*):\s*(.*)$", line)
                if current is None:
                    continue
                if field:
                    name, value = field.group(1), field.group(2).strip()
                    if name in ("State", "Last State", "Ready", "Restart Count"):
                        shown.add(id(current))
                    # a container's Limits and Requests, one resource a line below them (a pending pod's GPUs)
                    amounts = name.lower() if name in ("Limits", "Requests") and not value else ""
                    if name == "State":
                        state_key = "state"
                        current["state"] = {value.lower(): {}} if value else {}
                    elif name == "Last State":
                        state_key = "lastState"
                        current["lastState"] = {value.lower(): {}} if value else {}
                    elif name == "Ready":
                        current["ready"] = value == "True"
                        state_key = ""
                    elif name == "Restart Count" and (restarts := number(value)) is not None:
                        current["restartCount"] = restarts
                        state_key = ""
                    elif name == "Image":
                        groups[group][-1]["image"] = value
                        state_key = ""
                    else:
                        state_key = state_key if name in ("Reason", "Message", "Exit Code") else ""
                elif sub and amounts:
                    resources = groups[group][-1].setdefault("resources", {})
                    resources.setdefault(amounts, {})[sub.group(1)] = sub.group(2).strip()
                elif sub and state_key and current.get(state_key):
                    name, value = sub.group(1), sub.group(2).strip()
                    detail = next(iter(current[state_key].values()))
                    if name == "Reason":
                        detail["reason"] = value
                    elif name == "Message":
                        detail["message"] = value
                    elif name == "Exit Code" and number(value.removeprefix("-"), 2 ** 32) is not None:
                        detail["exitCode"] = int(value)
                    elif name == "Signal" and number(value, 2 ** 32) is not None:
                        detail["signal"] = int(value)
        events = _events(block, start)
        name, namespace = top.get("Name", "") or "(pasted pod)", top.get("Namespace", "")
        node = top.get("Node", "").split("/")[0]
        meta: dict = {"name": name, **({"namespace": namespace} if namespace else {})}
        owner = re.match(r"^(\w+)/(\S+)$", top.get("Controlled By", ""))
        if owner:
            meta["ownerReferences"] = [{"kind": owner.group(1), "name": owner.group(2)}]
        if top.get("Status", "").startswith("Terminating"):
            meta["deletionTimestamp"] = "(pasted: Terminating)"
        obj = {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
               "spec": {**{k: v for k, v in groups.items() if v},
                        **({"nodeName": node} if node and node != "<none>" else {})},
               "status": {"phase": top.get("Status", "").split()[0] if top.get("Status") else "Pending",
                          **({"reason": top["Reason"]} if top.get("Reason") else {}),
                          **{k: kept for k, v in statuses.items()
                             for kept in [[s for s in v if id(s) in shown]] if kept}}}
        doc.places[("items", len(objects))] = (start + 1, 1)
        objects.append(obj)
        for line_no, row, count in events:
            doc.places[("items", len(objects))] = (line_no + 1, 1)
            objects.append(event(namespace, "Pod", name, row["Type"], row.get("Reason", ""), row.get("Message", ""),
                                 count))



def _events(block: list[str], start: int) -> list[tuple[int, dict, int]]:
    """The Events table of a described object (block: its lines, from line index `start`): each row's line index,
    its cells by the header's columns, and the count its Age gives ("2m (x14 over 6m)"), 0 where none."""
    out: list[tuple[int, dict, int]] = []
    header, inside = "", False
    for k, line in enumerate(block):
        top = _TOP.match(line)
        if top:
            inside = top.group(1) == "Events"
            continue
        cells = [c for c in re.split(r"\s{2,}", line.strip()) if c]
        if not inside or not cells or set("".join(cells)) <= set("- "):
            continue
        if not header:
            header = line
            continue
        row = _row(header, line)
        if row and row.get("Type") in ("Warning", "Normal"):
            out.append((start + k, row, times(row.get("Age", ""))))
    return out


# `kubectl describe daemonset`: its counts, one a line, as kubectl's describer words them
_DS_COUNTS = {"Desired Number of Nodes Scheduled": "desiredNumberScheduled",
              "Current Number of Nodes Scheduled": "currentNumberScheduled",
              "Number of Nodes Scheduled with Up-to-date Pods": "updatedNumberScheduled",
              "Number of Nodes Scheduled with Available Pods": "numberAvailable",
              "Number of Nodes Misscheduled": "numberMisscheduled"}


def looks_like_describe_daemonset(text: str) -> bool:
    return bool(re.search(r"^Desired Number of Nodes Scheduled:\s*\d+\s*$", text, re.M))


def daemonsets(lines: list[str], used: list[bool], objects: list[dict], doc: TextDoc) -> None:
    """`kubectl describe daemonset`: name, namespace, node selector, its counts, its pod template's containers and
    images (what tells NVIDIA's stack under a name a team chose), and its Events. It prints no READY: the count of
    ready pods is left out, not taken as none."""
    starts = [i for i, line in enumerate(lines) if line.startswith("Name:") and not used[i]]
    for start, end in _spans(starts, len(lines)):
        block = lines[start:end]
        if not any(line.startswith("Desired Number of Nodes Scheduled:") for line in block):
            continue
        top: dict[str, str] = {}
        groups: dict[str, list[dict]] = {"initContainers": [], "containers": []}
        group = ""
        for k, line in enumerate(block):
            used[start + k] = True
            m = _TOP.match(line)
            if m:
                top.setdefault(m.group(1), (m.group(2) or "").strip())
                group = ""
                continue
            # the template's containers: "  Containers:", each "   name:", its "    Image:" below
            heading = re.match(r"^  (Init Containers|Containers):\s*$", line)
            entry = re.match(r"^   (\S[^:]*):\s*$", line)
            image = re.match(r"^    Image:\s*(\S+)", line)
            if heading:
                group = "initContainers" if heading.group(1) == "Init Containers" else "containers"
            elif re.match(r"^  \S", line):
                group = ""
            elif group and entry:
                groups[group].append({"name": entry.group(1)})
            elif group and image and groups[group]:
                groups[group][-1]["image"] = image.group(1)
        # (kubectl printed no Namespace line for a DaemonSet before kubernetes/kubernetes#130846, 2025: the -n of the
        # describe command it is printed under)
        command = next((lines[k] for k in range(start - 1, -1, -1) if COMMAND.match(lines[k])), "")
        name = top.get("Name", "")
        namespace = top.get("Namespace", "") or (asked_namespace(command) if " describe " in command else "")
        selector = {}
        for pair in ("" if top.get("Node-Selector") == "<none>" else top.get("Node-Selector", "")).split(","):
            key, sep, value = pair.partition("=")
            if sep:
                selector[key.strip()] = value.strip()
        status = {field: count for words, field in _DS_COUNTS.items()
                  for count in [number(top.get(words, ""))] if count is not None}
        template = {**{k: v for k, v in groups.items() if v}, **({"nodeSelector": selector} if selector else {})}
        doc.places[("items", len(objects))] = (start + 1, 1)
        objects.append({"apiVersion": "apps/v1", "kind": "DaemonSet",
                        "metadata": {"name": name, **({"namespace": namespace} if namespace else {})},
                        "spec": {"template": {"spec": template}} if template else {}, "status": status})
        for line_no, row, count in _events(block, start):
            doc.places[("items", len(objects))] = (line_no + 1, 1)
            objects.append(event(namespace, "DaemonSet", name, row["Type"], row.get("Reason", ""),
                                 row.get("Message", ""), count))


_KEY = re.compile(r"^(\s*)([A-Z][A-Za-z0-9 ./-]*?):(?:\s+(.*?))?\s*$")
# the field names kubectl's describe turns into words ("Clique Id") and back, where lower-casing the first word
# would not give the field
_FIELDS = {"Clique Id": "cliqueID", "Clique ID": "cliqueID", "Ip Address": "ipAddress", "IP Address": "ipAddress"}


# the fields of these kinds the API gives as integers, and those it gives as lists (which kubectl prints as the
# fields of their one entry, where there is one)
_INTEGERS = ("index", "numNodes", "observedGeneration")
_LISTS = ("nodes", "conditions")


def _field(words: str) -> str:
    return _FIELDS.get(words) or words[:1].lower() + words[1:].replace(" ", "")


def described(lines: list[str], start: int, end: int, places: dict, at: tuple) -> dict:
    """`kubectl describe` of a custom resource back into its fields: `Key:  value` lines nested by indent. kubectl
    prints a list of mappings as their fields one after another, so an item begins where a key repeats."""
    entries = [(len(m.group(1)), m.group(2), m.group(3) or "", i) for i in range(start, end)
               for m in [_KEY.match(lines[i])] if m]

    def block(n: int, indent: int, path: tuple) -> tuple[object, int]:
        out: dict = {}
        items: list[dict] = []
        while n < len(entries) and entries[n][0] > indent:
            inner, key, value, line = entries[n]
            name = _field(key)
            if name in out and not items:
                items.append(out)
                _first_item(places, path)  # (the fields read so far were the first item's)
            if items and name in items[-1]:
                items.append({})
            target = items[-1] if items else out
            here = path + ((len(items) - 1,) if items else ()) + (name,)
            places[here] = (line + 1, inner + 1)
            if value or n + 1 >= len(entries) or entries[n + 1][0] <= inner:
                count = number(value) if name in _INTEGERS else None
                target[name] = value if count is None else count
                n += 1
            else:
                target[name], n = block(n + 1, inner, here)
        return (items if items else out), n

    result, _ = block(0, -1, at)
    return result if isinstance(result, dict) else {}


def _first_item(places: dict, path: tuple) -> None:
    """The places under `path`, read as one mapping, moved under index 0: the mapping is a list's first item."""
    for place in [p for p in places if len(p) > len(path) and p[:len(path)] == path]:
        places[path + (0,) + place[len(path):]] = places.pop(place)


def custom_resource(text: str, shown: str) -> tuple[list[dict], TextDoc]:
    """Each ComputeDomain or DeviceTaintRule of `kubectl describe` text (or a part of it; several one after another,
    each from its Name: line), told by fields only that kind has: a Status with Nodes whose entries carry a Clique Id
    (ComputeDomain); a Spec with a Device Selector and a Taint (DeviceTaintRule)."""
    doc = TextDoc(shown)
    lines = text.splitlines()
    # (what comes before the first name is the first object's: a command line, a paste cut above it)
    starts = [0] + [i for i, line in enumerate(lines) if line.startswith("Name:")][1:]
    objects: list[dict] = []
    for start, end in _spans(starts, len(lines)):
        at, places = ("items", len(objects)), {}
        fields = described(lines, start, end, places, at)
        obj = _custom(fields, places, at)
        if obj is not None:
            doc.places.update(places)
            doc.places.setdefault(at, (start + 1, 1))
            objects.append(obj)
    return objects, doc


def _custom(fields: dict, places: dict, at: tuple) -> dict | None:
    status, spec = fields.get("status"), fields.get("spec")
    name = str(fields.get("name") or "")
    meta = {"name": name, **({"namespace": fields["namespace"]} if fields.get("namespace") else {})}
    if isinstance(status, dict):
        status = dict(status)
        for key in [k for k, v in status.items() if k in _LISTS and isinstance(v, dict)]:
            status[key] = [status[key]]  # (a list of one mapping, printed as that mapping's fields)
            _first_item(places, at + ("status", key))
    nodes = status.get("nodes") if isinstance(status, dict) else None
    if isinstance(nodes, list) and any(isinstance(n, dict) and "cliqueID" in n for n in nodes):
        meta["name"] = name or "(pasted ComputeDomain)"
        obj = {"apiVersion": "resource.nvidia.com/v1beta1", "kind": "ComputeDomain", "metadata": meta,
               "status": {**status, "nodes": nodes}}
        if isinstance(spec, dict):
            obj["spec"] = spec
        return obj
    if isinstance(spec, dict) and isinstance(spec.get("taint"), dict) and "deviceSelector" in spec:
        meta["name"] = name or "(pasted DeviceTaintRule)"
        return {"apiVersion": "resource.k8s.io/v1alpha3", "kind": "DeviceTaintRule", "metadata": meta, "spec": spec,
                **({"status": status} if isinstance(status, dict) else {})}
    return None


def looks_like_custom_resource(text: str) -> bool:
    return bool(re.search(r"^\s+Clique I[Dd]:", text, re.M) and re.search(r"^\s*Nodes:\s*$", text, re.M)) or \
        bool(re.search(r"^\s+Device Selector:\s*$", text, re.M) and re.search(r"^\s+Taint:\s*$", text, re.M))
