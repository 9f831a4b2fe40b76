from gengpu.checking.rules.base import CLUSTER_POLICY, Hit, Rule


def check(subject, ctx=None):
    spec = subject.data.get("spec") if isinstance(subject.data.get("spec"), dict) else {}
    if isinstance(spec.get("operator"), dict) and "defaultRuntime" in spec["operator"]:
        yield Hit(("spec", "operator", "defaultRuntime"),
                  f"{subject.label}: spec.operator.defaultRuntime is deprecated and ignored", key=True)


RULE = Rule(
    id="operator-default-runtime-deprecated",
    severity="warning",
    summary="operator.defaultRuntime no longer does anything.",
    fix="Remove it; the operator detects the container runtime itself.",
    explanation="Since GPU Operator v25.3.0 the runtime is detected at run time and the field is 'Deprecated: ... "
    "no longer used'. Setting it suggests a config copied from an old guide.",
    source="NVIDIA/gpu-operator api/nvidia/v1/clusterpolicy_types.go",
    check=check,
    applies_to=CLUSTER_POLICY,
)
