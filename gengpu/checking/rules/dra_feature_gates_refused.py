from gengpu.checking.rules._dra import gate_problems
from gengpu.checking.rules.base import HELM_VALUES, Hit, Rule

CHARTS = ("nvidia-dra-driver-gpu", "dra-driver-nvidia-gpu")


def check(subject, ctx=None):
    gates = subject.data.get("featureGates")
    if subject.chart not in CHARTS or not isinstance(gates, dict):
        return
    for gate, message in gate_problems(subject.chart, subject.chart_version, gates):
        yield Hit(("featureGates", gate) if gate in gates else ("featureGates",), f"{subject.label}: {message}",
                  key=gate in gates)


RULE = Rule(
    id="dra-feature-gates-refused",
    severity="error",
    summary="NVIDIA's DRA driver feature gates its components refuse at start: an unknown gate, or a combination it "
    "does not allow.",
    fix="Spell the gate as the driver's version lists it (`gpu-kubelet-plugin --help` names them), and turn off one "
    "of two gates it calls mutually exclusive (DynamicMIG with PassthroughSupport, NVMLDeviceHealthCheck or "
    "MPSSupport; PassthroughSupport with NVMLDeviceHealthCheck), or turn on the gate another requires.",
    explanation="The chart hands featureGates to every component (kubelet plugins, controller, webhook) as one "
    "FEATURE_GATES string. Each parses it with Kubernetes' component-base, which refuses a name it does not know, and "
    "then runs ValidateFeatureGates, which refuses DynamicMIG beside PassthroughSupport, NVMLDeviceHealthCheck or "
    "MPSSupport, ComputeDomainCliques without IMEXDaemonsWithDNSNames and, from 0.4.0, PassthroughSupport beside "
    "NVMLDeviceHealthCheck and DeviceMetadata without PassthroughSupport. The pods crash-loop and no GPU is "
    "published; Helm and Argo CD report the release as installed.",
    source="NVIDIA/k8s-dra-driver-gpu v25.12.0 and kubernetes-sigs/dra-driver-nvidia-gpu v0.4.0/v0.5.0 "
    "pkg/featuregates/featuregates.go (ValidateFeatureGates), templates/kubeletplugin.yaml (FEATURE_GATES); "
    "k8s.io/component-base featuregate SetFromMap",
    check=check,
    applies_to=HELM_VALUES,
)
