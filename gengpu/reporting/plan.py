"""`gengpu plan` and the spend lines of `gengpu diff`: the planning figures as text, Markdown or JSON."""

from __future__ import annotations

import json

from gengpu import planning
from gengpu.planning import PoolPlan


def _money(value: float) -> str:
    return f"${value:,.0f}" if value >= 100 else f"${value:,.2f}"


def _range(pair: tuple[float, float] | None) -> str:
    if pair is None:
        return "-"
    low, high = pair
    return _money(low) if abs(high - low) < 0.005 else f"{_money(low)}-{_money(high)}"


def _gpus(plan: PoolPlan) -> str:
    return f"{plan.gpus_min}-{plan.gpus_max}" if plan.gpus_max is not None else f"{plan.gpus_min}-unbounded"


def _unbounded(plan: PoolPlan) -> str:
    """Why a pool has no figure at its limit, and what bounds it instead."""
    if plan.platform == "gke-autopilot":
        return "no limit: Autopilot buys what the workloads request"
    if plan.provisioner == "managed":
        return "no limit here: set limits.nodes (the node pool's maximum)"
    return "unbounded: set limits.gpus or limits.nodes"


def _slices(plan: PoolPlan, caps: list[str]) -> str:
    """Price per slice-hour: one figure per capacity, or per slice kind where a GPU's slices are unlike (MIG)."""
    if plan.uniform:
        return "; ".join(f"{c} {_range(plan.per_slice_hour(c))}" for c in caps) + f" ({plan.slices_per_gpu}/GPU)"
    return "; ".join(f"{c} " + ", ".join(f"{sl.name} {_range(plan.per_slice_hour(c, sl))}" for sl in plan.slices)
                     for c in caps) + " (" + " + ".join(f"{sl.per_gpu} x {sl.name}" for sl in plan.slices) + "/GPU)"


def _pool_json(plan: PoolPlan) -> dict:
    def pair(p):
        return None if p is None else {"low": round(p[0], 4), "high": round(p[1], 4)}

    return {
        "cluster": plan.cluster, "pool": plan.pool, "platform": plan.platform, "region": plan.region,
        "gpu": plan.gpu, "capacityTypes": list(plan.capacity),
        "gpus": {"min": plan.gpus_min, "max": plan.gpus_max, "boundBy": plan.bound},
        "slicesPerGpu": plan.slices_per_gpu,
        "slices": [{"name": sl.name, "perGpu": sl.per_gpu, "shareOfGpu": round(sl.share, 4),
                    "perHour": {c: pair(plan.per_slice_hour(c, sl)) for c in ("on-demand", "spot")}}
                   for sl in plan.slices],
        "nodeShapes": [{"type": n.name, "gpus": n.gpus, "vcpus": n.vcpus, "onDemandPerHour": n.on_demand,
                        "spotPerHour": n.spot, "sources": list(n.sources)} for n in plan.nodes
                       if n.name not in plan.unpriced],
        "unpriced": plan.unpriced,
        **{key: {c: pair(f(c)) for c in ("on-demand", "spot")} for key, f in (
            ("perGpuHour", plan.per_gpu_hour), ("perSliceHour", plan.per_slice_hour),
            ("hourlyAtLimit", plan.hourly_at_limit), ("monthlyAtLimit", plan.monthly_at_limit))},
        "quota": {"unit": plan.quota_unit, "needed": plan.quota},
    }


def render(plans: list[PoolPlan], output: str) -> str:
    fleet = planning.fleet_quota(plans)
    total, partial = planning.max_monthly(plans)
    if output == "json":
        return json.dumps({
            "note": planning.ESTIMATE, "hoursPerMonth": planning.HOURS_PER_MONTH,
            "pools": [_pool_json(p) for p in plans],
            "fleet": {"maxMonthly": round(total, 2), "maxMonthlyIsFloor": partial, "maxGpus": planning.max_gpus(plans),
                      "quota": [{"cloud": c, "region": r, "quota": q, "needed": n,
                                 "documentedDefault": planning.quota_default(c, q)}
                                for (c, r, q), n in fleet.items()]},
            "sources": planning.sources_used(plans)}, indent=2) + "\n"
    md = output == "markdown"
    head = ["cluster", "pool", "GPU", "GPUs (min-limit)", "capacity", "per GPU-hour", "per slice-hour",
            "per month at the limit", "quota at the limit"]
    rows = []
    for p in plans:
        caps = [c for c in ("on-demand", "spot") if c in p.capacity]
        rows.append([
            p.cluster, p.pool, p.gpu, _gpus(p) + f" ({p.bound})" * (p.bound != "none"), ", ".join(caps),
            "; ".join(f"{c} {_range(p.per_gpu_hour(c))}" for c in caps),
            _slices(p, caps),
            "; ".join(f"{c} {_range(p.monthly_at_limit(c))}" for c in caps) if p.gpus_max is not None
            else _unbounded(p),
            "; ".join(f"{n:,} {p.quota_unit} {q}" for q, n in p.quota.items()) or "-",
        ])
    out: list[str] = []
    if md:
        out += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        out += ["| " + " | ".join(r) + " |" for r in rows]
    else:
        for r in rows:
            out += [f"{r[0]}/{r[1]}: {r[2]}, {r[3]} GPUs, {r[4]}", f"  per GPU-hour: {r[5]}",
                    f"  per slice-hour: {r[6]}", f"  per month at the limit: {r[7]}", f"  quota at the limit: {r[8]}"]
        for p in plans:
            if p.unpriced:
                out.append(f"  {p.cluster}/{p.pool}: no price for {', '.join(p.unpriced)} in {p.region}")
    out.append("")
    out.append(("**Fleet**: " if md else "Fleet: ") + f"up to {_money(total)}/month at the limits"
               + (" (at least: some pools are unbounded or unpriced)" if partial else "") + "; GPUs at the limits: "
               + (", ".join(f"{n} {g}" for g, n in planning.max_gpus(plans).items()) or "none"))
    if fleet:
        out.append("")
        out.append("Regional quota the limits need (summed over the fleet; request it before the pools grow):")
        for (cloud, region, quota), need in fleet.items():
            default = planning.quota_default(cloud, quota)
            note = f" (documented default {default})" if default is not None else ""
            out.append(f"{'- ' if md else '  '}{cloud} {region}: {quota}: {need:,}{note}")
    out += ["", ("_" + planning.ESTIMATE + "_") if md else planning.ESTIMATE]
    used = planning.sources_used(plans)
    if used:
        out.append(("Price sources: " if md else "Price sources:\n  ") + ("; " if md else "\n  ").join(
            f"{k}: {_source(v)}" for k, v in used.items()))
    return "\n".join(out) + "\n"


def _source(src: dict) -> str:
    if "module" in src:
        return f"{src['module']}@{src['version']} {src['file']}, generated {src['generated']}"
    return f"{src['repo']} {src['path']} at {src['commit'][:12]}, read {src['read']} (snapshot {src['snapshot']})"


def spend_delta(before: dict[str, list[PoolPlan]], after: dict[str, list[PoolPlan]]) -> dict[str, dict]:
    """cluster -> change in GPUs at the limits, maximum monthly spend and quota needed, where any changes."""
    out = {}
    for cluster in sorted(set(before) | set(after)):
        old, new = before.get(cluster, []), after.get(cluster, [])
        gpus_old, gpus_new = planning.max_gpus(old), planning.max_gpus(new)
        gpus = {g: gpus_new.get(g, 0) - gpus_old.get(g, 0) for g in sorted(set(gpus_old) | set(gpus_new))}
        (m_old, p_old), (m_new, p_new) = planning.max_monthly(old), planning.max_monthly(new)
        q_old, q_new = planning.fleet_quota(old), planning.fleet_quota(new)
        quota = {f"{r} {q}": q_new.get((c, r, q), 0) - q_old.get((c, r, q), 0)
                 for (c, r, q) in sorted(set(q_old) | set(q_new))}
        gpus = {g: d for g, d in gpus.items() if d}
        quota = {q: d for q, d in quota.items() if d}
        if gpus or quota or abs(m_new - m_old) >= 0.01 or (p_new and not p_old):
            out[cluster] = {"gpus": gpus, "maxMonthly": {"before": round(m_old, 2), "after": round(m_new, 2),
                                                         "change": round(m_new - m_old, 2)},
                            "unbounded": {"before": p_old, "after": p_new}, "quota": quota}
    return out


def delta_lines(delta: dict[str, dict], markdown: bool) -> list[str]:
    if not delta:
        return []
    out = ["## GPU spend and quota at the limits (estimates)" if markdown else "GPU spend and quota at the limits "
           "(estimates):", ""]
    for cluster, d in delta.items():
        gpus = ", ".join(f"{n:+d} {g}" for g, n in d["gpus"].items()) or "no GPU change"
        change = d["maxMonthly"]["change"]
        money = f"up to {'+' if change >= 0 else '-'}{_money(abs(change))}/month"
        tail = " (a pool is now unbounded)" if d["unbounded"]["after"] and not d["unbounded"]["before"] else ""
        quota = "; ".join(f"{q} {n:+,}" for q, n in d["quota"].items())
        out.append(f"{'- **' + cluster + '**' if markdown else '  ' + cluster}: {gpus}, {money}{tail}"
                   + (f"; quota {quota}" if quota else ""))
    out += ["", planning.ESTIMATE, ""]
    return out
