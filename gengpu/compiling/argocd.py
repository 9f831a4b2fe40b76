"""Argo CD objects for the repository: one Application per cluster, and a fleet ApplicationSet.

Each cluster's Application has several sources: the NVIDIA gpu-operator Helm chart
with the values file gengpu wrote, the cluster's overlay (kustomize), and this
repository as the `$values` reference. Chart and overlay sync to the same
destination, so it works alike for Argo CD in the cluster and for a hub that
manages a fleet.

Why a multi-source Application and not kustomize helmCharts: Argo CD renders the
chart itself (no `--enable-helm` in argocd-cm, no helm binary in CI), the values
stay a plain reviewed file in git, and Helm applies the operator's CRDs as the
chart intends.
"""

from __future__ import annotations

from gengpu import catalog, overlay_files
from gengpu.compiling import dra
from gengpu.compiling.operator_app import VALUES_FILE
from gengpu.model import Profile

CLUSTER_FILE = overlay_files.CLUSTER_FILE
# On GKE, the node label that turns GKE's device plugin off also stops its driver install: the
# GPU Operator then relies on Google's driver installer DaemonSet (NVIDIA gpu-operator/google-gke.rst).
SYNC_OPTIONS = [
    # ClusterPolicy's CRD is too large for client-side apply's last-applied annotation.
    "ServerSideApply=true",
    # Namespaces are part of the overlay (with their pod-security labels).
    "CreateNamespace=false",
    "PruneLast=true",
]
RETRY = {"limit": 5, "backoff": {"duration": "10s", "factor": 2, "maxDuration": "5m"}}


def _metadata(name: str, namespace: str | None = None) -> dict:
    meta = {"name": f"gpu-{name}", **({"namespace": namespace} if namespace else {})}
    meta["labels"] = {"app.kubernetes.io/managed-by": "gengpu", "gengpu.dev/cluster": name}
    meta["finalizers"] = ["resources-finalizer.argocd.argoproj.io"]
    return meta


def _sync_policy() -> dict:
    return {"automated": {"prune": True, "selfHeal": True}, "syncOptions": SYNC_OPTIONS, "retry": RETRY}


def _chart_source(version: str, repo_url: str, values_path: str) -> dict:
    chart = catalog.operator()["chart"]
    return {
        "repoURL": chart["repoURL"],
        "chart": chart["name"],
        "targetRevision": version,
        "helm": {"releaseName": "gpu-operator", "valueFiles": [f"$values/{values_path}"]},
    }


def _dra_source(profile: Profile) -> dict:
    """NVIDIA's DRA driver chart, with the values gengpu wrote beside the overlay."""
    chart = dra.driver_settings()
    return {
        "repoURL": chart["repoURL"],
        "chart": dra.chart_name(profile),
        "targetRevision": dra.chart_version(profile),
        "helm": {"releaseName": dra.RELEASE, "valueFiles": [f"$values/{profile.overlay_path}/{dra.VALUES_FILE}"]},
    }


def driver_installer(profile: Profile) -> dict | None:
    """The source that installs Google's NVIDIA driver on GKE nodes run by the GPU Operator or the DRA driver.

    One owner of the driver per GKE path: managed pools are created with GKE's driver disabled (with the GPU
    Operator, and for DRA pools, which GKE's own driver install does not support), so this installer (pinned)
    installs it; auto-provisioned pools get GKE's own driver from their ComputeClass (driverVersion), and the
    installer skips their nodes (they carry cloud.google.com/gke-gpu-driver-version). Only managed pools need it.
    """
    if profile.platform != "gke" or (profile.operator.enabled and profile.owns("driver")):
        return None
    if not any(pool.provisioner == "managed" and (profile.operator.enabled or pool.dra) for pool in profile.node_pools):
        return None
    pinned = catalog.software()["gkeDriverInstaller"]
    image = profile.gke.get("imageType", "COS").lower()
    return {"repoURL": pinned["repoURL"], "targetRevision": profile.gke.get("driverInstallerRevision", pinned["commit"]),
            "path": f"nvidia-driver-installer/{image}", "directory": {"include": "daemonset-preloaded.yaml"}}


def application(profile: Profile) -> dict:
    argo = profile.argocd
    destination = {"name": argo.cluster_name} if argo.cluster_name else {"server": argo.server}
    destination["namespace"] = profile.operator.namespace
    sources = [{"repoURL": argo.repo_url, "targetRevision": argo.revision, "path": profile.overlay_path}]
    if profile.operator.enabled:
        sources.insert(0, _chart_source(profile.operator.version, argo.repo_url,
                                        f"{profile.overlay_path}/{VALUES_FILE}"))
    if dra.separate_release(profile):
        sources.insert(1 if profile.operator.enabled else 0, _dra_source(profile))
    if profile.operator.enabled or profile.dra_pools:
        sources.append({"repoURL": argo.repo_url, "targetRevision": argo.revision, "ref": "values"})
    if driver_installer(profile):
        sources.append(driver_installer(profile))
    return {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Application",
        "metadata": _metadata(profile.name, argo.namespace),
        "spec": {"project": argo.project, "sources": sources, "destination": destination,
                 "syncPolicy": _sync_policy()},
    }


def cluster_params(profile: Profile) -> dict:
    """What the fleet ApplicationSet needs to know about a cluster, read by its git files generator."""
    argo = profile.argocd
    return {"cluster": {
        "name": profile.name,
        "server": argo.server or "",
        "destinationName": argo.cluster_name or "",
        "namespace": profile.operator.namespace,
        "project": argo.project,
        "operatorVersion": profile.operator.version if profile.operator.enabled else "",
        "draDriverVersion": dra.chart_version(profile) if dra.separate_release(profile) else "",
        **({"draDriverChart": dra.chart_name(profile)} if dra.separate_release(profile) else {}),
        "driverInstallerPath": (driver_installer(profile) or {}).get("path", ""),
        "driverInstallerRevision": (driver_installer(profile) or {}).get("targetRevision", ""),
    }}


_PATCH = """\
spec:
  project: '{{ .cluster.project }}'
  destination:
    {{- if .cluster.destinationName }}
    name: '{{ .cluster.destinationName }}'
    {{- else }}
    server: '{{ .cluster.server }}'
    {{- end }}
    namespace: '{{ .cluster.namespace }}'
  {{- if or .cluster.operatorVersion .cluster.draDriverVersion }}
  sources:
    {{- if .cluster.operatorVersion }}
    - repoURL: %(chart_repo)s
      chart: %(chart)s
      targetRevision: '{{ .cluster.operatorVersion }}'
      helm:
        releaseName: gpu-operator
        valueFiles:
          - '$values/{{ .path.path }}/%(values)s'
    {{- end }}
    {{- if .cluster.draDriverVersion }}
    - repoURL: %(dra_repo)s
      chart: '{{ .cluster.draDriverChart }}'
      targetRevision: '{{ .cluster.draDriverVersion }}'
      helm:
        releaseName: %(dra_release)s
        valueFiles:
          - '$values/{{ .path.path }}/%(dra_values)s'
    {{- end }}
    - repoURL: %(repo)s
      targetRevision: %(revision)s
      path: '{{ .path.path }}'
    - repoURL: %(repo)s
      targetRevision: %(revision)s
      ref: values
    {{- if .cluster.driverInstallerPath }}
    - repoURL: %(installer)s
      targetRevision: '{{ .cluster.driverInstallerRevision }}'
      path: '{{ .cluster.driverInstallerPath }}'
      directory:
        include: daemonset-preloaded.yaml
    {{- end }}
  {{- end }}
"""


def applicationset(profile: Profile) -> dict:
    """One Application per overlay folder that has a gengpu-cluster.yaml, like application() writes them."""
    argo = profile.argocd
    chart = catalog.operator()["chart"]
    return {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "ApplicationSet",
        "metadata": {"name": "gpu-clusters", "namespace": argo.namespace,
                     "labels": {"app.kubernetes.io/managed-by": "gengpu"}},
        "spec": {
            "goTemplate": True,
            "goTemplateOptions": ["missingkey=error"],
            "generators": [{"git": {
                "repoURL": argo.repo_url,
                "revision": argo.revision,
                "files": [{"path": f"{argo.overlays_dir}/*/{CLUSTER_FILE}"}],
            }}],
            "template": {
                "metadata": _metadata("{{ .cluster.name }}"),
                "spec": {
                    "project": "default",
                    "sources": [{"repoURL": argo.repo_url, "targetRevision": argo.revision,
                                 "path": "{{ .path.path }}"}],
                    "destination": {"server": "https://kubernetes.default.svc"},
                    "syncPolicy": _sync_policy(),
                },
            },
            # Destination and sources depend on each cluster's parameters (operator or not, server or name).
            "templatePatch": _PATCH % {"chart_repo": chart["repoURL"], "chart": chart["name"], "values": VALUES_FILE,
                                       "repo": argo.repo_url, "revision": argo.revision,
                                       "installer": catalog.software()["gkeDriverInstaller"]["repoURL"],
                                       "dra_repo": dra.driver_settings()["repoURL"],
                                       "dra_release": dra.RELEASE,
                                       "dra_values": dra.VALUES_FILE},
        },
    }


def root_application(profile: Profile, folder: str) -> dict:
    """App of apps: syncs the per-cluster Applications in argocd/applications into Argo CD's namespace."""
    argo = profile.argocd
    return {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Application",
        "metadata": {"name": "gpu-clusters", "namespace": argo.namespace,
                     "labels": {"app.kubernetes.io/managed-by": "gengpu"}},
        "spec": {
            "project": argo.project,
            "source": {"repoURL": argo.repo_url, "targetRevision": argo.revision, "path": folder},
            "destination": {"server": "https://kubernetes.default.svc", "namespace": argo.namespace},
            "syncPolicy": {"automated": {"prune": True, "selfHeal": True}},
        },
    }
