from gengpu.checking.rules.base import CLUSTER_POLICY, Hit, Rule


def check(subject, ctx=None):
    spec = subject.data.get("spec") if isinstance(subject.data.get("spec"), dict) else {}
    cdi = spec.get("cdi") or {}
    toolkit = spec.get("toolkit") or {}
    if isinstance(cdi, dict) and cdi.get("nriPluginEnabled") is True:
        if cdi.get("enabled") is False:
            yield Hit(("spec", "cdi", "nriPluginEnabled"), f"{subject.label}: cdi.nriPluginEnabled needs cdi.enabled")
        if isinstance(toolkit, dict) and toolkit.get("enabled") is False:
            yield Hit(("spec", "cdi", "nriPluginEnabled"),
                      f"{subject.label}: cdi.nriPluginEnabled needs the operator's toolkit (toolkit.enabled is false)")


RULE = Rule(
    id="cdi-nri-without-toolkit",
    severity="error",
    summary="The NRI plugin is enabled without CDI or without the operator's toolkit.",
    fix="Enable cdi.enabled and toolkit.enabled, or turn cdi.nriPluginEnabled off.",
    explanation="The GPU Operator chart refuses these combinations at install time (templates/validations.yaml); a "
    "hand-written ClusterPolicy gets no such check and the toolkit daemonset never becomes ready.",
    source="NVIDIA/gpu-operator deployments/gpu-operator/templates/validations.yaml",
    check=check,
    applies_to=CLUSTER_POLICY,
)
