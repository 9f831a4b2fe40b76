"""What a rule looks at: the subject kinds of gengpu/data/kinds.yaml, and profiles and overlays."""

PROFILE = "profile"
DEVICE_PLUGIN_CONFIG = "device-plugin-config"
MIG_PARTED_CONFIG = "mig-parted-config"
GPU_CLIENTS = "gpu-clients"
MIG_PARTED_HOOKS = "mig-parted-hooks"
CLUSTER_POLICY = "clusterpolicy"
NVIDIA_DRIVER = "nvidiadriver"  # the GPU Operator's NVIDIADriver custom resource
GPUCLUSTER = "gpucluster"  # the GPU Operator's GPUCluster (v26.7.0+): DRA driver, DCGM and dcgm-exporter in one object
WORKLOAD = "workload"
OBJECT = "object"  # any Kubernetes object: its schema, its API version
KARPENTER_NODEPOOL = "karpenter-nodepool"
KARPENTER_NODECLASS = "karpenter-nodeclass"
KARPENTER_NODEOVERLAY = "karpenter-nodeoverlay"
GKE_COMPUTECLASS = "gke-computeclass"
GKE_AUTOPROVISIONING = "gke-autoprovisioning"
GKE_NODEPOOL = "gke-nodepool"  # Config Connector ContainerNodePool with GPUs
DRA = "dra"
METRICS = "metrics"
GPU_STACK = "gpu-stack"  # a workload that runs part of NVIDIA's GPU stack (device plugin, GFD, dcgm-exporter ...)
QUOTA = "quota"  # ResourceQuota, nos ElasticQuota, KAI Queue, Kueue ClusterQueue that count GPUs
QUERIES = "queries"  # PromQL that reads GPU metrics: PrometheusRules, rule files, Grafana dashboards, KEDA triggers
DCGM_COUNTERS = "dcgm-counters"  # dcgm-exporter's counters file (a .csv file, or a ConfigMap key it mounts)
HELM_VALUES = "helm-values"  # a values file of NVIDIA's gpu-operator or nvidia-device-plugin chart
OVERLAY = "overlay"  # cross-file checks over every document of a validate run
LIVE_NODE = "live-node"  # `gengpu check`: one node of a running cluster, with the pool that claims it
LIVE_CLUSTER = "live-cluster"  # `gengpu check`: the whole snapshot against one profile
USAGE_POOL = "usage-pool"  # `gengpu rightsize`: one pool with what its GPUs did (gengpu/sizing.py Recommendation)
USAGE = "usage"  # `gengpu rightsize`: the metrics as a whole (series no pool claims, a bad recording)

TARGETS = (PROFILE, DEVICE_PLUGIN_CONFIG, MIG_PARTED_CONFIG, GPU_CLIENTS, MIG_PARTED_HOOKS, CLUSTER_POLICY, NVIDIA_DRIVER,
           GPUCLUSTER,
           WORKLOAD,
           OBJECT, KARPENTER_NODEPOOL, KARPENTER_NODECLASS, KARPENTER_NODEOVERLAY, GKE_COMPUTECLASS, GKE_AUTOPROVISIONING, GKE_NODEPOOL, DRA, METRICS, QUOTA, GPU_STACK,
           HELM_VALUES, QUERIES, DCGM_COUNTERS, OVERLAY, LIVE_NODE, LIVE_CLUSTER, USAGE_POOL, USAGE)



# The roles of the documents each kind of subject is judged in (loading/roles.py), unless a rule declares its own
# (Rule.roles). A kustomize patch is a part of an object: it is judged as the object it patches (pipeline/parts.py),
# and as written only by the rules that hold for a part (a GPU config in a ConfigMap it patches in, a resource
# name); a rule that judges a whole object does not see it.
def _roles():
    from gengpu.loading import roles as R

    whole = (R.OBJECT, R.RESOURCE)
    configs = (R.NVIDIA_CONFIG, *whole, R.PATCH, R.KUSTOMIZATION, R.VALUES)
    return {
        OBJECT: (*whole, R.PATCH), WORKLOAD: (*whole, R.FRAGMENT),
        DEVICE_PLUGIN_CONFIG: configs, MIG_PARTED_CONFIG: configs, GPU_CLIENTS: configs, MIG_PARTED_HOOKS: configs,
        DCGM_COUNTERS: configs,
        HELM_VALUES: (R.VALUES, *whole), QUERIES: (R.DOCUMENTED, *whole), GKE_AUTOPROVISIONING: (R.DOCUMENTED,),
        None: whole,
    }


def roles_of(target: str) -> tuple[str, ...] | None:
    """The document roles a target's rules judge by default; None where no document is judged (profiles, a live
    cluster, metrics) or every role is (cross-document rules)."""
    if target in (PROFILE, OVERLAY, LIVE_NODE, LIVE_CLUSTER, USAGE_POOL, USAGE):
        return None
    table = _roles()
    return table.get(target, table[None])


def workloads_and_patches() -> tuple[str, ...]:
    """For a workload rule that holds for a part as much as for a whole (a resource name, a quantity)."""
    from gengpu.loading import roles as R

    return (*roles_of(WORKLOAD), R.PATCH)
