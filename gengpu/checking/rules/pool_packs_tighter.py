from gengpu.checking.rules.base import USAGE_POOL, Hit, Rule


def check(rec, ctx):
    if rec.verdict not in ("mig", "time-slicing", "mps"):
        return
    saving = "" if rec.monthly_delta is None else f", {_money(rec.monthly_delta)}/month"
    yield Hit(("spec", "nodePools", rec.usage.pool.index),
              f"pool {rec.pool}: {rec.reason}{saving} (gengpu rightsize --write applies it)")


def _money(value: float) -> str:
    return f"-${-value:,.0f}" if value < 0 else f"+${value:,.0f}"


RULE = Rule(
    id="pool-packs-tighter",
    severity="warning",
    summary="A pool of whole GPUs whose pods, by their measured peaks, fit several to a GPU (MIG instances or "
    "time-slicing replicas): most of every GPU is paid for and unused.",
    fix="Review the proposal (`gengpu rightsize`), apply it with `gengpu rightsize --write`, then `gengpu build` and "
    "open the pull request; `gengpu diff` shows the change and its spend.",
    explanation="dcgm-exporter reports each GPU's memory in use and its activity. When every pod of a pool peaks "
    "well below a GPU, a MIG profile (on MIG-capable GPUs) or time-slicing replicas hold several pods per GPU, and "
    "the autoscaler needs fewer GPUs for the same pods. gengpu sizes from the peak memory of each pod plus "
    "headroom (never below it) and its p95 activity, places MIG instances with its exact geometry, and prices the "
    "GPUs freed with the same tables as `gengpu plan`. Limits are scaled so the pool admits as many pods as "
    "before.",
    source="NVIDIA/dcgm-exporter default-counters.csv (DCGM_FI_DEV_FB_USED, DCGM_FI_DEV_GPU_UTIL); NVIDIA MIG User "
    "Guide (supported profiles)",
    check=check,
    applies_to=USAGE_POOL,
)
