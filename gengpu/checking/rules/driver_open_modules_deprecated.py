from gengpu.checking.rules.base import CLUSTER_POLICY, NVIDIA_DRIVER, OVERLAY, Hit, Rule
from gengpu.checking.podspecs import dig

PATHS = {CLUSTER_POLICY: ("spec", "driver", "useOpenKernelModules"), NVIDIA_DRIVER: ("spec", "useOpenKernelModules")}


def check(overlay, ctx=None):
    # one rule for both custom resources that carry the field
    for subject in overlay.subjects:
        path = PATHS.get(subject.kind)
        value = dig(subject.data, *path) if path else None
        if value is not None:
            wanted = "open" if value is True else "proprietary"
            yield Hit(path, f"{subject.label}: useOpenKernelModules is no longer honoured by the GPU Operator; use "
                      f"kernelModuleType: {wanted} instead", key=True, doc=subject.doc)


RULE = Rule(
    id="driver-open-modules-deprecated",
    severity="warning",
    summary="useOpenKernelModules is set, which the GPU Operator ignores.",
    fix="Replace useOpenKernelModules with kernelModuleType: open (or proprietary); auto lets the operator choose by "
    "GPU and driver branch.",
    explanation="The CRDs still accept useOpenKernelModules, so nothing rejects it, but the operator no longer reads "
    "it: a driver meant to load the open kernel modules gets the type kernelModuleType says (auto by default). "
    "GPUs that need the open modules (Blackwell) then fail to initialise, or a proprietary-only setup gets the open "
    "ones.",
    source="NVIDIA/gpu-operator v26.7.0 api/nvidia/v1alpha1/nvidiadriver_types.go and api/nvidia/v1 ClusterPolicy "
    "('Deprecated: This field is no longer honored by the gpu-operator. Please use KernelModuleType instead.')",
    check=check,
    applies_to=OVERLAY,
)
