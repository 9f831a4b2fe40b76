from gengpu.checking.rules.base import USAGE_POOL, Hit, Rule


def check(rec, ctx):
    if rec.verdict == "none" and rec.usage.devices and not rec.evidence.get("nodesGone"):
        yield Hit(("spec", "nodePools", rec.usage.pool.index), f"pool {rec.pool}: no recommendation, {rec.reason}")


RULE = Rule(
    id="usage-too-little-data",
    severity="info",
    summary="A pool's GPUs were measured for less time than gengpu needs to size it.",
    fix="Wait for more data, widen the window (--since), or lower --min-hours if the workload is steady.",
    explanation="A peak that has not happened yet cannot be seen: a sizing from a few hours would cut the memory a "
    "nightly batch needs. gengpu proposes nothing for a pool until its series cover --min-hours (24 by default: a daily cycle).",
    source="gengpu",
    check=check,
    applies_to=USAGE_POOL,
)
