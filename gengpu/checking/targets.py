"""What a rule looks at: the subject kinds of gengpu/data/kinds.yaml, and profiles and overlays."""

PROFILE = "profile"
DEVICE_PLUGIN_CONFIG = "device-plugin-config"
MIG_PARTED_CONFIG = "mig-parted-config"
GPU_CLIENTS = "gpu-clients"
MIG_PARTED_HOOKS = "mig-parted-hooks"
CLUSTER_POLICY = "clusterpolicy"
NVIDIA_DRIVER = "nvidiadriver"  # the GPU Operator's NVIDIADriver custom resource
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
QUERIES = "queries"  # PromQL that reads GPU metrics: PrometheusRules, rule files, Grafana dashboards
HELM_VALUES = "helm-values"  # a values file of NVIDIA's gpu-operator or nvidia-device-plugin chart
OVERLAY = "overlay"  # cross-file checks over every document of a validate run
LIVE_NODE = "live-node"  # `gengpu check`: one node of a running cluster, with the pool that claims it
LIVE_CLUSTER = "live-cluster"  # `gengpu check`: the whole snapshot against one profile
USAGE_POOL = "usage-pool"  # `gengpu rightsize`: one pool with what its GPUs did (gengpu/sizing.py Recommendation)
USAGE = "usage"  # `gengpu rightsize`: the metrics as a whole (series no pool claims, a bad recording)

TARGETS = (PROFILE, DEVICE_PLUGIN_CONFIG, MIG_PARTED_CONFIG, GPU_CLIENTS, MIG_PARTED_HOOKS, CLUSTER_POLICY, NVIDIA_DRIVER,
           WORKLOAD,
           OBJECT, KARPENTER_NODEPOOL, KARPENTER_NODECLASS, KARPENTER_NODEOVERLAY, GKE_COMPUTECLASS, GKE_AUTOPROVISIONING, GKE_NODEPOOL, DRA, METRICS, QUOTA, GPU_STACK,
           HELM_VALUES, QUERIES, OVERLAY, LIVE_NODE, LIVE_CLUSTER, USAGE_POOL, USAGE)
