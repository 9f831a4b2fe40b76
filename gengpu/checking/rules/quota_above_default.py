from gengpu import planning
from gengpu.checking.rules.base import Hit, Rule, pool_path


def _granted(profile, name: str):
    """The quota the profile says it has, by full name, code (AWS) or metric."""
    for key, value in profile.quotas.items():
        if key == name or f"({key})" in name or name.startswith(f"{key} ("):
            return value
    return None


def check(profile, ctx=None):
    plans = planning.plan_profile(profile, priced=False)
    total = planning.fleet_quota(plans)
    flagged = set()
    for pool, plan in zip(profile.node_pools, plans):
        for name in plan.quota:
            need = total[(planning.CLOUD[profile.platform], profile.region, name)]
            granted = _granted(profile, name)
            limit = granted if granted is not None else planning.quota_default(profile.platform, name)
            if limit is None or need <= limit or name in flagged:
                continue
            flagged.add(name)
            where = "the quota granted in spec.quotas" if granted is not None else "the cloud's documented default"
            yield Hit(pool_path(pool, "limits") if pool.limits else pool_path(pool, "name"),
                      f"the pools' limits need {need:,} {plan.quota_unit} of {name} in {profile.region}, above "
                      f"{where} ({limit:,}): request {need:,} before the pool grows")


RULE = Rule(
    id="quota-above-default",
    severity="warning",
    summary="Pool limits that need more cloud quota than the region grants by default (or than spec.quotas says).",
    fix="Request the quota the message names (AWS Service Quotas, Google Cloud quotas page, Azure quota "
    "request), then record it under spec.quotas; or lower the pool's limits.",
    explanation="Autoscalers stop at the cloud's regional quota, not at the pool's limit: nodes fail to launch "
    "with InsufficientInstanceCapacity-like errors (AWS VcpuLimitExceeded, GCE QUOTA_EXCEEDED, Azure "
    "OperationNotAllowed) and pods stay Pending. AWS documents a default of 0 vCPUs for every GPU instance quota "
    "(G and VT, P, and their Spot pools); raises take days for large GPU families.",
    source="AWS 'Amazon EC2 instance type quotas' and 'Spot Instance quotas'; gengpu/data/quotas.yaml",
    check=check,
)
