"""Advice weighed against the files of a run.

Some findings matter only through something else: a ServiceMonitor without honorLabels renames the exporter's pod
label, which breaks only a rule or dashboard that reads it; a DRA claim that asks for time-slicing fails only where
the driver runs without its feature gate, and the driver's install values may live in another repository. Such a
rule marks its hit with the fact it needs (Hit.needs); each file's check records the facts its documents show
(facts()); and once every file of the run is checked, weigh() keeps the rule's severity where the facts are there
and makes the finding information where they are not.
"""

from __future__ import annotations

import re
from dataclasses import replace

from gengpu.checking import targets as T
from gengpu.checking.podspecs import dig

WORKLOAD_LABELS = "dcgm-workload-labels"  # a rule or dashboard reads the pod, namespace or container of DCGM series
DRA_GATE_OFF = "dra-gate-off:"  # + gate: an install of NVIDIA's DRA driver in the files leaves that gate off
DRA_INSTALLED = "dra-installed"  # the files install NVIDIA's DRA driver (its values, whatever its gates)
OPERATOR_CONFIG = "operator-config:"  # + ConfigMap name: a ClusterPolicy or gpu-operator values name it for the plugin
RELEASE = "release:"  # + chart@version: the files install this release of a chart (a HelmRelease, an Application)
NEWER = "unless-newer:"  # + charts@release: moot where the files pin a release of one of the charts after it
EXPORTED = "dcgm-exported:"  # + field: a dcgm-exporter counters file in the files exports it
UNLESS_EXPORTED = "unless-exported:"  # + fields: moot where counters files of the run export every one of them
LIMITED = "runtime-limits:"  # + Kind/name:resource: a Trainer runtime of the files limits it on its node container
UNLESS_LIMITED = "unless-runtime-limits:"  # + Kind/name:resource: moot where that runtime is in the files and limits it
DRA_CHARTS = ("nvidia-dra-driver-gpu", "dra-driver-nvidia-gpu")
DRA_SHARING_GATES = ("TimeSlicingSettings", "MPSSupport")
_LABELS = re.compile(r"\b(exported_)?(pod|namespace|container)\b")

# What a finding says when its fact is missing: why it is only information here.
MISSING = {
    WORKLOAD_LABELS: "nothing in the files checked reads the exporter's pod, namespace or container labels",
    DRA_GATE_OFF: "the DRA driver's install values are not in the files checked",
    OPERATOR_CONFIG: "no ClusterPolicy or gpu-operator values in the files checked name this ConfigMap; a device "
    "plugin of your own reads it as written",
}


def facts(subjects) -> list[str]:
    """The facts a file's subjects show."""
    found = set()
    for s in subjects:
        if s.kind == T.QUERIES and any(_LABELS.search(expr) for _, expr in s.queries):
            found.add(WORKLOAD_LABELS)
        name = dig(s.data, "spec", "devicePlugin", "config", "name") if s.kind == T.CLUSTER_POLICY else \
            dig(s.data, "devicePlugin", "config", "name") if s.kind == T.HELM_VALUES and s.chart == "gpu-operator" \
            else None
        if isinstance(name, str):
            found.add(OPERATOR_CONFIG + name)
        if s.kind == T.OBJECT:
            found |= {RELEASE + f"{chart}@{version}" for chart, version in _releases(s.data)}
            from gengpu.checking.rules import _trainer

            if _trainer.is_runtime(s.data):
                name = f"{s.data['kind']}/{dig(s.data, 'metadata', 'name')}"
                found |= {LIMITED + f"{name}:{resource}" for resource in _trainer.node_limits(s.data)}
        if s.kind == T.DCGM_COUNTERS:
            from gengpu.checking.rules._counters import exported

            found |= {EXPORTED + name for name in exported(s)}
        if s.kind == T.HELM_VALUES and s.chart in DRA_CHARTS:
            gates = s.data.get("featureGates") if isinstance(s.data.get("featureGates"), dict) else {}
            # AllAlpha turns every alpha gate on, the sharing gates among them (component-base featuregate)
            every = gates.get("AllAlpha") is True
            found |= {DRA_GATE_OFF + g for g in DRA_SHARING_GATES if gates.get(g) is not True and not (
                every and gates.get(g) is not False)} | {DRA_INSTALLED}
    return sorted(found)


def _releases(data: dict) -> list[tuple[str, str]]:
    """(chart, version) a HelmRelease or an Argo CD Application installs."""
    if data.get("kind") == "HelmRelease":
        spec = dig(data, "spec", "chart", "spec")
        pairs = [(spec.get("chart"), spec.get("version"))] if isinstance(spec, dict) else []
    elif data.get("kind") == "Application":
        spec = data.get("spec") if isinstance(data.get("spec"), dict) else {}
        sources = [spec.get("source")] + (spec.get("sources") if isinstance(spec.get("sources"), list) else [])
        pairs = [(s.get("chart"), s.get("targetRevision")) for s in sources if isinstance(s, dict)]
    else:
        return []
    from gengpu import versions

    # a semver range pins the newest release gengpu knows that it admits (gengpu/versions.py)
    return [(str(c), versions.release(v, str(c)).version or str(v)) for c, v in pairs if c and v]


def _newer(needs: str, run_facts) -> str | None:
    """The release the files pin that is newer than the CRD gengpu has, for an unless-newer finding."""
    from gengpu import catalog

    charts, _, shipped = needs[len(NEWER):].partition("@")
    for fact in sorted(run_facts):
        if fact.startswith(RELEASE):
            chart, _, version = fact[len(RELEASE):].partition("@")
            if chart in charts.split(",") and re.fullmatch(r"v?\d+\.\d+\.\d+", version) and \
                    catalog.version_tuple(version) > catalog.version_tuple(shipped):
                return f"{chart} {version}"
    return None


def weigh(findings, run_facts) -> list:
    """Findings whose fact the run does not show, as information; a DRA gate the files' install turns on, gone; and
    fields gengpu's CRD lacks, where the files pin a newer release of it, said once per object as information."""
    out, said = [], set()
    for f in findings:
        if f.needs.startswith(NEWER):
            newer = _newer(f.needs, run_facts)
            if newer is None:
                out.append(f)
                continue
            what = f.message.split(" at /", 1)[0]
            if (f.file, what) not in said:  # one line for the object, whatever it holds that gengpu cannot check
                said.add((f.file, what))
                shipped, field = f.needs.rpartition("@")[2], f.message.rpartition("unknown field ")[2]
                out.append(replace(f, severity="info", message=f"{what}: fields gengpu's CRD (from {shipped}) does "
                                   f"not have, {field} first; these files install {newer}, whose CRD may have them: "
                                   "not checked", fix="Nothing to fix if that release has them; gengpu checks them "
                                   "once it ships its CRD."))
            continue
        if f.needs.startswith(UNLESS_LIMITED):
            if LIMITED + f.needs[len(UNLESS_LIMITED):] not in run_facts:
                out.append(f)  # (the runtime's node container limits it: Trainer merges the limit in)
            continue
        if f.needs.startswith(UNLESS_EXPORTED):
            if all(EXPORTED + name in run_facts for name in f.needs[len(UNLESS_EXPORTED):].split(",")):
                continue  # a counters file of the run exports them: the query finds its series
            out.append(f)
            continue
        if f.needs.startswith(DRA_GATE_OFF) and f.needs not in run_facts and DRA_INSTALLED in run_facts:
            continue  # the driver the files install has the gate on
        if f.needs and f.needs not in run_facts and f.severity != "info":
            missing = MISSING.get(f.needs) or MISSING.get(f.needs.split(":", 1)[0] + ":", "")
            # the message stays the rule's own (a baseline entry keeps matching it); the fix says why it is advice
            f = replace(f, severity="info", fix=f"Advice here: {missing}. {f.fix}" if missing else f.fix)
        out.append(f)
    return out
