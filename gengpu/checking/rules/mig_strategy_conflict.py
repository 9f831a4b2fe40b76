from gengpu.checking.rules.base import Hit, Rule, pool_path


def check(profile, ctx=None):
    strategies = {}
    for pool in profile.node_pools:
        if pool.sharing.mode == "mig" and pool.sharing.mig and not pool.dra:  # strategies are the device plugin's
            strategies.setdefault(pool.sharing.mig.strategy, []).append(pool)
    if len(strategies) > 1:
        first = {s: pools[0].name for s, pools in strategies.items()}
        for pool in strategies.get("single", [])[:1] + strategies.get("mixed", [])[:1]:
            yield Hit(pool_path(pool, "sharing", "mig", "strategy"),
                      f"nodePools[{pool.index}].sharing.mig.strategy is {pool.sharing.mig.strategy}, but the "
                      f"cluster has one MIG strategy and pools use both (single: {first['single']}, "
                      f"mixed: {first['mixed']})")


RULE = Rule(
    id="mig-strategy-conflict",
    severity="error",
    summary="All MIG pools of a cluster must use the same MIG strategy.",
    fix="Pick one strategy (mixed can express every layout single can) for every MIG pool of the profile.",
    explanation="The GPU Operator sets one MIG strategy for the whole cluster (Helm value mig.strategy, ClusterPolicy "
    "spec.mig.strategy) and passes it to every device plugin as MIG_STRATEGY, which overrides any per-node config.",
    source="NVIDIA/gpu-operator controllers/object_controls.go (applyMIGConfiguration)",
    check=check,
)
