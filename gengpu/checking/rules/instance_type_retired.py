from gengpu import catalog
from gengpu.checking.rules.base import Hit, Rule, pool_path


def check(profile, ctx=None):
    for pool in profile.node_pools:
        for i, name in enumerate(pool.instance_types):
            retired = (catalog.instance_type(profile.platform, name) or {}).get("retired")
            if retired:
                yield Hit(pool_path(pool, "instanceTypes", i),
                          f"nodePools[{pool.index}].instanceTypes[{i}] {name} was retired on {retired}")


RULE = Rule(
    id="instance-type-retired",
    severity="error",
    summary="The VM size has been retired by the cloud.",
    fix="Move the pool to a current size (for V100 workloads on Azure: NCasT4_v3 or NC_A100_v4).",
    explanation="Azure retired the NCv3 (V100) series on 2025-09-30; new nodes of a retired size cannot be created.",
    source="MicrosoftDocs azure-compute-docs ncv3-series retirement note",
    check=check,
)
