import re

from gengpu import catalog
from gengpu.checking.rules.base import Hit, Rule, pool_path

PLATFORM_CLOUD = {"eks": "eks", "aks": "aks", "gke": "gke"}


def _offered(cloud: dict, name: str, accelerator: str | None) -> list[str] | None:
    """Regions that offer an instance type (or its family or machine series; on GKE's N1 machines, the attached
    accelerator); None when the table does not know it."""
    types = cloud.get("types") or {}
    keys = [name, name.split(".")[0]]
    if name.startswith("n1-"):
        keys = [accelerator]
    elif "-" in name:
        keys.append("-".join(name.split("-")[:2]))
    return next((types[k] for k in keys if k in types), None)


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
    known = set(cloud.get("scanned") or {r for regions in (cloud.get("types") or {}).values() for r in regions})
    if profile.region not in known:
        return  # a region the source did not look at: unknown, not "not offered"
    for pool in profile.node_pools:
        accelerator = catalog.gke_accelerator(pool.gpu_id) if profile.platform == "gke" and pool.gpu_id else None
        offered = {name: _offered(cloud, name, accelerator) for name in pool.instance_types}
        if any(regions is None or profile.region in regions for regions in offered.values()):
            continue  # one type the region has (or one the table does not know) is enough for the provisioner
        near = nearest(profile.platform, profile.region, sorted({r for rs in offered.values() for r in rs}))
        where = f"; nearest regions that do: {', '.join(near)}" if near else "; no region in gengpu's table does"
        names = ", ".join(pool.instance_types)
        yield Hit(pool_path(pool, "instanceTypes"),
                  f"nodePools[{pool.index}].instanceTypes: {profile.region} offers none of {names}{where}")


RULE = Rule(
    id="instance-type-not-in-region",
    severity="error",
    summary="None of the pool's GPU instance types, VM sizes or machine types is offered in the profile's region.",
    fix="Pick a region that offers it (the message names the nearest), or an instance type the region has.",
    explanation="GPU types reach regions one by one, and the newest (H200, B200) only a few. A pool whose type the "
    "region lacks never gets a node: Karpenter and node auto-provisioning find no offering, a managed pool fails "
    "to create. gengpu/data/regions.yaml says where each type is offered, with its source "
    "(scripts/sync-regions).",
    source="gengpu/data/regions.yaml (karpenter-provider-azure's price table; SkyPilot's catalog of the AWS and Compute "
    "Engine APIs)",
    check=check,
)
