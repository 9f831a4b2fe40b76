from gengpu import catalog
from gengpu.checking.rules.base import Hit, Rule, pool_path


def check(profile, ctx=None):
    first = catalog.operator()["minFor"]["mpsFailRequestsOptional"]
    if not profile.operator.enabled or catalog.version_tuple(profile.operator.version) >= catalog.version_tuple(first):
        return
    for pool in profile.node_pools:
        if pool.sharing.mode == "mps" and pool.sharing.fail_requests_greater_than_one is False and not pool.dra:
            yield Hit(pool_path(pool, "sharing", "failRequestsGreaterThanOne"),
                      f"nodePools[{pool.index}].sharing.failRequestsGreaterThanOne is false, but the device plugin "
                      f"of GPU Operator {profile.operator.version} forces it to true for MPS")


RULE = Rule(
    id="mps-fail-requests-forced",
    severity="warning",
    summary="The device plugin ignores failRequestsGreaterThanOne: false for MPS before v0.20.0.",
    fix="Raise spec.operator.version to v26.7.0 (device plugin v0.20.0), or drop the setting.",
    explanation="Device plugin v0.15 to v0.19 set failRequestsGreaterThanOne to true for MPS whatever the config "
    "said; v0.20.0 honours an explicit false. Containers asking for more than one MPS replica are rejected.",
    source="NVIDIA/k8s-device-plugin commit f14d3d12d 'fix(mps): honor failRequestsGreaterThanOne' (v0.20.0)",
    check=check,
)
