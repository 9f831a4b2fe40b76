from gengpu import catalog
from gengpu.checking.podspecs import dig
from gengpu.checking.rules.base import HELM_VALUES, Hit, Rule


def check(subject, ctx=None):
    data = subject.data
    if subject.chart != "gpu-operator" or dig(data, "gpuCluster", "deployCR") is not True:
        return
    since = catalog.operator()["minFor"]["gpuCluster"]
    if not catalog.chart_has(subject.chart_version, since):
        return  # helm-values-unknown-key says the chart of that version has no gpuCluster
    if dig(data, "clusterPolicy", "deployCR") is not False:
        said = "clusterPolicy.deployCR is true" if dig(data, "clusterPolicy", "deployCR") is True else \
            "clusterPolicy.deployCR defaults to true"
        yield Hit(("gpuCluster", "deployCR"), f"{subject.label}: gpuCluster.deployCR is true and {said}: the chart "
                  "refuses to render both a ClusterPolicy and a GPUCluster")
    if dig(data, "driver", "enabled") is not False and dig(data, "driver", "nvidiaDriverCRD", "enabled") is not True:
        yield Hit(("gpuCluster", "deployCR"), f"{subject.label}: a GPUCluster with the operator's driver "
                  "(driver.enabled) needs driver.nvidiaDriverCRD.enabled: true, or the chart refuses to render (the "
                  "GPUCluster installs no driver; an NVIDIADriver does)")


RULE = Rule(
    id="operator-gpucluster-values-refused",
    severity="error",
    summary="GPU Operator values asking for a GPUCluster that the chart refuses to render.",
    fix="Set clusterPolicy.deployCR: false beside gpuCluster.deployCR: true, and either driver.nvidiaDriverCRD."
    "enabled: true (the operator installs the driver through its default NVIDIADriver) or driver.enabled: false "
    "(the node image has one), as NVIDIA's DRA install steps do.",
    explanation="From v26.7.0 the gpu-operator chart renders a GPUCluster with gpuCluster.deployCR, and its "
    "templates/validations.yaml fails the render when clusterPolicy.deployCR (true by default) is also true, or "
    "when driver.enabled (true by default) is not paired with driver.nvidiaDriverCRD.enabled: the GPUCluster runs "
    "the DRA driver, DCGM and dcgm-exporter but not the driver. Argo CD shows a ComparisonError and Flux a failed "
    "install; nothing is deployed.",
    source="NVIDIA/gpu-operator v26.7.0 (10ee5b36) deployments/gpu-operator/templates/validations.yaml, values.yaml; "
    "NVIDIA/cloud-native-docs gpu-operator/dra-intro-install.rst",
    check=check,
    applies_to=HELM_VALUES,
)
