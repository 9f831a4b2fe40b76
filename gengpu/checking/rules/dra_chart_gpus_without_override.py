from gengpu.checking.rules.base import HELM_VALUES, Hit, Rule
from gengpu.checking.podspecs import dig

CHARTS = ("nvidia-dra-driver-gpu", "dra-driver-nvidia-gpu")  # up to 25.12.0, and at its new home (same guard)


def check(subject, ctx=None):
    if subject.chart not in CHARTS:
        return
    gpus = dig(subject.data, "resources", "gpus", "enabled")
    if gpus is False or subject.data.get("gpuResourcesEnabledOverride") is True:
        return
    path = ("resources", "gpus", "enabled") if gpus is not None else \
        ("gpuResourcesEnabledOverride",) if "gpuResourcesEnabledOverride" in subject.data else ()
    yield Hit(path, f"{subject.label}: GPU allocation is on (resources.gpus.enabled"
              f"{'' if gpus is not None else ' defaults to true'}) without gpuResourcesEnabledOverride: true, so the "
              "chart refuses to render", key=not path)


RULE = Rule(
    id="dra-chart-gpus-without-override",
    severity="error",
    summary="NVIDIA's DRA driver chart with GPU allocation on but not acknowledged: the chart fails to render.",
    fix="Keep the GPU Operator's device plugin off the DRA nodes (node label nvidia.com/gpu.deploy.device-plugin: "
    "\"false\"), then set gpuResourcesEnabledOverride: true; or set resources.gpus.enabled: false to run "
    "ComputeDomains only.",
    explanation="From v25.12.0 the chart's templates/validation.yaml fails the render when resources.gpus.enabled "
    "(true by default) is not paired with gpuResourcesEnabledOverride: the DRA driver's GPU kubelet plugin cannot "
    "share a node with the device plugin. Argo CD shows the Application as ComparisonError and installs nothing.",
    source="NVIDIA/k8s-dra-driver-gpu v25.12.0 deployments/helm/nvidia-dra-driver-gpu/templates/validation.yaml, "
    "values.yaml",
    check=check,
    applies_to=HELM_VALUES,
)
