import re

from gengpu import catalog
from gengpu.checking.rules.base import Hit, Rule, pool_path

PLATFORM_CLOUD = {"eks": "eks", "aks": "aks", "gke": "gke"}


def _offered(cloud: dict, name: str) -> list[str] | None:
    """Regions that offer an instance type, family, VM size or machine type; None when the table lacks it."""
    types = cloud.get("types") or {}
    for key in (name, name.split(".")[0], "-".join(name.split("-")[:2])):
        if key in types:
            return types[key]
    return None


def _geography(platform: str, region: str) -> str | None:
    geo = catalog.data_file("geographies.yaml")[platform]
    if "prefix" in geo:
        m = re.match(geo["prefix"], region)
        return m.group(1) if m else None
    return next((g for g, regions in geo["geographies"].items() if region in regions), None)


def nearest(platform: str, region: str, offered: list[str], limit: int = 4) -> list[str]:
    """Regions that offer the type: the region's own geography first, then its neighbours, then the rest."""
    geo = catalog.data_file("geographies.yaml")[platform]
    order = [_geography(platform, region)] + list((geo.get("near") or {}).get(_geography(platform, region), []))
    rank = {g: i for i, g in enumerate(order)}
    return sorted(offered, key=lambda r: (rank.get(_geography(platform, r), len(rank)), r))[:limit]


def check(profile, ctx=None):
    cloud = catalog.data_file("regions.yaml").get(PLATFORM_CLOUD.get(profile.platform, ""))
    if not cloud or not profile.region:
        return
    known = {r for regions in (cloud.get("types") or {}).values() for r in regions}
    if profile.region not in known:
        return  # a region the table has never heard of: region-format-mismatch and the cloud decide
    for pool in profile.node_pools:
        for i, name in enumerate(pool.instance_types):
            offered = _offered(cloud, name)
            if offered is None or profile.region in offered:
                continue
            near = nearest(profile.platform, profile.region, offered)
            where = f"; nearest that do: {', '.join(near)}" if near else "; no region in gengpu's table offers it"
            yield Hit(pool_path(pool, "instanceTypes", i),
                      f"nodePools[{pool.index}].instanceTypes[{i}] {name} is not offered in {profile.region}{where}")


RULE = Rule(
    id="instance-type-not-in-region",
    severity="error",
    summary="The pool's GPU instance type, VM size or machine type is not offered in the profile's region.",
    fix="Pick a region that offers it (the message names the nearest), or an instance type the region has.",
    explanation="GPU types reach regions one by one, and the newest (H200, B200) only a few. A pool whose type the "
    "region lacks never gets a node: Karpenter and node auto-provisioning find no offering, a managed pool fails "
    "to create. gengpu/data/regions.yaml says where each type is offered, with its source and date "
    "(scripts/sync-regions).",
    source="gengpu/data/regions.yaml (karpenter-provider-azure price table; AWS and Google Cloud documentation)",
    check=check,
)
