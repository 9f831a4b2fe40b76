from gengpu.checking.rules.base import Hit, Rule, pool_path


def check(profile, ctx=None):
    seen = {}
    for pool in profile.node_pools:
        if pool.name in seen:
            yield Hit(pool_path(pool, "name"),
                      f"nodePools[{pool.index}].name '{pool.name}' is already used by nodePools[{seen[pool.name]}]")
        seen.setdefault(pool.name, pool.index)


RULE = Rule(
    id="duplicate-pool-name",
    severity="error",
    summary="Two node pools have the same name.",
    fix="Give every pool its own name.",
    explanation="The pool name is the device-plugin ConfigMap key and the mig-parted config name; two pools with one "
    "name would share, and overwrite, one config.",
    source="NVIDIA/k8s-device-plugin cmd/config-manager (one ConfigMap key per config)",
    check=check,
)
