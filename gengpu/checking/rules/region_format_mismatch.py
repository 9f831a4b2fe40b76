import re

from gengpu import catalog
from gengpu.checking.rules.base import Hit, Rule

_EXAMPLES = {"eks": "ap-south-1", "gke": "us-central1", "gke-autopilot": "us-central1", "aks": "eastus"}


def _table(platform):
    return catalog.clouds()["gke" if platform == "gke-autopilot" else platform]


def check(profile, ctx=None):
    if not profile.region:
        return  # a platform without regions (kubernetes: nodes you bring)
    table = _table(profile.platform)
    if not re.match(table["region"], profile.region):
        yield Hit(("spec", "region"), f"spec.region '{profile.region}' is not a region name of "
                                      f"{catalog.platforms()[profile.platform]['title']} "
                                      f"(like {_EXAMPLES[profile.platform]})")
        return
    zone = table["zone"].replace("{region}", re.escape(profile.region))
    for i, z in enumerate(profile.zones):
        if not re.match(zone, z):
            yield Hit(("spec", "zones", i), f"spec.zones[{i}] '{z}' is not a zone of {profile.region}")


RULE = Rule(
    id="region-format-mismatch",
    severity="error",
    summary="The region or a zone is not named the way the platform names them.",
    fix="Use the platform's names: EKS ap-south-1 / ap-south-1a, GKE us-central1 / us-central1-c, AKS eastus / "
    "zones 1, 2, 3.",
    explanation="A region from another cloud (eastus on EKS) or a zone outside the region usually means a profile "
    "copied from another cluster; node pools and auto-provisioning limits then point nowhere.",
    source="AWS, Google Cloud and Azure region and zone naming",
    check=check,
)
