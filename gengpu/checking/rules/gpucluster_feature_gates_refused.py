from gengpu import catalog
from gengpu.checking.podspecs import dig
from gengpu.checking.rules._dra import gate_problems
from gengpu.checking.rules.base import GPUCLUSTER, Hit, Rule

CHART = "dra-driver-nvidia-gpu"  # the driver a GPUCluster runs (its release's draDriver)


def check(subject, ctx=None):
    gates = dig(subject.data, "spec", "draDriver", "featureGates")
    if not isinstance(gates, dict):
        return
    # the DRA driver of the newest operator release gengpu knows with a GPUCluster
    version = next((r["draDriver"] for _, r in sorted(catalog.operator()["releases"].items(),
                                                      key=lambda kv: catalog.version_tuple(kv[0]), reverse=True)
                    if r.get("draDriver")), None)
    for gate, message in gate_problems(CHART, version, gates):
        path = ("spec", "draDriver", "featureGates") + ((gate,) if gate in gates else ())
        yield Hit(path, f"{subject.label}: {message}", key=gate in gates)


RULE = Rule(
    id="gpucluster-feature-gates-refused",
    severity="error",
    summary="A GPUCluster's draDriver.featureGates that NVIDIA's DRA driver refuses at start: an unknown gate, or a "
    "combination it does not allow.",
    fix="Spell the gate as the driver lists it, and turn off one of two gates it calls mutually exclusive (or turn on "
    "the gate another requires); dra-feature-gates-refused explains each.",
    explanation="A GPUCluster runs NVIDIA's DRA driver of its operator release (v26.7.0: 0.5.0) and hands it "
    "spec.draDriver.featureGates as the chart would. The CRD accepts any map of names to booleans; the driver's "
    "components parse them with component-base and ValidateFeatureGates at start, so a name it does not know or a "
    "pair it refuses stops every component and the GPUCluster never becomes ready.",
    source="NVIDIA/gpu-operator v26.7.0 api/nvidia/v1alpha1 gpucluster_types.go (DRADriverSpec.FeatureGates), "
    "values.yaml draDriver.version; NVIDIA/k8s-dra-driver-gpu pkg/featuregates",
    check=check,
    applies_to=GPUCLUSTER,
)
