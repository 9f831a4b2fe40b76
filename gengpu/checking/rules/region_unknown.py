import difflib
import re

from gengpu import catalog
from gengpu.checking.rules.base import Hit, Rule

CLOUD = {"eks": "eks", "aks": "aks", "gke": "gke", "gke-autopilot": "gke"}


def known_regions(platform: str) -> set[str]:
    """Every region gengpu's region table names for the platform's cloud (where it offers some GPU type, or that
    its source looked at)."""
    cloud = catalog.data_file("regions.yaml").get(CLOUD.get(platform, "")) or {}
    return set(cloud.get("scanned") or []) | {r for regions in (cloud.get("types") or {}).values() for r in regions}


def check(profile, ctx=None):
    if not profile.region:
        return  # a platform without regions (kubernetes: nodes you bring)
    table = catalog.clouds()["gke" if profile.platform == "gke-autopilot" else profile.platform]
    known = known_regions(profile.platform)
    if not known or profile.region in known or not re.match(table["region"], profile.region):
        return  # a malformed name is region-format-mismatch's
    near = difflib.get_close_matches(profile.region, sorted(known), n=3, cutoff=0.6)
    hint = f"; the nearest it knows: {', '.join(near)}" if near else ""
    yield Hit(("spec", "region"), f"spec.region '{profile.region}' is not a region gengpu knows "
                                  f"{catalog.platforms()[profile.platform]['title']} to have{hint}")


RULE = Rule(
    id="region-unknown",
    severity="warning",
    summary="The region is named the platform's way but is not one gengpu knows.",
    fix="Check the region's name (the message names the nearest ones gengpu knows); a new region gengpu's tables "
    "do not list yet can be left as it is.",
    explanation="A region that does not exist (us-east-9) is named like one that does, so nothing else catches it "
    "before the provisioner or the cloud CLI fails on the cluster. gengpu knows the regions its price and region "
    "tables list for the cloud (gengpu/data/regions.yaml: every region where some GPU type is offered); a region "
    "outside them is reported with the closest names. It is a warning: a region opened after the tables were "
    "read is real.",
    source="gengpu/data/regions.yaml (karpenter-provider-azure's price table; SkyPilot's catalogs of the AWS and "
    "Compute Engine APIs)",
    check=check,
)
