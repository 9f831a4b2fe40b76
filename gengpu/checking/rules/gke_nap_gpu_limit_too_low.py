from gengpu.checking.rules.base import Hit, Rule
from gengpu.cluster import nap_gpu_needs, nap_named_limits


def check(profile, ctx=None):
    if profile.platform != "gke":
        return
    needs = nap_gpu_needs(profile)
    for accelerator, (model, maximum) in nap_named_limits(profile).items():
        total, pools, _ = needs.get(accelerator, (0, [], []))
        if isinstance(maximum, int) and total > maximum:
            yield Hit(("spec", "gke", "autoprovisioning", "gpus", model),
                      f"gke.autoprovisioning.gpus.{model} is {maximum}, but the pools auto-provisioned on "
                      f"{accelerator} ({', '.join(p.name for p in pools)}) have limits.gpus adding up to {total}: "
                      f"past {maximum} GPUs none of them gets a node")


RULE = Rule(
    id="gke-nap-gpu-limit-too-low",
    severity="error",
    summary="The cluster's auto-provisioning GPU limit is below what its pools' limits add up to.",
    fix="Raise gke.autoprovisioning.gpus for that GPU to the sum of the pools' limits.gpus, or leave it out and "
    "gengpu writes that sum.",
    explanation="GKE node auto-provisioning has one GPU maximum per accelerator for the whole cluster; every "
    "auto-provisioned pool on that accelerator draws from it. A cluster maximum below the sum of the pools' limits "
    "means a pool cannot grow to its own limit (an 8-GPU pool behind a 4-GPU cluster limit never gets a node).",
    source="GKE 'Configure node auto-provisioning' (resourceLimits per GPU type)",
    check=check,
)
