"""GPU metrics: how Prometheus scrapes the operator's dcgm-exporter, and the rules a GPU platform team expects.

service-monitor: a ServiceMonitor and a PrometheusRule for the Prometheus Operator.
scrape-config: a scrape job in a Secret for additionalScrapeConfigs, and a rules file in a ConfigMap.
gke-managed: nothing here; GKE's managed DCGM collection scrapes its own exporter.
On AKS managed GPU pools (no operator) the exporter is AKS's, a host service on port 19400: a ScrapeConfig, or a job,
finds the nodes by their label instead.
"""

from __future__ import annotations

from gengpu import catalog
from gengpu.compiling.yamltext import dump
from gengpu.model import Profile

EXPORTER_APP = "nvidia-dcgm-exporter"  # the app label of the GPU Operator's exporter Service and pods
# a GPUCluster's exporter (NVIDIA/gpu-operator v26.7.0 manifests/state-dcgm-exporter: DaemonSet and Service
# nvidia-dcgm-exporter-dra, same port names)
EXPORTER_APP_GPUCLUSTER = "nvidia-dcgm-exporter-dra"
EXPORTER_PORT = "gpu-metrics"
SCRAPE_JOB = "nvidia-dcgm-exporter"  # the job of gengpu's own scrape configs (scrape-config mode, AKS managed GPUs)

RECORDING = [
    ("gpu:utilization:avg", "avg by (node, gpu, UUID, modelName) (DCGM_FI_DEV_GPU_UTIL)"),
    ("gpu:memory_used:ratio", "DCGM_FI_DEV_FB_USED / (DCGM_FI_DEV_FB_USED + DCGM_FI_DEV_FB_FREE)"),
    ("namespace:gpu_utilization:avg", "avg by (namespace) (DCGM_FI_DEV_GPU_UTIL{namespace!=\"\"})"),
    ("namespace:gpu_memory_used_bytes:sum",
     "sum by (namespace) (DCGM_FI_DEV_FB_USED{namespace!=\"\"}) * 1024 * 1024"),
    ("cluster:gpu_power_watts:sum", "sum(DCGM_FI_DEV_POWER_USAGE)"),
]
ALERTS = [
    ("GPUXidError", "DCGM_FI_DEV_XID_ERRORS != 0", "0m", "critical",
     "GPU {{ $labels.gpu }} on {{ $labels.node }} reported XID {{ $value }}",
     "An XID error is a driver-reported GPU fault (ECC, fallen off the bus, ...). Drain the node and check "
     "`nvidia-smi -q` and the kernel log."),
    ("GPUMemoryNearlyFull", "gpu:memory_used:ratio > 0.95", "15m", "warning",
     "GPU {{ $labels.gpu }} on {{ $labels.node }} has used over 95% of its memory for 15 minutes",
     "Pods sharing this GPU (time-slicing has no memory isolation) may fail with out-of-memory errors."),
    ("GPUIdleWhileAllocated", "gpu:utilization:avg == 0 and on (UUID) (DCGM_FI_DEV_FB_USED > 0)", "1h", "info",
     "GPU {{ $labels.gpu }} on {{ $labels.node }} holds memory but has been idle for an hour",
     "A pod holds a GPU it does not use; scarce GPUs are better shared or released."),
    ("GPUHighTemperature", "DCGM_FI_DEV_GPU_TEMP > 85", "10m", "warning",
     "GPU {{ $labels.gpu }} on {{ $labels.node }} has been above 85 C for 10 minutes",
     "Above its slowdown temperature a GPU throttles its clocks; check cooling and power capping."),
    ("GPUExporterDown", "absent(up{job=~\".*dcgm.*\"} == 1)", "10m", "warning",
     "No dcgm-exporter target is up", "GPU metrics are missing: check the nvidia-dcgm-exporter DaemonSet and the "
     "scrape configuration."),
]


def rule_groups() -> list[dict]:
    return [
        {"name": "gengpu-gpu.recording", "rules": [{"record": name, "expr": expr} for name, expr in RECORDING]},
        {"name": "gengpu-gpu.alerts", "rules": [
            {"alert": name, "expr": expr, "for": wait, "labels": {"severity": severity},
             "annotations": {"summary": summary, "description": description}}
            for name, expr, wait, severity, summary, description in ALERTS]},
    ]


def exporter_app(profile: Profile) -> str:
    return EXPORTER_APP_GPUCLUSTER if profile.gpucluster else EXPORTER_APP


def service_monitor(profile: Profile) -> dict:
    m = profile.monitoring_config
    return {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "ServiceMonitor",
        "metadata": {"name": "nvidia-dcgm-exporter", "namespace": profile.operator.namespace,
                     **({"labels": dict(m.labels)} if m.labels else {})},
        "spec": {
            "selector": {"matchLabels": {"app": exporter_app(profile)}},
            "namespaceSelector": {"matchNames": [profile.operator.namespace]},
            "endpoints": [{
                "port": EXPORTER_PORT,
                "path": "/metrics",
                "interval": m.interval,
                "scrapeTimeout": m.scrape_timeout,
                # dcgm-exporter labels each GPU with the namespace and pod using it: keep them.
                "honorLabels": True,
                "relabelings": [{"sourceLabels": ["__meta_kubernetes_pod_node_name"], "targetLabel": "node"}],
            }],
        },
    }


def prometheus_rule(profile: Profile, namespace: str | None = None) -> dict:
    m = profile.monitoring_config
    return {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "PrometheusRule",
        "metadata": {"name": "gengpu-gpu-rules", "namespace": namespace or profile.operator.namespace,
                     **({"labels": dict(m.labels)} if m.labels else {})},
        "spec": {"groups": rule_groups()},
    }


def scrape_job(profile: Profile) -> list[dict]:
    m = profile.monitoring_config
    return [{
        # GPUExporterDown watches up{job=~".*dcgm.*"}: the job's name must match it
        "job_name": SCRAPE_JOB,
        "scrape_interval": m.interval,
        "scrape_timeout": m.scrape_timeout,
        "metrics_path": "/metrics",
        "honor_labels": True,
        "kubernetes_sd_configs": [{"role": "pod", "namespaces": {"names": [profile.operator.namespace]}}],
        "relabel_configs": [
            {"source_labels": ["__meta_kubernetes_pod_label_app"], "regex": exporter_app(profile), "action": "keep"},
            {"source_labels": ["__meta_kubernetes_pod_container_port_name"], "regex": "metrics", "action": "keep"},
            {"source_labels": ["__meta_kubernetes_pod_node_name"], "target_label": "node", "action": "replace"},
            # Exporter pod metadata under other names: namespace and pod belong to the GPU's workload.
            {"source_labels": ["__meta_kubernetes_namespace"], "target_label": "exporter_namespace",
             "action": "replace"},
            {"source_labels": ["__meta_kubernetes_pod_name"], "target_label": "exporter_pod", "action": "replace"},
        ],
    }]


def aks_scrape_job(profile: Profile) -> list[dict]:
    """The Prometheus job for AKS's managed dcgm-exporter: a systemd service on each managed GPU node, listening on
    the node's port 19400, which no Service or pod fronts. Node discovery finds the nodes by AKS's label; the job
    scrapes each InternalIP at that port and names the node."""
    m, managed = profile.monitoring_config, catalog.platforms()["aks"]["managedGpu"]
    selector = ",".join(f"{k}={v}" for k, v in managed["nodeLabel"].items())
    return [{
        "job_name": SCRAPE_JOB,
        "scrape_interval": m.interval,
        "scrape_timeout": m.scrape_timeout,
        "metrics_path": "/metrics",
        "kubernetes_sd_configs": [{"role": "node", "selectors": [{"role": "node", "label": selector}]}],
        "relabel_configs": [
            {"source_labels": ["__meta_kubernetes_node_address_InternalIP"], "target_label": "__address__",
             "replacement": f"${{1}}:{managed['exporterPort']}", "action": "replace"},
            {"source_labels": ["__meta_kubernetes_node_name"], "target_label": "node", "action": "replace"},
        ],
    }]


# Where the Prometheus Operator's ScrapeConfig does not simply camelCase a Prometheus config key
_SCRAPE_CONFIG_KEYS = {"kubernetes_sd_configs": "kubernetesSDConfigs", "relabel_configs": "relabelings"}


def _camel(value):
    """A Prometheus config fragment in the ScrapeConfig's spelling (keys camelCased; discovery roles capitalised)."""
    if isinstance(value, list):
        return [_camel(v) for v in value]
    if not isinstance(value, dict):
        return value
    out = {}
    for key, v in value.items():
        first, *rest = key.split("_")
        name = _SCRAPE_CONFIG_KEYS.get(key, first + "".join(r.title() for r in rest))
        out[name] = v.title() if key == "role" else _camel(v)
    return out


def aks_scrape_config(profile: Profile) -> dict:
    """The same job as a Prometheus Operator ScrapeConfig."""
    m = profile.monitoring_config
    return {
        "apiVersion": "monitoring.coreos.com/v1alpha1",
        "kind": "ScrapeConfig",
        "metadata": {"name": SCRAPE_JOB, "namespace": m.namespace, **({"labels": dict(m.labels)} if m.labels else {})},
        "spec": _camel(aks_scrape_job(profile)[0]),
    }


def rules_file() -> str:
    return dump({"groups": rule_groups()})


def kubernetes_objects(profile: Profile) -> dict[str, list[dict]]:
    managed = profile.aks_managed_gpu and not profile.operator.enabled  # AKS's exporter, not the operator's
    if not profile.operator.enabled and not managed:
        return {}
    m = profile.monitoring_config
    if m.mode == "service-monitor":
        if managed:  # no operator namespace: both go where Prometheus is
            return {"monitoring.yaml": [aks_scrape_config(profile), prometheus_rule(profile, m.namespace)]}
        return {"monitoring.yaml": [service_monitor(profile), prometheus_rule(profile)]}
    if m.mode == "scrape-config":
        return {"monitoring.yaml": [
            {"apiVersion": "v1", "kind": "Secret",
             "metadata": {"name": "gengpu-gpu-scrape-config", "namespace": m.namespace},
             "type": "Opaque",
             "stringData": {"prometheus-additional.yaml": dump(aks_scrape_job(profile) if managed
                                                                else scrape_job(profile))}},
            {"apiVersion": "v1", "kind": "ConfigMap",
             "metadata": {"name": "gengpu-gpu-rules", "namespace": m.namespace},
             "data": {"gpu.rules.yaml": rules_file()}},
        ]}
    return {}
