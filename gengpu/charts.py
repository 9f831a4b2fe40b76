"""The keys of NVIDIA's Helm charts, read from their values.yaml at the versions in gengpu/data/charts.

Helm ignores a key the chart does not read, without a word: `devicePlugins:` or `mig.stratgy` change nothing.
The charts document many options only as comments (`# config:` under devicePlugin in gpu-operator v26.7.0),
so the index is built from the file's lines, commented key lines included, by indentation. Below an empty map,
a list, a block scalar or a Kubernetes structure (resources, tolerations, env ...) any key is the user's.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from gengpu.schemas_dir import data_path

import yaml

from gengpu import catalog

# Values that hold Kubernetes structures or free maps, whatever the chart's default shows.
FREE = {"resources", "securityContext", "podSecurityContext", "containerSecurityContext", "affinity", "tolerations",
        "nodeSelector", "labels", "annotations", "podAnnotations", "podLabels", "env", "args", "volumes",
        "volumeMounts", "imagePullSecrets", "updateStrategy", "rollingUpdate", "readinessProbe", "livenessProbe",
        "startupProbe", "data", "map", "node-feature-discovery", "nfd", "serviceMonitor", "additionalLabels",
        "relabelings", "metricRelabelings", "extraEnv", "initContainers", "sidecars"}
_KEY = re.compile(r"^(\s*)(['\"]?)([A-Za-z_][A-Za-z0-9_./-]*)\2:(\s|$)(.*)$")


@dataclass
class Chart:
    """One chart version's keys: path -> known child keys; paths below which anything goes."""

    version: str
    children: dict = field(default_factory=dict)
    free: set = field(default_factory=set)


def _index(version: str, text: str) -> Chart:
    chart = Chart(version, {(): set()})
    stack: list[tuple[int, tuple]] = [(-1, ())]
    block = None  # indentation of a key whose value is a block scalar: deeper lines are its text
    for raw in text.splitlines():
        line = raw.rstrip()
        stripped = line.lstrip()
        if not stripped:
            continue
        indent = len(line) - len(stripped)
        if stripped.startswith("#"):
            body = stripped[1:]
            body = body[1:] if body.startswith(" ") else body  # '# key:' is written with one space
            m = _KEY.match(body)
            if not m:
                continue
            indent += len(m.group(1))
        elif stripped.startswith("-"):
            if block is None or indent <= block:
                chart.free.add(stack[-1][1])  # a list: its items are the user's
            continue
        else:
            m = _KEY.match(line)
            if not m:
                continue
        if block is not None and indent > block:
            continue
        block = None
        key, rest = m.group(3), m.group(5).split(" #")[0].strip()
        while stack[-1][0] >= indent:
            stack.pop()
        parent = stack[-1][1]
        path = parent + (key,)
        chart.children.setdefault(parent, set()).add(key)
        chart.children.setdefault(path, set())
        if rest[:1] in ("|", ">"):
            block = indent
            chart.free.add(path)
        elif rest in ("{}", "[]"):
            chart.free.add(path)
        elif rest == "":
            stack.append((indent, path))
    return chart


@functools.cache
def _vendored(name: str) -> list[tuple[str, str]]:
    """(tag, file) of every vendored version of a chart, oldest first."""
    sources = yaml.load((data_path() / "charts" / "SOURCES.yaml").read_text(encoding="utf-8"),
                        Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))["files"]
    found = [(e["tag"], e["file"]) for e in sources if e["file"].startswith(f"{name}-v")]
    return sorted(found, key=lambda tv: catalog.version_tuple(tv[0]))


@functools.cache
def _chart(tag: str, file: str) -> Chart:
    return _index(tag, (data_path() / "charts" / file).read_text(encoding="utf-8"))


def versions(name: str) -> list[Chart]:
    """Every vendored version of a chart, oldest first."""
    return [_chart(tag, file) for tag, file in _vendored(name)]


@dataclass(frozen=True)
class KeyProblem:
    path: tuple
    unknown: bool  # in no version (else: only in older ones)
    message: str


def check_keys(name: str, data: dict, version: str | None = None) -> list[KeyProblem]:
    """Keys of a values file that no version of the chart has (unknown), and keys the chart at the version in use does
    not have though others do: the newest version's, or the one a HelmRelease or Argo CD Application pins (the
    nearest gengpu has, not newer). A key gone from values.yaml may still be read by a template, so only a key no
    version has is unknown."""
    charts = versions(name)
    if not charts:
        return []
    pinned = for_version(name, version) if version and re.fullmatch(r"v?\d+\.\d+(\.\d+)?", version) else None
    used = pinned or charts[-1]
    span = f"{charts[0].version} to {charts[-1].version}"
    problems: list[KeyProblem] = []
    stack = [((), data)]
    while stack:
        path, node = stack.pop()
        if not isinstance(node, dict):
            continue
        if (path and path[-1] in FREE) or any(path in c.free for c in charts):
            continue
        known = set().union(*(c.children.get(path, set()) for c in charts))
        if path and not known:
            continue  # below a key the chart leaves open
        for key, value in node.items():
            sub = path + (str(key),)
            if str(key) not in known:
                close = _close(str(key), sorted(known))
                where = ".".join(sub)
                problems.append(KeyProblem(sub, True, f"{where} is not a key of the {name} chart ({span}); Helm "
                                                      "ignores it" + (f" - did you mean {close}?" if close else "")))
                continue
            at = used.children.get(path, set())
            if at and str(key) not in at:
                having = [c.version for c in charts if str(key) in c.children.get(path, set())]
                newer = catalog.version_tuple(having[0]) > catalog.version_tuple(used.version)
                which = f"the pinned {version}" if pinned is not None else used.version
                problems.append(KeyProblem(sub, False, (
                    f"{'.'.join(sub)} is a key of the {name} chart from {having[0]} on, not of {which}; that chart "
                    "ignores it" if newer else
                    f"{'.'.join(sub)} is a key of the {name} chart up to {having[-1]}, not of {which}; "
                    + ("that chart ignores it" if pinned is not None else "newer charts ignore it"))))
            stack.append((sub, value))
    return sorted(problems, key=lambda p: p.path)


def _close(key: str, known: list[str]) -> str | None:
    import difflib

    lower = {k.lower(): k for k in known}
    match = difflib.get_close_matches(key.lower(), list(lower), n=1, cutoff=0.75)
    return lower[match[0]] if match else None


def for_version(name: str, version: str) -> Chart | None:
    """The vendored chart of that version, or of the newest vendored version before it."""
    older = [(tag, file) for tag, file in _vendored(name)
             if catalog.version_tuple(tag) <= catalog.version_tuple(version)]
    return _chart(*older[-1]) if older else None  # only that version is read: a build compiles with one


def only_known(chart: Chart, values: dict, path: tuple = ()) -> dict:
    """values without the keys this chart version does not have (Helm would ignore them)."""
    out = {}
    for key, value in values.items():
        sub = path + (str(key),)
        if str(key) not in chart.children.get(path, set()):
            continue
        if isinstance(value, dict) and str(key) not in FREE and sub not in chart.free and chart.children.get(sub):
            value = only_known(chart, value, sub)
        out[key] = value
    return out


@functools.cache
def _parsed(tag: str, file: str) -> dict:
    return yaml.safe_load((data_path() / "charts" / file).read_text(encoding="utf-8")) or {}


def defaults(name: str, version: str | None = None) -> dict:
    """The chart's own values.yaml at that version (or the newest vendored one before it; the newest without a
    version), parsed; {} for a chart gengpu does not vendor."""
    found = [(tag, file) for tag, file in _vendored(name)
             if version is None or catalog.version_tuple(tag) <= catalog.version_tuple(version)]
    return _parsed(*found[-1]) if found else {}


def coalesce(values, chart_defaults):
    """Values as Helm sees them over the chart's defaults: maps merge key by key, null deletes a default, anything
    else replaces it."""
    if not isinstance(values, dict) or not isinstance(chart_defaults, dict):
        return chart_defaults if values is None else values
    out = dict(chart_defaults)
    for key, value in values.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = coalesce(value, chart_defaults.get(key)) if isinstance(value, dict) else value
    return out
