"""`gengpu rightsize` reports: one recommendation per pool with its evidence, as text, markdown (a pull-request
comment) or JSON ({"recommendations": [{"profile", "pool", "current", "proposed", "monthlyDelta", "evidence"}]})."""

from __future__ import annotations

import json

from gengpu.planning import ESTIMATE
from gengpu.reporting.safe import shown

VERDICT = {"mig": "use MIG", "time-slicing": "time-slice", "mps": "share with MPS", "keep": "keep",
           "none": "no recommendation"}


def money(value: float | None) -> str:
    if value is None:
        return "unpriced"
    return f"-${-value:,.0f}" if value < 0 else f"+${value:,.0f}"


def _sharing(sharing: dict) -> str:
    if sharing.get("mode") == "mig":
        m = sharing.get("mig", {})
        layout = m.get("layout") or {}
        shown = ", ".join(f"{n} x {c}" for n, c in layout.items()) or m.get("preset", "")
        return f"MIG {m.get('strategy', '')} ({shown})"
    if sharing.get("replicas"):
        return f"{sharing['mode']}, {sharing['replicas']} replicas"
    return "whole GPUs" if sharing.get("mode") == "none" else sharing.get("mode", "")


def _limits(limits: dict) -> str:
    return ", ".join(f"{k} {v}" for k, v in limits.items()) or "none"


def _devices(rec) -> list[str]:
    lines = []
    for d in rec.evidence.get("devices", []):
        pods = ", ".join(d["pods"]) or "no pod"
        peak = "-" if d["memPeakMiB"] is None else f"{d['memPeakMiB'] / 1024:.1f} GiB"
        p95 = "-" if d["memP95MiB"] is None else f"{d['memP95MiB'] / 1024:.1f} GiB"
        mean = "-" if d["activityMean"] is None else f"{d['activityMean']:.0%}"
        act = "-" if d["activityP95"] is None else f"{d['activityP95']:.0%}"
        lines.append(f"{d['node']} GPU {d['gpu']}{' ' + d['mig'] if d.get('mig') else ''}: {pods}; memory peak "
                     f"{peak}, p95 {p95}; activity mean {mean}, p95 {act}")
    return lines


def _rests_on(rec) -> str:
    e = rec.evidence
    if not e:
        return ""
    return (f"{e['hours']} h of {e['window']} from {e['source']}, {e['gpus']} GPU(s) on {e['nodes']} node(s), "
            f"{e['pods']} pod(s); " + (f"activity from {e['activityMetric']}" if e["activityMetric"] else
                                       "no activity series (each GPU counted as busy)"))


def text(recommendations, queries: int = 0) -> str:
    out = []
    for rec in recommendations:
        out.append(f"{rec.profile}/{rec.pool}: {VERDICT[rec.verdict]}")
        out.append(f"  why: {rec.reason}")
        out.append(f"  now: {_sharing(rec.current['sharing'])}; limits {_limits(rec.current['limits'])}")
        if rec.proposed:
            out.append(f"  proposed: {_sharing(rec.proposed['sharing'])}; limits {_limits(rec.proposed['limits'])}; "
                       f"{rec.proposed['gpus']} GPU(s) for today's pods")
            e = rec.evidence
            price = "" if e.get("pricePerGpuHour") is None else \
                f" at ${e['pricePerGpuHour']:.2f}/GPU-hour {e['capacity']}, {e.get('basis', 'always on')}"
            out.append(f"  monthly: {money(rec.monthly_delta)}{price}")
        if rec.evidence:
            out.append(f"  evidence: {_rests_on(rec)}")
            out += [f"    {line}" for line in _devices(rec)]
            out += [f"  note: {n}" for n in rec.evidence.get("notes", [])]
        out.append("")
    total = sum(r.monthly_delta for r in recommendations if r.monthly_delta is not None)
    out.append(f"Total: {money(total)}/month if every proposal is applied (gengpu rightsize --write).")
    out.append(ESTIMATE)
    return "\n".join(shown(line) for line in out) + "\n"  # node and pod names come from Prometheus's labels


def _md(text: str) -> str:
    """Text from outside (node, pod and label values) in a pull-request comment: nothing in it links, mentions, forms
    HTML or table cells."""
    from gengpu.reporting import safe

    return safe.markdown(text)


def markdown(recommendations, queries: int = 0) -> str:
    out = ["## gengpu rightsize", "", "| pool | verdict | now | proposed | monthly |", "|---|---|---|---|---|"]
    for rec in recommendations:
        proposed = _sharing(rec.proposed["sharing"]) if rec.proposed else "-"
        out.append(f"| {_md(rec.profile)}/{_md(rec.pool)} | {VERDICT[rec.verdict]} | "
                   f"{_md(_sharing(rec.current['sharing']))} | {_md(proposed)} | "
                   f"{money(rec.monthly_delta) if rec.proposed else '-'} |")
    for rec in recommendations:
        out += ["", f"<details><summary>{_md(rec.profile)}/{_md(rec.pool)}: {_md(rec.reason)}</summary>", ""]
        if rec.evidence:
            out.append(f"Rests on {_md(_rests_on(rec))}.")
            out.append("")
            out += [f"- {_md(line)}" for line in _devices(rec)]
            out += [f"- note: {_md(n)}" for n in rec.evidence.get("notes", [])]
        out += ["", "</details>"]
    total = sum(r.monthly_delta for r in recommendations if r.monthly_delta is not None)
    out += ["", f"**Total: {money(total)}/month** if every proposal is applied (`gengpu rightsize --write`).", "",
            f"_{ESTIMATE}_"]
    return "\n".join(out) + "\n"


def as_json(recommendations, findings) -> str:
    from gengpu import reporting

    report = json.loads(reporting.as_json(findings))
    return json.dumps({"recommendations": [r.as_json() for r in recommendations], **report}, indent=2) + "\n"
