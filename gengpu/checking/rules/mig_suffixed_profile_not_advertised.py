from gengpu import catalog
from gengpu.checking.rules.base import Hit, Rule, pool_path
from gengpu.cluster import mig_layout


def suffixed(profile_name: str) -> bool:
    """A MIG profile with media-engine or graphics attributes: 1g.10gb+me, 1g.24gb-me, 1g.24gb+gfx, +me.all."""
    return "+" in profile_name or profile_name.endswith("-me")


def check(profile, ctx=None):
    lacks = catalog.device_plugin_lacks(profile.operator.version, "migSuffixedResources")
    if not profile.operator.enabled or not lacks:
        return
    plugin, since = lacks
    for pool in profile.node_pools:
        mig = pool.sharing.mig
        if pool.dra or pool.sharing.mode != "mig" or mig is None or mig.strategy != "mixed":
            continue
        for name in sorted(p for p in mig_layout(pool) if suffixed(p)):
            plain = name.split("+")[0].removesuffix("-me")
            at = pool_path(pool, "sharing", "mig", "layout", name) if mig.layout else \
                pool_path(pool, "sharing", "mig", "preset")
            yield Hit(at, f"nodePools[{pool.index}] lays out {name} under the mixed strategy, but GPU Operator "
                      f"{profile.operator.version} runs device plugin {plugin}, which counts those instances as "
                      f"nvidia.com/mig-{plain} (its resource patterns match by substring until {since}): "
                      f"no node advertises nvidia.com/mig-{name.replace('+', '.')}", key=bool(mig.layout))


RULE = Rule(
    id="mig-suffixed-profile-not-advertised",
    severity="error",
    summary="A MIG layout with +me, -me or +gfx instances under the mixed strategy, on a device plugin that folds "
    "them into the plain profile's resource.",
    fix="Use GPU Operator v26.7.0 or later (device plugin v0.20.0), or lay out the plain profile (1g.10gb instead "
    "of 1g.10gb+me) and request nvidia.com/mig-1g.10gb.",
    explanation="Under the mixed strategy the device plugin names one resource per MIG profile, nvidia.com/mig- plus "
    "the profile with + written as a dot (1g.10gb+me becomes nvidia.com/mig-1g.10gb.me), and gives each MIG device "
    "to the first resource whose pattern matches its profile. Before v0.20.0 the patterns were not anchored, so "
    "1g.10gb, listed first, also matched 1g.10gb+me: the +me instances are advertised as nvidia.com/mig-1g.10gb, "
    "pods that ask for nvidia.com/mig-1g.10gb.me stay Pending, and pods that ask for the plain profile may get an "
    "instance with media engines. v0.20.0 anchors the patterns (PR 1807).",
    source="NVIDIA/k8s-device-plugin v0.19.3 api/config/v1/resources.go wildCardToRegexp, internal/rm/device_map.go "
    "buildMigDeviceMap, internal/rm/rm.go AddDefaultResourcesToConfig; v0.20.0 (1b826acc) CHANGELOG.md and commit "
    "0dfdfb97 (PR 1807)",
    check=check,
)
