"""Flux objects for a cluster synced by Flux (spec.gitops: flux), in the overlay's flux/ folder.

What the cluster's Flux applies (`flux/`, pointed at by a Kustomization of the cluster's bootstrap path):
  sources.yaml          the HelmRepository of NVIDIA's charts (and, on GKE, the GitRepository of Google's driver
                        installer, narrowed by `ignore` to the one manifest Argo CD's Application takes)
  kustomizations.yaml   Kustomization gpu-<name>: the overlay (namespace, sharing and MIG ConfigMaps, node pools,
                        monitoring); gpu-<name>-operator: flux/operator, after it (dependsOn), as Argo CD's sync
                        waves order them (-1 before the chart); gpu-<name>-driver-installer on GKE
  operator/             HelmReleases of the gpu-operator chart and NVIDIA's DRA driver, pinned, with the values
                        gengpu writes beside the overlay (the same dicts as gpu-operator-values.yaml and
                        dra-driver-values.yaml)

API versions are those of the Flux v2.9 controllers whose CRDs gengpu ships (schemas/crds: source-controller
v1.9.5, kustomize-controller v1.9.5, helm-controller v1.6.3).
"""

from __future__ import annotations

from gengpu import catalog
from gengpu.compiling import argocd, dra, operator_app
from gengpu.model import Profile

FOLDER = "flux"
SOURCE_API = "source.toolkit.fluxcd.io/v1"
KUSTOMIZE_API = "kustomize.toolkit.fluxcd.io/v1"
HELM_API = "helm.toolkit.fluxcd.io/v2"
NVIDIA_REPO = "nvidia"
INSTALLER_REPO = "gke-nvidia-driver-installer"


def _meta(profile: Profile, name: str) -> dict:
    return {"name": name, "namespace": profile.flux.namespace,
            "labels": {"app.kubernetes.io/managed-by": "gengpu", "gengpu.dev/cluster": profile.name}}


def sources(profile: Profile) -> list[dict]:
    out = []
    if profile.operator.enabled or profile.dra_pools:
        url = catalog.operator()["chart"]["repoURL"] if profile.operator.enabled else dra.driver_settings()["repoURL"]
        out.append({"apiVersion": SOURCE_API, "kind": "HelmRepository", "metadata": _meta(profile, NVIDIA_REPO),
                    "spec": {"url": url, "interval": "1h"}})
    installer = argocd.driver_installer(profile)
    if installer:
        # only the manifest the Argo CD Application includes (directory.include): Flux applies every file it gets
        keep = f"{installer['path']}/{installer['directory']['include']}"
        out.append({"apiVersion": SOURCE_API, "kind": "GitRepository", "metadata": _meta(profile, INSTALLER_REPO),
                    "spec": {"url": installer["repoURL"], "interval": "1h",
                             "ref": {"commit": installer["targetRevision"]}, "ignore": only(keep)}})
    return out


def only(path: str) -> str:
    """A .gitignore (Flux's `ignore`) that keeps one file: gitignore cannot bring a file back from an excluded
    folder, so each folder on the way is brought back and emptied in turn."""
    lines, prefix = ["/*"], ""
    parts = path.split("/")
    for folder in parts[:-1]:
        prefix += f"/{folder}"
        lines += [f"!{prefix}/", f"{prefix}/*"]
    lines.append(f"!/{path}")
    return "\n".join(lines) + "\n"


def _kustomization(profile: Profile, name: str, path: str, source: tuple[str, str], depends: list[str],
                   wait: bool) -> dict:
    spec = {"interval": profile.flux.interval, "path": f"./{path}", "prune": True,
            "sourceRef": {"kind": source[0], "name": source[1]}}
    if depends:
        spec["dependsOn"] = [{"name": d} for d in depends]
    if wait:
        spec["wait"] = True  # ready only when its HelmReleases are: what depends on it waits for the operator
    spec["timeout"] = "10m"
    return {"apiVersion": KUSTOMIZE_API, "kind": "Kustomization", "metadata": _meta(profile, name), "spec": spec}


def kustomizations(profile: Profile) -> list[dict]:
    repo = ("GitRepository", profile.flux.git_repository)
    base = f"gpu-{profile.name}"
    out = [_kustomization(profile, base, profile.overlay_path, repo, [], False)]
    if profile.operator.enabled or profile.dra_pools:
        out.append(_kustomization(profile, f"{base}-operator", f"{profile.overlay_path}/{FOLDER}/operator", repo,
                                  [base], True))
    installer = argocd.driver_installer(profile)
    if installer:
        out.append(_kustomization(profile, f"{base}-driver-installer", installer["path"],
                                  ("GitRepository", INSTALLER_REPO), [], False))
    return out


def _release(profile: Profile, name: str, chart: str, version: str, values: dict, depends: list[str]) -> dict:
    spec = {
        "interval": profile.flux.interval,
        "releaseName": name,
        "targetNamespace": profile.operator.namespace,
        "storageNamespace": profile.operator.namespace,
        "chart": {"spec": {"chart": chart, "version": version, "interval": "1h",
                           "sourceRef": {"kind": "HelmRepository", "name": NVIDIA_REPO}}},
        # the operator's CRDs (ClusterPolicy, NVIDIADriver) change between chart versions
        "install": {"crds": "CreateReplace", "remediation": {"retries": 3}},
        "upgrade": {"crds": "CreateReplace", "remediation": {"retries": 3}},
        "values": values,
    }
    if depends:
        spec["dependsOn"] = [{"name": d} for d in depends]
    return {"apiVersion": HELM_API, "kind": "HelmRelease", "metadata": _meta(profile, name), "spec": spec}


def releases(profile: Profile) -> dict[str, dict]:
    out = {}
    if profile.operator.enabled:
        chart = catalog.operator()["chart"]
        out["gpu-operator.yaml"] = _release(profile, "gpu-operator", chart["name"], profile.operator.version,
                                            operator_app.helm_values(profile), [])
    if profile.dra_pools:
        out["dra-driver.yaml"] = _release(profile, dra.RELEASE, dra.driver_settings()["chart"],
                                          dra.chart_version(profile), dra.helm_values(profile),
                                          ["gpu-operator"] if profile.operator.enabled else [])
    return out


def files(profile: Profile) -> dict[str, object]:
    """Relative path under the overlay -> documents (a kustomization for each folder)."""
    out: dict[str, object] = {}
    top = {"sources.yaml": sources(profile), "kustomizations.yaml": kustomizations(profile)}
    top = {k: v for k, v in top.items() if v}
    out[f"{FOLDER}/kustomization.yaml"] = {"apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization",
                                           "resources": list(top)}
    out.update({f"{FOLDER}/{k}": v for k, v in top.items()})
    helm = releases(profile)
    if helm:
        out[f"{FOLDER}/operator/kustomization.yaml"] = {"apiVersion": "kustomize.config.k8s.io/v1beta1",
                                                        "kind": "Kustomization", "resources": list(helm)}
        out.update({f"{FOLDER}/operator/{k}": v for k, v in helm.items()})
    return out
