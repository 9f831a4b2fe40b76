from gengpu.checking.consequences import WORKLOAD_LABELS
from gengpu.checking.rules.base import METRICS, Hit, Rule
from gengpu.checking.podspecs import dig


def _targets_dcgm_exporter(obj: dict) -> bool:
    selector = dig(obj, "spec", "selector", "matchLabels")
    return isinstance(selector, dict) and any("dcgm-exporter" in str(v) for v in selector.values())


def check(subject, ctx=None):
    if not _targets_dcgm_exporter(subject.data):
        return
    field = "endpoints" if subject.data.get("kind") == "ServiceMonitor" else "podMetricsEndpoints"
    endpoints = dig(subject.data, "spec", field)
    for i, endpoint in enumerate(endpoints if isinstance(endpoints, list) else []):
        if isinstance(endpoint, dict) and endpoint.get("honorLabels") is not True:
            yield Hit(("spec", field, i), f"{subject.label} scrapes dcgm-exporter without honorLabels: true: the "
                      "exporter's pod, namespace and container labels (the GPU's workload) arrive as exported_pod, "
                      "exported_namespace and exported_container", needs=WORKLOAD_LABELS)


RULE = Rule(
    id="dcgm-monitor-honor-labels",
    severity="warning",
    summary="A ServiceMonitor or PodMonitor of dcgm-exporter that renames the exporter's workload labels.",
    fix="Set honorLabels: true on the endpoint.",
    explanation="dcgm-exporter labels each GPU series with the pod, namespace and container using the GPU. Without "
    "honorLabels, Prometheus keeps its own target labels under those names (the exporter's pod) and renames the "
    "exporter's to exported_pod, exported_namespace, exported_container, so per-workload GPU dashboards and alerts "
    "match nothing.",
    source="NVIDIA/dcgm-exporter#85 (maintainers: set honorLabels); Prometheus honor_labels",
    check=check,
    applies_to=METRICS,
)
