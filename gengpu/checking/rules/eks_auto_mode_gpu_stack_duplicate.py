from gengpu import catalog, charts
from gengpu.checking.podspecs import dig
from gengpu.checking.rules._auto_mode import auto_pools, may_land
from gengpu.checking.rules.base import CLUSTER_POLICY, GPU_STACK, HELM_VALUES, OBJECT, OVERLAY, Hit, Rule
from gengpu.checking.subjects import components, pod_specs

# Where each chart keeps the placement of its node agent (device plugin, DRA kubelet plugin); the GPU Operator
# places its operands by node labels instead (below).
PLACEMENT = {"nvidia-device-plugin": (), "nvidia-dra-driver-gpu": ("kubeletPlugin",),
             "dra-driver-nvidia-gpu": ("kubeletPlugin",)}
OPERANDS = "nvidia.com/gpu.deploy.operands"  # "false" on a node keeps every GPU Operator operand off it


def _stack() -> set:
    return set(catalog.software()["draDriver"]["eksAutoMode"]["components"])


def _chart_spec(subject) -> dict:
    """The node agent's placement a chart's values give (over the chart's defaults at the pinned version)."""
    merged = charts.coalesce(subject.data if subject.kind == HELM_VALUES else {},
                             charts.defaults(subject.chart, subject.chart_version))
    spec = dig(merged, *PLACEMENT[subject.chart]) if PLACEMENT[subject.chart] else merged
    return spec if isinstance(spec, dict) else {}


def _operator(subject) -> tuple[dict, list[str]] | None:
    """Where a GPU Operator's operands may run, and the node agents it runs that Auto Mode runs too. Its operands
    select the nvidia.com/gpu.deploy.* labels it puts on every GPU node but those labelled operands=false."""
    if subject.kind == CLUSTER_POLICY:
        merged = subject.data.get("spec") if isinstance(subject.data.get("spec"), dict) else {}
    else:
        merged = charts.coalesce(subject.data if subject.kind == HELM_VALUES else {},
                                 charts.defaults("gpu-operator", subject.chart_version))
    running = [name for key, name in (("driver", "NVIDIA driver container"), ("devicePlugin", "NVIDIA device plugin"))
               if dig(merged, key, "enabled") not in (False, "false")]
    kept = {"nodeSelectorTerms": [{"matchExpressions": [{"key": OPERANDS, "operator": "NotIn", "values": ["false"]}]}]}
    placed = {"tolerations": dig(merged, "daemonsets", "tolerations") or [],
              "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": kept}}}
    return (placed, running) if running else None


def _candidates(overlay):
    """(subject, path, pod spec, what it runs) for everything in the files that runs a node agent Auto Mode runs."""
    stack = _stack()
    for s in overlay.subjects:
        data = s.data if isinstance(s.data, dict) else {}
        if s.kind == OBJECT and data.get("kind") == "DaemonSet":
            running = [c for c in components(data) if c in stack]
            for path, spec in pod_specs(data) if running else []:
                yield s, path, spec, running
        elif s.kind in (HELM_VALUES, GPU_STACK) and s.chart in PLACEMENT:
            running = ["NVIDIA device plugin" if s.chart == "nvidia-device-plugin" else "NVIDIA DRA driver"]
            yield s, PLACEMENT[s.chart] if s.kind == HELM_VALUES else (), _chart_spec(s), running
        elif s.kind == CLUSTER_POLICY or s.kind in (HELM_VALUES, GPU_STACK) and s.chart == "gpu-operator":
            found = _operator(s)
            if found:
                yield s, ("spec",) if s.kind == CLUSTER_POLICY else (), found[0], found[1]


def check(overlay, ctx=None):
    pools = auto_pools(overlay)
    if not pools:
        return
    for subject, path, spec, running in _candidates(overlay):
        landing = [p for p in pools if may_land(spec, p)]
        if not landing:
            continue
        names = ", ".join(p.subject.label for p in landing)
        yield Hit(path, f"{subject.label} can run the {' and the '.join(running)} on the nodes of {names}: EKS "
                  "Auto Mode (nodeClassRef group eks.amazonaws.com) runs NVIDIA's driver and device plugin on its GPU "
                  "nodes itself, and NVIDIA's DRA driver on Kubernetes 1.36+", doc=subject.doc)


RULE = Rule(
    id="eks-auto-mode-gpu-stack-duplicate",
    severity="warning",
    summary="NVIDIA's driver, device plugin or DRA driver set to run on EKS Auto Mode GPU nodes, which run their own.",
    fix="Keep NVIDIA's node agents off Auto Mode nodes: give the DaemonSet, or the chart's placement (affinity of "
    "nvidia-device-plugin, kubeletPlugin.affinity of the DRA driver), a required node affinity "
    "eks.amazonaws.com/compute-type NotIn [auto]; for the GPU Operator, label the Auto Mode pool's nodes "
    "nvidia.com/gpu.deploy.operands: \"false\" in spec.template.metadata.labels. If every GPU node is an Auto Mode "
    "node, do not install them.",
    explanation="EKS Auto Mode includes the NVIDIA driver and NVIDIA's device plugin on its GPU nodes; the plugin "
    "runs without a DaemonSet in the cluster, and AWS says not to install or update either. From Kubernetes 1.36 "
    "it also runs NVIDIA's DRA driver in the node runtime and keeps a DRA driver and a device plugin from managing "
    "the same GPUs on one node. A second device plugin registers nvidia.com/gpu with kubelet beside Auto Mode's, "
    "so which one owns the GPUs becomes a race; a driver container finds a driver already loaded; NVIDIA's DRA "
    "driver next to Auto Mode's plugin hands the same GPUs out twice, or is refused. Auto Mode nodes carry "
    "eks.amazonaws.com/compute-type=auto, the label AWS documents for keeping workloads off them.",
    source="awsdocs/amazon-eks-user-guide latest/ug/automode/auto-accelerated.adoc (031299c7), "
    "automode/associate-workload.adoc and create-node-pool.adoc (4d52b4d0); EKS User Guide 'Manage hardware devices "
    "on Amazon EKS' and 'Use the NVIDIA DRA driver or device plugin on Amazon EKS' (EKS Auto Mode, Kubernetes 1.36)",
    check=check,
    applies_to=OVERLAY,
)
