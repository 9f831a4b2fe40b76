"""What other documents carry, recognised as subjects of their own: the values of NVIDIA's charts in a values file,
a HelmRelease (spec.values), an Argo CD Application (helm.values, helm.valuesObject) or a ConfigMap a HelmRelease
reads them from; and the PromQL of PrometheusRules, rule files and Grafana dashboards that reads DCGM's metrics."""

from __future__ import annotations

import re

from gengpu import versions
from gengpu.checking import targets as T
from gengpu.checking.podspecs import dig
from gengpu.checking.subjects import Subject, _embedded, component_of, suppressions
from gengpu.findings import Finding
from gengpu.loading import Document, load_embedded


# Where the charts keep configs as strings (chart values.yaml, documented keys).
_VALUES_CONFIGS = {
    "gpu-operator": (("devicePlugin", "config", "data"), "device-plugin", ("migManager", "config", "data"), "mig-parted"),
    "nvidia-device-plugin": (("config", "map"), "device-plugin"),
    "nvidia-dra-driver-gpu": (),  # claims carry their configs, not the values
    "dra-driver-nvidia-gpu": (),  # the same driver's chart at its new home (kubernetes-sigs, 0.x)
    "dcgm-exporter": (),  # no vendored values: recognised, keys not checked
    "vllm-stack": (),  # vLLM production-stack (helm/ in vllm-project/production-stack): engine rules read it
}


def known_chart(chart: str | None) -> bool:
    """Whether gengpu judges values of this chart (NVIDIA's, and the vLLM production-stack's)."""
    return chart in _VALUES_CONFIGS


def values(doc: Document, chart: str, why: str, label: str | None = None,
            version: str | None = None) -> tuple[list[Subject], list[Finding]]:
    label = label or f"{chart} values"
    pinned = versions.release(version, chart) if version else None
    subjects = [Subject(T.HELM_VALUES, doc, doc.data, label, why=why, chart=chart,
                        chart_version=pinned.version if pinned else None,
                        chart_pin=pinned.shown(version) if pinned else None)]
    findings = []
    spec = _VALUES_CONFIGS[chart]
    for path, what in zip(spec[::2], spec[1::2]):
        held = dig(doc.data, *path)
        if not isinstance(held, dict):
            continue
        for key, value in held.items():
            if isinstance(value, str):
                found, errors = _embedded(doc, path + (key,), f"{label} {'.'.join(path)}.{key}", label, what, {})
                subjects += found
                findings += errors
    return subjects, findings


def release(doc: Document, data: dict, label: str) -> tuple[list[Subject], list[Finding]]:
    """The values of NVIDIA's charts that a Flux HelmRelease (spec.values) or an Argo CD Application (each source's
    helm.values string and helm.valuesObject) holds: values subjects with positions in the wrapper's file, checked
    at the chart version it pins."""
    places = []  # (chart, version, path of the values, whether a YAML string)
    if data.get("kind") == "HelmRelease":
        chart = dig(data, "spec", "chart", "spec")  # (or spec.chartRef: an OCIRepository, chart unnamed)
        chart = chart if isinstance(chart, dict) else {}
        places.append((chart.get("chart"), chart.get("version"), ("spec", "values"), False))
    else:
        spec = data.get("spec") if isinstance(data.get("spec"), dict) else {}
        several = spec.get("sources") if isinstance(spec.get("sources"), list) else []
        sources = [(("spec", "source"), spec.get("source"))] + [(("spec", "sources", i), s) for i, s in enumerate(several)]
        for path, source in sources:
            if isinstance(source, dict) and source.get("chart"):
                places += [(source.get("chart"), source.get("targetRevision"), path + ("helm", "values"), True),
                           (source.get("chart"), source.get("targetRevision"), path + ("helm", "valuesObject"), False)]
    subjects, findings = [], []
    for chart, version, path, embedded in places:
        if chart not in _VALUES_CONFIGS:
            running = images(dig(data, *path)) if isinstance(dig(data, *path), dict) else []
            if running:  # a generic chart (app-template) running part of the stack
                subjects.append(Subject(T.GPU_STACK, doc, data, label, suppressed=suppressions(data),
                                        why=f"{label} runs {', '.join(running)} (by image, in "
                                            f"{'.'.join(map(str, path))})"))
            continue
        if dig(data, *path) is None:
            if not any(s.chart == chart for s in subjects):  # values from elsewhere (valuesFrom, valueFiles)
                # recognised as part of the GPU stack; values rules need the values, which are not here
                pinned = versions.release(version, chart) if version else None
                subjects.append(Subject(T.GPU_STACK, doc, data, label, chart=chart, suppressed=suppressions(data),
                                        chart_version=pinned.version if pinned else None,
                                        chart_pin=pinned.shown(str(version)) if pinned else None,
                                        why=f"{label} installs the {chart} chart{f' {version}' if version else ''} "
                                            "(no values of its own)"))
            continue
        if embedded:
            if not isinstance(dig(data, *path), str):
                continue
            inner, errors = load_embedded(doc, path)
            findings += errors
            held = inner[0] if len(inner) == 1 and isinstance(inner[0].data, dict) else None
        else:
            held = doc.at(path)
        if held is None or not isinstance(held.data, dict):
            continue
        why = f"{label} installs the {chart} chart{f' {version}' if version else ''} with values at {'.'.join(map(str, path))}"
        subjects = [s for s in subjects if not (s.chart == chart and s.kind == T.GPU_STACK)]
        more, errors = values(held, chart, why, f"{label} {chart} values", str(version) if version else None)
        for subject in more:
            subject.outer = doc
            subject.suppressed = suppressions(data)
        subjects, findings = subjects + more, findings + errors
    return subjects, findings


_DCGM = re.compile(r"\bDCGM_(FI|EXP)_[A-Z0-9_]+")


def queries(doc: Document, data, label: str, why: str) -> list[Subject]:
    """A subject for the PromQL of a rule file, PrometheusRule, dashboard or KEDA ScaledObject, when some of it reads
    DCGM metrics."""
    found, stack = [], [((), data)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, dict):
            for k, v in node.items():
                # PromQL: a rule's expr, a panel target's expr, a KEDA prometheus trigger's metadata.query
                if (k == "expr" or (k == "query" and path[-1:] == ("metadata",))) and isinstance(v, str):
                    if _DCGM.search(v):
                        found.append((path + (k,), v))
                elif isinstance(v, (dict, list)) and len(path) < 16:
                    stack.append((path + (k,), v))
        elif isinstance(node, list) and len(path) < 16:
            stack += [(path + (i,), v) for i, v in enumerate(node)]
    if not found:
        return []
    return [Subject(T.QUERIES, doc, data if isinstance(data, dict) else {}, label, why=f"{why}: "
                    f"{len(found)} quer{'y' if len(found) == 1 else 'ies'} of DCGM metrics",
                    queries=sorted(found, key=lambda q: q[0]),
                    suppressed=suppressions(data) if isinstance(data, dict) else {})]


def images(values) -> list[str]:
    """The parts of NVIDIA's GPU stack whose images a chart's values name (an app-template release of dcgm-exporter)."""
    out, stack = [], [(0, values)]
    while stack:
        depth, node = stack.pop()
        if isinstance(node, dict):
            stack += [(depth + 1, v) for v in node.values()] if depth < 12 else []
        elif isinstance(node, list):
            stack += [(depth + 1, v) for v in node] if depth < 12 else []
        elif isinstance(node, str):
            # values name an image's repository and tag apart: `repository: .../dcgm-exporter` is one too
            found = component_of(node + ":")
            if found and found not in out:
                out.append(found)
    return out
