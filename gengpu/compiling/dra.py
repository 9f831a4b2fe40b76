"""Pools with allocation: dra: NVIDIA's DRA driver, and a ResourceClaimTemplate per slice type a pool offers.

Pods of a DRA pool do not ask for an extended resource. They name a claim: the placement component adds
`resourceClaims: [{name: gpu, resourceClaimTemplateName: <slice>}]` to the pod, and the container that uses the
device lists `resources.claims: [{name: gpu}]`. Each pod gets its own claim from the template, so a whole GPU
or a MIG device is the pod's alone; with time-slicing or MPS the containers of that pod share one GPU under the
driver's sharing settings (pods share a device only by naming one ResourceClaim, which is the workload's choice).

Shapes follow NVIDIA/k8s-dra-driver-gpu v25.12.0: DeviceClasses gpu.nvidia.com and mig.nvidia.com (shipped by the
chart), demo/specs/quickstart/v1/gpu-test{1,4,-mps}.yaml, api/nvidia.com/resource/v1beta1/sharing.go.
"""

from __future__ import annotations

from dataclasses import dataclass

from gengpu import catalog, overlay_files
from gengpu.cluster import dra_feature_gates, mig_layout
from gengpu.compiling import nodes
from gengpu.model import NodePool, Profile

VALUES_FILE = overlay_files.DRA_VALUES
RELEASE = "nvidia-dra-driver-gpu"
CLAIM = "gpu"  # the pod's claim name, and the request's name inside the template
DRIVER = "gpu.nvidia.com"
API = "resource.k8s.io/v1"
CONFIG_API = "resource.nvidia.com/v1beta1"
# Where the driver finds the NVIDIA driver's files on the node.
DRIVER_ROOT_OPERATOR = "/run/nvidia/driver"  # the GPU Operator's driver container
DRIVER_ROOT_GKE = "/home/kubernetes/bin/nvidia"  # GKE's driver and Google's installer
DRIVER_ROOT_HOST = "/"  # a node image with the driver installed (EKS AL2023/Bottlerocket NVIDIA, AKS)
MIG_STATE_LABEL = "nvidia.com/mig.config.state"  # the MIG manager's: pending, rebooting, success or failed


@dataclass(frozen=True)
class Slice:
    """One kind of device a DRA pool hands out: a component folder and ResourceClaimTemplate of that name."""

    name: str
    device_class: str  # gpu.nvidia.com or mig.nvidia.com
    mig_profile: str | None


def driver_settings() -> dict:
    return catalog.software()["draDriver"]


def chart_version(profile: Profile) -> str:
    return profile.dra_driver_version or driver_settings()["default"]


def chart_name(profile: Profile) -> str:
    """nvidia-dra-driver-gpu up to 25.12.0, dra-driver-nvidia-gpu from the driver's new home (0.x)."""
    return driver_settings()["charts"][chart_version(profile)]["chart"]


def separate_release(profile: Profile) -> bool:
    """NVIDIA's DRA driver is installed as a Helm release of its own: DRA pools under a ClusterPolicy or without the
    GPU Operator. A GPUCluster runs the driver itself, and NVIDIA says not to install a second one beside it."""
    return bool(profile.dra_pools) and not profile.gpucluster


def slices(pool: NodePool) -> list[Slice]:
    if pool.sharing.mode == "mig":
        return [Slice(f"{pool.name}-{p}", "mig.nvidia.com", p) for p in mig_layout(pool)]
    return [Slice(pool.name, "gpu.nvidia.com", None)]


def _gpu_config(profile: Profile, pool: NodePool) -> dict | None:
    """The driver's sharing settings for a time-slicing or MPS pool; replicas shape MPS's per-client limits."""
    s = pool.sharing
    if s.mode == "time-slicing":
        sharing = {"strategy": "TimeSlicing", "timeSlicingConfig": {"interval": "Default"}}
    elif s.mode == "mps":
        mps: dict = {"defaultActiveThreadPercentage": 100 // s.replicas}
        gpu = catalog.gpu(pool.gpu_id) if pool.gpu_id else None
        if gpu and gpu.get("memoryGB"):
            # Decimal GB as sold, in MiB, split evenly: what the device plugin's MPS replicas would each get.
            mps["defaultPinnedDeviceMemoryLimit"] = f"{gpu['memoryGB'] * 1000 ** 3 // 1024 ** 2 // s.replicas}Mi"
        sharing = {"strategy": "MPS", "mpsConfig": mps}
    else:
        return None
    return {"apiVersion": CONFIG_API, "kind": "GpuConfig", "sharing": sharing}


def claim_template(profile: Profile, pool: NodePool, piece: Slice) -> dict:
    exactly: dict = {"deviceClassName": piece.device_class}
    if piece.mig_profile:
        exactly["selectors"] = [{"cel": {
            "expression": f"device.attributes['{DRIVER}'].profile == '{piece.mig_profile}'"}}]
    devices: dict = {"requests": [{"name": CLAIM, "exactly": exactly}]}
    config = _gpu_config(profile, pool)
    if config:
        devices["config"] = [{"requests": [CLAIM], "opaque": {"driver": DRIVER, "parameters": config}}]
    return {
        "apiVersion": API,
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": piece.name},
        "spec": {"spec": {"devices": devices}},
    }


def driver_root(profile: Profile) -> str:
    if profile.operator.enabled and profile.owns("driver"):
        return DRIVER_ROOT_OPERATOR
    return DRIVER_ROOT_GKE if profile.platform == "gke" else DRIVER_ROOT_HOST


def _term(pools: list[NodePool], *more: dict) -> dict:
    return {"matchExpressions": [
        {"key": nodes.DRA_PLUGIN_LABEL, "operator": "In", "values": ["true"]},
        {"key": nodes.POOL_LABEL, "operator": "In", "values": sorted(p.name for p in pools)}, *more]}


def kubelet_plugin_affinity(profile: Profile) -> dict:
    """Where the kubelet plugin may start: a DRA pool's node, and on a MIG pool only once the MIG manager has made
    the pool's layout.

    The chart's default affinity (values.yaml at v25.12.0) wants an NFD label or nvidia.com/gpu.present=true, which
    a node without the GPU Operator does not have: these terms replace its list (Helm replaces lists). The plugin
    lists MIG devices once, when it starts (cmd/gpu-kubelet-plugin/nvlib.go): started before the MIG manager has
    finished, it would publish the whole GPU or nothing, so MIG pools wait for nvidia.com/mig.config.state=success.
    """
    mig = [p for p in profile.dra_pools if p.sharing.mode == "mig"]
    whole = [p for p in profile.dra_pools if p.sharing.mode != "mig"]
    terms = ([_term(whole)] if whole else []) + \
        ([_term(mig, {"key": MIG_STATE_LABEL, "operator": "In", "values": ["success"]})] if mig else [])
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}}}


def helm_values(profile: Profile) -> dict:
    """Values for the nvidia-dra-driver-gpu chart: GPU allocation on, only on the DRA pools' nodes."""
    tolerations = nodes.unique_tolerations(t for pool in profile.dra_pools for t in nodes.tolerations(profile, pool))
    return {
        **(driver_settings()["charts"][chart_version(profile)].get("values") or {}),
        "nvidiaDriverRoot": driver_root(profile),
        # The chart refuses GPU allocation next to the device plugin unless told the plugin is off on those
        # nodes; gengpu labels DRA nodes so the GPU Operator does not deploy its device plugin there.
        "gpuResourcesEnabledOverride": True,
        "resourceApiVersion": API,
        "resources": {"gpus": {"enabled": True}, "computeDomains": {"enabled": False}},
        "featureGates": {gate: True for gate in sorted(dra_feature_gates(profile))},
        "kubeletPlugin": {"nodeSelector": {nodes.DRA_PLUGIN_LABEL: "true"}, "affinity": kubelet_plugin_affinity(profile),
                          "tolerations": tolerations},
    }
