from gengpu import catalog
from gengpu.checking.rules.base import Hit, Rule


def check(profile, ctx=None):
    if not profile.operator.enabled:
        return
    platform = catalog.platforms()[profile.platform]
    skipped = platform.get("driverSkippable") and profile.operator.driver == "operator"
    for component in ("driver", "toolkit"):
        if skipped:
            break  # gengpu's pools skip the image's driver (and so its toolkit): the operator installs both
        if getattr(profile.operator, component) == "operator" and platform[f"{component}Preinstalled"]:
            yield Hit(("spec", "operator", component),
                      f"spec.operator.{component} is operator, but {platform['title']} nodes already ship the "
                      f"NVIDIA {component}")


RULE = Rule(
    id="driver-already-preinstalled",
    severity="error",
    summary="The operator would install a driver or toolkit the node image already has.",
    fix="Use auto (or preinstalled) so the operator leaves the node's own driver and toolkit alone.",
    explanation="AKS GPU nodes, GKE nodes and the EKS AL2023/Bottlerocket NVIDIA AMIs ship the NVIDIA driver (and on "
    "AKS and EKS the container toolkit). An operator driver container there fails to pull or to load its module, "
    "and the operator marks the node nvidia.com/gpu.present=false. On AKS the image's driver can be skipped, as "
    "Microsoft and NVIDIA document for the operator: with driver: operator gengpu's pools do so (--gpu-driver none, "
    "AKSNodeClass gpu.mode None) and the operator installs driver and toolkit, so the rule does not fire there.",
    source="NVIDIA/gpu-operator#686, #1551; docs.aws.amazon.com 'Use EKS-optimized accelerated AMIs'",
    check=check,
)
