"""Facts about a pool's nodes that provisioning and placement share: labels, taints, GPU counts, names."""

from __future__ import annotations

import re

from gengpu import catalog
from gengpu.model import NodePool, Profile, Taint

POOL_LABEL = "gengpu.dev/pool"
DEVICE_PLUGIN_LABEL = "nvidia.com/device-plugin.config"
MIG_LABEL = "nvidia.com/mig.config"
GKE_OPT_OUT_LABEL = "gke-no-default-nvidia-gpu-device-plugin"
# "true" on DRA pools: where NVIDIA's DRA kubelet plugin runs, and the label the GPU Operator's driver manager is told
# to evict its pods by (NVIDIA GPU Operator docs, "NVIDIA DRA Driver for GPUs", known issue).
DRA_PLUGIN_LABEL = "nvidia.com/dra-kubelet-plugin"
# The GPU Operator's sandbox workloads: what a node's GPUs run, the vGPU type, the Confidential Computing mode
# (gpu-operator docs: "GPU Operator with KubeVirt", "Confidential Containers"; controllers/state_manager.go)
WORKLOAD_LABEL = "nvidia.com/gpu.workload.config"
VGPU_LABEL = "nvidia.com/vgpu.config"
CC_LABEL = "nvidia.com/cc.mode"
# The GPU Operator keeps a state label that is already set (controllers/state_manager.go, addGPUStateLabels), and its
# device plugin DaemonSet selects "true": "false" keeps the plugin off a node whose GPUs the DRA driver hands out.
OPERATOR_DEVICE_PLUGIN_LABEL = "nvidia.com/gpu.deploy.device-plugin"


def node_labels(profile: Profile, pool: NodePool) -> dict:
    """Labels every node of the pool carries, so configs and pods find it without manual labelling."""
    labels = {POOL_LABEL: pool.name}
    if profile.gpucluster:
        # a GPUCluster runs no device plugin and no MIG manager, and deletes the device plugin's deploy labels from
        # its DRA nodes: the labels those read would be read by nothing
        labels[DRA_PLUGIN_LABEL] = "true"
        labels.update(pool.labels)
        return dict(sorted(labels.items()))
    if pool.dra:
        labels[DRA_PLUGIN_LABEL] = "true"
        if profile.platform == "gke":
            # GKE's device plugin would hand out the same GPUs; the DRA chart's kubelet plugin selects gpu.present;
            # the cluster autoscaler scales a DRA pool up from zero by the last (GKE DRA guides and NVIDIA's GKE demo).
            labels.update({GKE_OPT_OUT_LABEL: "true", "nvidia.com/gpu.present": "true",
                           "cloud.google.com/gke-nvidia-gpu-dra-driver": "true"})
        if profile.operator.enabled:
            labels[OPERATOR_DEVICE_PLUGIN_LABEL] = "false"
    elif pool.for_vms:  # NVIDIA's sandbox device plugin serves the node; the device plugin's config has no say
        labels[WORKLOAD_LABEL] = pool.workload
        if pool.vgpu_type:
            labels[VGPU_LABEL] = pool.vgpu_type
    elif not profile.aks_managed_gpu:  # AKS's managed device plugin reads no config
        labels[DEVICE_PLUGIN_LABEL] = pool.name
    if pool.confidential_computing:
        labels[CC_LABEL] = pool.confidential_computing
    if pool.sharing.mode == "mig" and profile.operator.enabled:
        labels[MIG_LABEL] = pool.name
    if profile.platform == "gke" and profile.operator.enabled:
        labels[GKE_OPT_OUT_LABEL] = "true"
    labels.update(pool.labels)
    return dict(sorted(labels.items()))


def unique_tolerations(tolerations) -> list[dict]:
    """Each toleration once, in first-seen order (several pools often share a taint)."""
    seen, out = set(), []
    for tol in tolerations:
        key = tuple(sorted(tol.items()))
        if key not in seen:
            seen.add(key)
            out.append(tol)
    return out


def platform_taints(profile: Profile, pool: NodePool) -> list[Taint]:
    """Taints the platform puts on the pool's nodes by itself (platforms.yaml automaticTaints)."""
    return [Taint(t["key"], t["effect"], t.get("value"))
            for t in catalog.platforms()[profile.platform].get("automaticTaints", [])
            if t["when"] == "gpu" or (t["when"] == "spot" and "spot" in pool.capacity_types)]


def tolerations(profile: Profile, pool: NodePool) -> list[dict]:
    return unique_tolerations(t.toleration() for t in (*pool.taints, *platform_taints(profile, pool)))


def taint_dicts(pool: NodePool) -> list[dict]:
    return [{"key": t.key, **({"value": t.value} if t.value is not None else {}), "effect": t.effect}
            for t in pool.taints]


def eks_split(pool: NodePool) -> tuple[list[str], list[str]]:
    """EKS instanceTypes as (families, full instance types)."""
    families = [t for t in pool.instance_types if "." not in t]
    types = [t for t in pool.instance_types if "." in t]
    return families, types


def aks_pool_name(pool: NodePool) -> str:
    """AKS node pool names: lowercase letters and digits, at most 12 characters, starting with a letter."""
    name = re.sub(r"[^a-z0-9]", "", pool.name)
    if not name or not name[0].isalpha():
        name = "gpu" + name
    return name[:12]
