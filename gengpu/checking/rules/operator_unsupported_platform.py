from gengpu import catalog
from gengpu.checking.rules.base import Hit, Rule


def check(profile, ctx=None):
    if profile.operator.enabled and not catalog.platforms()[profile.platform]["operatorSupported"]:
        yield Hit(("spec", "operator", "enabled"),
                  f"spec.operator.enabled is true, but {profile.platform} does not allow the GPU Operator")


RULE = Rule(
    id="operator-unsupported-platform",
    severity="error",
    summary="The GPU Operator cannot run on this platform.",
    fix="Set spec.operator.enabled: false; GKE Autopilot installs the driver, device plugin and DCGM itself.",
    explanation="GKE Autopilot rejects privileged pods and manages the GPU stack; the GPU Operator is not supported "
    "for Autopilot pods.",
    source="NVIDIA/cloud-native-docs gpu-operator/google-gke.rst; GKE 'Deploy GPU workloads in Autopilot'",
    check=check,
)
