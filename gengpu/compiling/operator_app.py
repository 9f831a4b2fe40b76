"""The GPU Operator install: Helm values, and the Argo CD Application that syncs the chart with them.

Why a multi-source Application and not kustomize helmCharts: Argo CD renders the
chart itself (no `--enable-helm` in argocd-cm, no helm binary in CI), the values
stay a plain reviewed file in git, and the operator's CRDs are applied by Helm
as the chart intends.
"""

from __future__ import annotations

import copy

from gengpu import catalog
from gengpu.cluster import mig_strategy
from gengpu.compiling.sharing import DEFAULT_KEY, DEVICE_PLUGIN_CONFIGMAP, MIG_PARTED_CONFIGMAP, mig_pools
from gengpu.model import Profile

VALUES_FILE = "gpu-operator-values.yaml"
SYNC_WAVE = "argocd.argoproj.io/sync-wave"
# The chart's own NFD worker tolerations (values.yaml), kept when we add the pools' taints.
_NFD_BASE_TOLERATIONS = [
    {"key": "node-role.kubernetes.io/master", "operator": "Equal", "value": "", "effect": "NoSchedule"},
    {"key": "node-role.kubernetes.io/control-plane", "operator": "Equal", "value": "", "effect": "NoSchedule"},
]


def pool_tolerations(profile: Profile) -> list[dict]:
    """Every taint of every GPU pool, once, so each operand DaemonSet reaches every GPU node."""
    seen, out = set(), []
    for pool in profile.node_pools:
        for taint in pool.taints:
            tol = taint.toleration()
            key = tuple(sorted(tol.items()))
            if key not in seen:
                seen.add(key)
                out.append(tol)
    return out


def _merge(base: dict, extra: dict) -> dict:
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            _merge(base[key], value)
        else:
            base[key] = copy.deepcopy(value)
    return base


def helm_values(profile: Profile) -> dict:
    tolerations = pool_tolerations(profile)
    values: dict = {
        "driver": {"enabled": profile.owns("driver")},
        "toolkit": {"enabled": profile.owns("toolkit")},
    }
    if profile.owns("driver") and profile.operator.driver_version:
        values["driver"]["version"] = profile.operator.driver_version
    platform = catalog.platforms()[profile.platform]
    _merge(values, platform["operatorValues"])
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
    values["daemonsets"] = {"tolerations": tolerations}
    values["node-feature-discovery"] = {"worker": {"tolerations": _NFD_BASE_TOLERATIONS + tolerations}}
    if profile.monitoring == "gke-managed":
        # GKE's managed DCGM runs its own exporter; two would compete for the GPUs' profiling counters.
        values["dcgmExporter"] = {"enabled": False}
    else:
        # gengpu writes the ServiceMonitor or scrape job itself (monitoring.yaml), validated and with honorLabels.
        values["dcgmExporter"] = {"enabled": True, "serviceMonitor": {"enabled": False}}
    return values


def application(profile: Profile) -> dict:
    chart = catalog.operator()["chart"]
    argo = profile.argocd
    destination = {"name": argo.cluster_name} if argo.cluster_name else {"server": argo.server}
    destination["namespace"] = profile.operator.namespace
    return {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Application",
        "metadata": {
            "name": f"{profile.name}-gpu-operator",
            "namespace": argo.namespace,
            "annotations": {SYNC_WAVE: "0"},
            "finalizers": ["resources-finalizer.argocd.argoproj.io"],
        },
        "spec": {
            "project": argo.project,
            "sources": [
                {
                    "repoURL": chart["repoURL"],
                    "chart": chart["name"],
                    "targetRevision": profile.operator.version,
                    "helm": {
                        "releaseName": "gpu-operator",
                        "valueFiles": [f"$values/{profile.overlay_path}/{VALUES_FILE}"],
                    },
                },
                {"repoURL": argo.repo_url, "targetRevision": argo.revision, "ref": "values"},
            ],
            "destination": destination,
            "syncPolicy": {
                "automated": {"prune": True, "selfHeal": True},
                # ClusterPolicy's CRD is too large for client-side apply's last-applied annotation.
                "syncOptions": ["ServerSideApply=true"],
            },
        },
    }
