from gengpu.checking.consequences import DRA_GATE_OFF
from gengpu.checking.podspecs import text
from gengpu.checking.rules._dra import nvidia_configs
from gengpu.checking.rules.base import DRA, Hit, Rule
from gengpu.cluster import dra_feature_gates

GATES = {"TimeSlicing": "TimeSlicingSettings", "MPS": "MPSSupport"}


def check(subject, ctx=None):
    # the gates the DRA driver values gengpu writes for this cluster turn on
    profile = getattr(ctx, "profile", None)
    enabled = dra_feature_gates(profile) if profile is not None else set()
    for path, params in nvidia_configs(subject.data):
        sharing = params.get("sharing") if isinstance(params.get("sharing"), dict) else {}
        gate = GATES.get(text(sharing, "strategy"))  # (a strategy that is not a string: the schema says so)
        if gate and gate not in enabled:
            # without the cluster's profile, what the driver's gates are shows only in its install values
            yield Hit(path + ("sharing", "strategy"),
                      f"{subject.label}: {params['kind']} shares its device with {sharing['strategy']}, which NVIDIA's "
                      f"DRA driver allows only with its {gate} feature gate on (alpha, off by default)",
                      needs="" if profile is not None else DRA_GATE_OFF + gate)


RULE = Rule(
    id="dra-sharing-feature-gate",
    severity="warning",
    summary="A DRA claim asks NVIDIA's DRA driver for time-slicing or MPS, which need a feature gate.",
    fix="Turn the gate on in the driver's Helm values (featureGates: {TimeSlicingSettings: true} or "
    "{MPSSupport: true}), or drop the sharing block.",
    explanation="The driver's chart sets featureGates: {} and its admission webhook is off by default, so the claim "
    "is accepted and fails only when the kubelet plugin prepares it: '\"TimeSlicing\" is selected as the GPU sharing "
    "strategy, but the \"TimeSlicingSettings\" feature gate is not enabled'. The pod stays in ContainerCreating.",
    source="NVIDIA/k8s-dra-driver-gpu v0.4.0 api/nvidia.com/resource/v1beta1/validate.go, pkg/featuregates",
    check=check,
    applies_to=DRA,
)
