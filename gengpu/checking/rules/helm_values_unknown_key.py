from gengpu import charts
from gengpu.checking.rules.base import HELM_VALUES, Hit, Rule


def check(subject, ctx=None):
    for problem in charts.check_keys(subject.chart, subject.data, subject.chart_version):
        if problem.unknown:
            yield Hit(problem.path, f"{subject.label}: {problem.message}", key=True)


RULE = Rule(
    id="helm-values-unknown-key",
    severity="warning",
    summary="A key of a values file that the chart does not have.",
    fix="Fix the key's spelling or place (the message suggests the nearest key); `helm show values` lists the chart's.",
    explanation="Helm passes every value to the chart's templates and ignores the ones no template reads: a "
    "misspelt devicePlugins or mig.stratgy installs the operator with defaults and no error. gengpu reads the "
    "chart's own values.yaml at every version it ships (comments included, where the charts document options) "
    "and reports keys that none of them has.",
    source="NVIDIA/gpu-operator deployments/gpu-operator/values.yaml, NVIDIA/k8s-device-plugin "
    "deployments/helm/nvidia-device-plugin/values.yaml (gengpu/data/charts/SOURCES.yaml)",
    check=check,
    applies_to=HELM_VALUES,
)
