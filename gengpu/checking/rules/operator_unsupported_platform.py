from gengpu.checking.rules._platform_feature import platform_feature


def _uses(profile):
    if profile.operator.enabled:
        yield ("spec", "operator", "enabled"), "spec.operator.enabled is true"


RULE = platform_feature(
    id="operator-unsupported-platform",
    feature="gpu-operator",
    uses=_uses,
    summary="The GPU Operator cannot run on this platform.",
    fix="Set spec.operator.enabled: false; GKE Autopilot installs the driver, device plugin and DCGM itself.",
    explanation="GKE Autopilot rejects privileged pods and manages the GPU stack; the GPU Operator is not supported "
    "for Autopilot pods.",
    source="NVIDIA/cloud-native-docs gpu-operator/google-gke.rst; GKE 'Deploy GPU workloads in Autopilot'",
)
