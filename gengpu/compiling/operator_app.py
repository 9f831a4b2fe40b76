"""The GPU Operator's Helm values, written beside the overlay and read by the cluster's Argo CD Application."""

from __future__ import annotations

import copy

from gengpu import catalog, charts, overlay_files
from gengpu.cluster import dra_feature_gates, mig_strategy
from gengpu.compiling import nodes
from gengpu.compiling.sharing import DEFAULT_KEY, DEVICE_PLUGIN_CONFIGMAP, MIG_PARTED_CONFIGMAP, mig_pools
from gengpu.model import Profile

VALUES_FILE = overlay_files.OPERATOR_VALUES
SYNC_WAVE = "argocd.argoproj.io/sync-wave"
# The chart's own NFD worker tolerations (values.yaml), kept when we add the pools' taints.
_NFD_BASE_TOLERATIONS = [
    {"key": "node-role.kubernetes.io/master", "operator": "Equal", "value": "", "effect": "NoSchedule"},
    {"key": "node-role.kubernetes.io/control-plane", "operator": "Equal", "value": "", "effect": "NoSchedule"},
]


# How the operator's upgrade controller replaces the driver (chart values driver.upgradePolicy), written out so a
# review sees it: one node at a time, GPU pods deleted and the node drained before the kernel modules reload, and
# never more than a quarter of the GPU nodes unavailable ("GPU Driver Upgrades", NVIDIA GPU Operator docs).
UPGRADE_POLICY = {
    "autoUpgrade": True,
    "maxParallelUpgrades": 1,
    "maxUnavailable": "25%",
    "gpuPodDeletion": {"force": False, "timeoutSeconds": 300, "deleteEmptyDir": False},
    "drain": {"enable": True, "force": False, "timeoutSeconds": 300, "deleteEmptyDir": False},
}


def pool_tolerations(profile: Profile) -> list[dict]:
    """Every taint of every GPU pool, once, so each operand DaemonSet reaches every GPU node: the pools' own and
    those the platform puts on their spot nodes (AKS taints every spot node; without the toleration a spot pool
    gets no driver, device plugin or NFD worker)."""
    return nodes.unique_tolerations(t for pool in profile.node_pools for t in nodes.tolerations(profile, pool))


def _merge(base: dict, extra: dict) -> dict:
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            _merge(base[key], value)
        else:
            base[key] = copy.deepcopy(value)
    return base


def helm_values(profile: Profile) -> dict:
    if profile.gpucluster:
        return gpucluster_values(profile)
    values: dict = {"driver": _driver(profile), "toolkit": {"enabled": profile.owns("toolkit")}}
    platform = catalog.platforms()[profile.platform]
    # The platform's settings span chart versions (cdi.default went in v25.10.0): keep those this chart has.
    chart = charts.for_version("gpu-operator", profile.operator.version)
    _merge(values, charts.only_known(chart, platform["operatorValues"]) if chart else platform["operatorValues"])
    if not profile.owns("toolkit"):
        values["toolkit"] = {"enabled": False}
    values["mig"] = {"strategy": mig_strategy(profile)}
    values["devicePlugin"] = {
        "config": {"create": False, "name": DEVICE_PLUGIN_CONFIGMAP, "default": DEFAULT_KEY},
    }
    if mig_pools(profile):
        values["migManager"] = {
            "config": {"create": False, "name": MIG_PARTED_CONFIGMAP, "default": "all-disabled"},
            # Cloud GPUs need a reboot to change MIG mode (gpu-operator-mig.rst, CSP section).
            "env": [{"name": "WITH_REBOOT", "value": "true"}],
        }
    if profile.dra_pools and profile.owns("driver"):
        # The driver manager must evict the DRA kubelet plugin before it reloads the driver (known issue in NVIDIA's
        # "NVIDIA DRA Driver for GPUs" page): it finds those pods by this node label.
        values["driver"]["manager"] = {"env": [{"name": "NODE_LABEL_FOR_GPU_POD_EVICTION",
                                                "value": nodes.DRA_PLUGIN_LABEL}]}
    if any(p.for_vms for p in profile.node_pools):
        # GPUs for VMs beside GPUs for pods: the operator deploys the sandbox stack (VFIO manager, vGPU device
        # manager, sandbox device plugin) on nodes labelled vm-passthrough or vm-vgpu, and the container stack on
        # the rest (defaultWorkload)
        values["sandboxWorkloads"] = {"enabled": True, "defaultWorkload": "container"}
    if any(p.confidential_computing for p in profile.node_pools):
        if chart and "mode" in chart.children.get(("sandboxWorkloads",), set()):
            # confidential sandboxes are Kata's: the chart deploys its Kata device plugin, not KubeVirt's
            values.setdefault("sandboxWorkloads", {"enabled": True, "defaultWorkload": "container"})["mode"] = "kata"
        # the CC manager sets each node's mode from its nvidia.com/cc.mode label; nodes without one keep CC off
        values["ccManager"] = {"enabled": True, "defaultMode": "off"}
    values.update(_operands(profile))
    if values["dcgmExporter"]["enabled"] and _shares_gpus(profile) and _exporter_reads(profile, "virtualGpus"):
        # Without it the exporter keys pods by GPU and each sharing pod overwrites the last: a shared GPU's
        # series name one of its pods (dcgm-exporter kubernetes.go). The ClusterPolicy has no field for it;
        # spec.dcgmExporter.env is applied last.
        values["dcgmExporter"]["env"] = [{"name": "KUBERNETES_VIRTUAL_GPUS", "value": "true"}]
        exporter_keys = chart.children.get(("dcgmExporter",), set()) if chart else set()
        if _exporter_reads(profile, "perProcess") and {"hostPID", "enablePodUID"} <= exporter_keys:
            # each sharing pod's own memory and utilisation (what rightsize sizes shared pools from): the exporter
            # maps NVML's per-process data to pods through each process's cgroup, so it must see the host's PIDs
            # and know the pods' UIDs (enablePodUID mounts the API token and grants the pod list); without
            # them every sharing pod's series reads 0
            values["dcgmExporter"].update({"hostPID": True, "enablePodUID": True})
    return values


def gpucluster_values(profile: Profile) -> dict:
    """The chart's values for a GPUCluster (GPU Operator v26.7.0+): the chart renders the GPUCluster gpu-cluster from
    them in place of the ClusterPolicy (templates/gpucluster.yaml), with NVIDIA's DRA driver, DCGM and dcgm-exporter.

    As NVIDIA's install steps (dra-intro-install.rst at v26.7.0) have it: clusterPolicy.deployCR false and
    gpuCluster.deployCR true; the driver from the chart's default NVIDIADriver when the operator owns it (the chart
    refuses a GPUCluster with driver.enabled unless driver.nvidiaDriverCRD.enabled, templates/validations.yaml), off
    when the node image has one. The DRA driver's version is the operator release's (draDriver.version).
    """
    values: dict = {"clusterPolicy": {"deployCR": False}, "gpuCluster": {"deployCR": True}, "driver": _driver(profile)}
    if profile.owns("driver"):
        values["driver"]["nvidiaDriverCRD"] = {"enabled": True, "deployDefaultCR": True}
    platform = catalog.platforms()[profile.platform]
    if "hostPaths" in platform["operatorValues"]:  # where the platform's driver sits (GKE); the GPUCluster reads it
        values["hostPaths"] = copy.deepcopy(platform["operatorValues"]["hostPaths"])
    values["draDriver"] = {
        "featureGates": {gate: True for gate in sorted(dra_feature_gates(profile))},
        # ComputeDomains (Multi-Node NVLink) are on in the chart; gengpu's DRA pools hand out GPUs only, as with
        # the driver's own chart
        "computeDomains": {"enabled": False},
    }
    values.update(_operands(profile))
    return values


def _driver(profile: Profile) -> dict:
    """driver.*: on when the operator owns the driver, with its version if the profile names one and the upgrade
    policy."""
    if not profile.owns("driver"):
        return {"enabled": False}
    return {"enabled": True, **({"version": profile.operator.driver_version} if profile.operator.driver_version
                                else {}), "upgradePolicy": UPGRADE_POLICY}


def _operands(profile: Profile) -> dict:
    """What every operand DaemonSet shares, under a ClusterPolicy or a GPUCluster: the pools' tolerations (NFD's
    worker keeps the chart's own), and dcgm-exporter on with gengpu's monitoring."""
    tolerations = pool_tolerations(profile)
    return {
        "daemonsets": {"tolerations": tolerations},
        "node-feature-discovery": {"worker": {"tolerations": _NFD_BASE_TOLERATIONS + tolerations}},
        # GKE's managed DCGM runs its own exporter; two would compete for the GPUs' profiling counters. Otherwise
        # gengpu writes the ServiceMonitor or scrape job itself (monitoring.yaml), validated and with honorLabels.
        "dcgmExporter": {"enabled": False} if profile.monitoring == "gke-managed" else
        {"enabled": True, "serviceMonitor": {"enabled": False}},
    }


def _shares_gpus(profile: Profile) -> bool:
    return any(p.sharing.mode in ("time-slicing", "mps") and not p.dra for p in profile.node_pools)


def _exporter_reads(profile: Profile, setting: str) -> bool:
    """Whether the dcgm-exporter the profile's operator release deploys reads a setting."""
    exporter = catalog.dcgm_exporter_version(profile.operator.version)
    return bool(exporter) and _version(exporter) >= _version(str(catalog.operator()["dcgmExporterMinFor"][setting]))


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(p) if p.isdecimal() else 0 for p in text.split("."))
