from gengpu.checking.rules.base import Hit, Rule, pool_path
from gengpu.cluster import nap_gpu_needs, nap_named_limits


def check(profile, ctx=None):
    if profile.platform != "gke":
        return
    named = nap_named_limits(profile)
    for accelerator, (_, _, unlimited) in nap_gpu_needs(profile).items():
        if accelerator in named:
            continue
        for pool in unlimited:
            yield Hit(pool_path(pool, "limits") if pool.limits else pool_path(pool),
                      f"nodePools[{pool.index}] ({pool.name}) is auto-provisioned on {accelerator} but sets no "
                      "limits.gpus, and gke.autoprovisioning.gpus does not name it: node auto-provisioning needs a "
                      "maximum for every accelerator and creates no node without one")


RULE = Rule(
    id="gke-nap-gpu-limit-missing",
    severity="error",
    summary="A GKE auto-provisioned GPU pool has no GPU limit.",
    fix="Set limits.gpus on the pool (the most GPUs it may ever have), or name the accelerator under "
    "gke.autoprovisioning.gpus.",
    explanation="GKE node auto-provisioning only creates nodes of an accelerator that the cluster's resource limits "
    "name, with a maximum. gengpu writes the sum of the pools' limits.gpus per accelerator into "
    "gke-autoprovisioning.yaml; a pool without one would leave its accelerator out (or at 0), and its pods would "
    "stay Pending.",
    source="GKE 'Configure node auto-provisioning' (resourceLimits per GPU type)",
    check=check,
)
