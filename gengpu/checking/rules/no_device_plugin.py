from gengpu.checking.rules.base import Hit, Rule, pool_path


def check(profile, ctx=None):
    if profile.operator.enabled:
        return  # the operator's device plugin (ClusterPolicy) or DRA driver (GPUCluster; other rules judge its pools)
    for pool in profile.node_pools:
        if not pool.dra and profile.node_device_plugin(pool) is None:
            yield Hit(pool_path(pool, "name"),
                      f"nodePools[{pool.index}] ({pool.name}) hands out GPUs through a device plugin, but nothing runs "
                      f"one on its {profile.platform} nodes: spec.operator.enabled is false{_and(profile, pool)}")


def _and(profile, pool) -> str:
    if profile.platform == "aks":
        return " and spec.aks.managedGpu is not set"
    if profile.platform == "eks" and pool.provisioner == "karpenter":
        return f" and its AMI ({profile.ami_alias}) brings none"
    return ""


RULE = Rule(
    id="no-device-plugin",
    severity="error",
    summary="A pool's GPUs are never advertised: no device plugin runs on its nodes.",
    fix="Enable the GPU Operator (spec.operator.enabled: true); on AKS, let AKS run the device plugin "
    "(spec.aks.managedGpu: true); on EKS, use a Bottlerocket NVIDIA AMI (spec.eks.amiAlias: bottlerocket@...); or "
    "hand the pool's GPUs out through NVIDIA's DRA driver (allocation: dra). If you install NVIDIA's device plugin "
    "yourself, suppress this rule for the pool with that reason.",
    explanation="kubelet learns of nvidia.com/gpu (and nvidia.com/mig-*) only from a device plugin. AKS's default "
    "Driver-only pools and EKS's AL2023 NVIDIA AMIs install the driver and the container toolkit but no plugin: "
    "'No nvidia.com/gpu resource is advertised until you deploy a device plugin' (AKS). Without the GPU Operator, "
    "gengpu's sharing and MIG settings have nothing to apply them either, so every GPU pod of the pool stays "
    "Pending with 'Insufficient nvidia.com/gpu'. GKE runs its own plugin, Bottlerocket's NVIDIA variants and AKS's "
    "managed GPU pools carry one on the node.",
    source="MicrosoftDocs/azure-aks-docs articles/aks/aks-managed-gpu-nodes.md at fb060abe (install profiles); "
    "docs.aws.amazon.com EKS 'Use EKS-optimized accelerated AMIs' (install the NVIDIA device plugin); "
    "bottlerocket.dev settings.kubelet-device-plugins",
    check=check,
)
