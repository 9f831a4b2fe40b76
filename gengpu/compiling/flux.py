"""Flux objects for a cluster synced by Flux (spec.gitops: flux), in the overlay's flux/ folder.

What the cluster's Flux applies (`flux/`, pointed at by a Kustomization of the cluster's bootstrap path):
  sources.yaml          the HelmRepository of NVIDIA's charts (and, on GKE, the GitRepository of Google's driver
                        installer, narrowed by `ignore` to the one manifest Argo CD's Application takes)
  kustomizations.yaml   three stages, as Argo CD's sync waves order the Application (-1, 0, 1):
                          gpu-<name>          flux/configs: what the chart needs (namespace, sharing and MIG
                                              ConfigMaps, gengpu's read-only check access)
                          gpu-<name>-operator flux/operator, after it: the HelmReleases, waited for
                          gpu-<name>-addons   flux/addons, after the operator: objects of other projects' CRDs
                                              (Karpenter, Prometheus Operator, GKE ComputeClasses)
                        and gpu-<name>-driver-installer on GKE. kustomize-controller dry-runs a Kustomization's
                        objects on the server before it applies any: one missing CRD holds back everything in
                        the same Kustomization, so nothing the operator needs may share one with a custom resource.
  configs/, addons/     kustomizations listing the overlay's files of each stage (`../../<file>`: Flux builds with
                        kustomize's load restrictions off, inside the repository)
  operator/             HelmReleases of the gpu-operator chart and NVIDIA's DRA driver, pinned, with the values
                        gengpu writes beside the overlay (the same dicts as gpu-operator-values.yaml and
                        dra-driver-values.yaml)

API versions are those of the Flux controllers whose CRDs gengpu ships (schemas/crds: source-controller
v1.10.1, kustomize-controller v1.10.1, helm-controller v1.6.3).
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


CONFIGS, OPERATOR, ADDONS = "configs", "operator", "addons"


def _kustomization(profile: Profile, name: str, path: str, source: tuple[str, str], depends: list[dict],
                   wait: bool) -> dict:
    spec = {"interval": profile.flux.interval, "retryInterval": profile.flux.retry_interval, "path": f"./{path}",
            "prune": True, "sourceRef": {"kind": source[0], "name": source[1]}}
    if depends:
        spec["dependsOn"] = depends
    if wait:
        spec["wait"] = True  # ready only when what it applied is: what depends on it waits for that
    spec["timeout"] = "10m"
    if profile.flux.service_account:
        spec["serviceAccountName"] = profile.flux.service_account
    return {"apiVersion": KUSTOMIZE_API, "kind": "Kustomization", "metadata": _meta(profile, name), "spec": spec}


def _after(*names: str) -> list[dict]:
    return [{"name": n} for n in names]


def stage_folders(stages: dict[str, list[str]], local_component: bool) -> dict[str, list[str]]:
    """The stages that get a folder (a stage with no files gets none), and so a Kustomization. The user's local/
    Component joins the first: it may add objects or patch the namespace and ConfigMaps."""
    out = {stage: files for stage in (CONFIGS, ADDONS) if (files := stages.get(stage))}
    if not out:
        out[CONFIGS] = []  # the local/ Component's stage, or nothing the cluster needs yet
    return out


def kustomizations(profile: Profile, stages: dict[str, list[str]]) -> list[dict]:
    """stages: stage_folders(), the overlay's files of the configs and addons stages."""
    repo = ("GitRepository", profile.flux.git_repository)
    base = f"gpu-{profile.name}"
    folder = f"{profile.overlay_path}/{FOLDER}"
    out, last = [], []
    if CONFIGS in stages:
        out.append(_kustomization(profile, base, f"{folder}/{CONFIGS}", repo, [], True))
        last = _after(base)
    if profile.operator.enabled or profile.dra_pools:
        out.append(_kustomization(profile, f"{base}-operator", f"{folder}/{OPERATOR}", repo, last, True))
        last = _after(f"{base}-operator")
    if ADDONS in stages:
        external = [{"name": n, **({"namespace": ns} if ns else {})} for n, ns in profile.flux.depends_on]
        out.append(_kustomization(profile, f"{base}-addons", f"{folder}/{ADDONS}", repo, last + external, True))
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
    if profile.flux.drift_detection:
        spec["driftDetection"] = {"mode": profile.flux.drift_detection}
    if profile.flux.service_account:
        spec["serviceAccountName"] = profile.flux.service_account
    return {"apiVersion": HELM_API, "kind": "HelmRelease", "metadata": _meta(profile, name), "spec": spec}


def releases(profile: Profile) -> dict[str, dict]:
    out = {}
    if profile.operator.enabled:
        chart = catalog.operator()["chart"]
        out["gpu-operator.yaml"] = _release(profile, "gpu-operator", chart["name"], profile.operator.version,
                                            operator_app.helm_values(profile), [])
    if dra.separate_release(profile):
        out["dra-driver.yaml"] = _release(profile, dra.RELEASE, dra.chart_name(profile),
                                          dra.chart_version(profile), dra.helm_values(profile),
                                          ["gpu-operator"] if profile.operator.enabled else [])
    return out


def _stage(files: list[str], local_component: bool) -> dict:
    out = {"apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization",
           "labels": [{"pairs": {"app.kubernetes.io/managed-by": "gengpu"}, "includeSelectors": False}],
           "resources": [f"../../{f}" for f in files]}
    if local_component:
        out["components"] = ["../../local"]
    return out


def files(profile: Profile, stages: dict[str, list[str]], local_component: bool = False) -> dict[str, object]:
    """Relative path under the overlay -> documents (a kustomization for each folder). stages: the overlay's
    files of the configs and addons stages; local_component: the overlay has the user's local/ Component."""
    out: dict[str, object] = {}
    folders = stage_folders(stages, local_component)
    top = {"sources.yaml": sources(profile), "kustomizations.yaml": kustomizations(profile, folders)}
    top = {k: v for k, v in top.items() if v}
    out[f"{FOLDER}/kustomization.yaml"] = {"apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization",
                                           "resources": list(top)}
    out.update({f"{FOLDER}/{k}": v for k, v in top.items()})
    for i, (stage, listed) in enumerate(folders.items()):
        out[f"{FOLDER}/{stage}/kustomization.yaml"] = _stage(listed, local_component and i == 0)
    helm = releases(profile)
    if helm:
        out[f"{FOLDER}/{OPERATOR}/kustomization.yaml"] = {"apiVersion": "kustomize.config.k8s.io/v1beta1",
                                                          "kind": "Kustomization", "resources": list(helm)}
        out.update({f"{FOLDER}/{OPERATOR}/{k}": v for k, v in helm.items()})
    return out
