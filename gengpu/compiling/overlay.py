"""Assemble an overlay: relative path -> text, every file with the gengpu header."""

from __future__ import annotations

from gengpu.compiling import (argocd, check_access, dra, flux, monitoring, operator_app, placement, provisioning,
                              sharing, verify)
from gengpu.compiling.yamltext import dump, dump_all
from gengpu.headers import VERSION_ANNOTATION, header
from gengpu.model import Profile

KUSTOMIZATION = "kustomization.yaml"
MANAGED_BY = {"app.kubernetes.io/managed-by": "gengpu"}
SYNC_WAVE = operator_app.SYNC_WAVE
# Custom resources whose CRDs may arrive in the same sync (Karpenter, Prometheus Operator, GKE).
SKIP_DRY_RUN = {"argocd.argoproj.io/sync-options": "SkipDryRunOnMissingResource=true"}


def _configmap(name: str, namespace: str, data: dict) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": namespace, "annotations": {SYNC_WAVE: "-1"}},
        "data": data,
    }


def _namespace(name: str) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {
            "name": name,
            # Operator operands are privileged DaemonSets (driver, toolkit, device plugin, dcgm-exporter).
            "labels": {"pod-security.kubernetes.io/enforce": "privileged"},
            "annotations": {SYNC_WAVE: "-1"},
        },
    }


def _gke_quota(namespace: str) -> dict:
    """GKE admits system-node-critical pods outside kube-system only under a quota that names them."""
    return {
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": {"name": "gpu-operator-quota", "namespace": namespace, "annotations": {SYNC_WAVE: "-1"}},
        "spec": {
            "hard": {"pods": "100"},
            "scopeSelector": {"matchExpressions": [{
                "operator": "In",
                "scopeName": "PriorityClass",
                "values": ["system-node-critical", "system-cluster-critical"],
            }]},
        },
    }


def _annotate(docs: list[dict], wave: str) -> list[dict]:
    for doc in docs:
        annotations = doc["metadata"].setdefault("annotations", {})
        annotations[SYNC_WAVE] = wave
        if "/" in doc["apiVersion"] and doc["apiVersion"].split("/")[0] not in ("apps", "batch"):
            annotations.update(SKIP_DRY_RUN)
    return docs


def _text(top: str, docs) -> str:
    if isinstance(docs, str):  # a script: the #! line stays first
        shebang, _, rest = docs.partition("\n")
        return f"{shebang}\n{top}{rest}"
    if isinstance(docs, list):
        return top + (dump(docs[0]) if len(docs) == 1 else dump_all(docs))
    return top + dump(docs)


CHECK_ACCESS = "gengpu-check-rbac.yaml"  # the read-only identity of `gengpu snapshot` and `gengpu check`
LOCAL_COMPONENT = "local"  # the user's extension point: overlays/<name>/local/, a Kustomize Component


def compile_overlay(profile: Profile, local_component: bool = False) -> dict[str, str]:
    """local_component: the overlay folder has a local/ Component of the user's, which the kustomization includes."""
    top = header(profile.source)
    resources: dict[str, object] = {}
    addons: list[str] = []  # files of other projects' custom resources: Argo CD's wave 1, Flux's last stage
    ns = profile.operator.namespace
    if profile.operator.enabled or profile.dra_pools:  # the DRA driver installs into the same namespace
        resources["namespace.yaml"] = _namespace(ns)
        if profile.platform == "gke":
            resources["resource-quota.yaml"] = _gke_quota(ns)
    if profile.cluster_policy:  # a GPUCluster runs no device plugin or MIG manager to read them
        configs = sharing.device_plugin_configs(profile)
        resources["device-plugin-config.yaml"] = _configmap(
            sharing.DEVICE_PLUGIN_CONFIGMAP, ns, {key: dump(cfg) for key, cfg in configs.items()})
        if sharing.mig_pools(profile):
            resources["mig-parted-config.yaml"] = _configmap(
                sharing.MIG_PARTED_CONFIGMAP, ns, {"config.yaml": dump(sharing.mig_parted_config(profile))})
    for fname, docs in [*provisioning.kubernetes_objects(profile).items(),
                        *monitoring.kubernetes_objects(profile).items()]:
        resources[fname] = _annotate(docs, "1")
        addons.append(fname)
    if profile.operator.enabled or profile.dra_pools:  # a namespace of gengpu's to hold the reader
        resources[CHECK_ACCESS] = check_access.objects(profile)
    kustomization = {
        "apiVersion": "kustomize.config.k8s.io/v1beta1",
        "kind": "Kustomization",
        "metadata": {
            "name": profile.name,
            "annotations": {VERSION_ANNOTATION: profile.kubernetes_version},
        },
        "labels": [{"pairs": MANAGED_BY, "includeSelectors": False}],
        "resources": list(resources),
    }
    if local_component:
        kustomization["components"] = [LOCAL_COMPONENT]
    files = {KUSTOMIZATION: _text(top, kustomization)}
    files.update({name: _text(top, docs) for name, docs in resources.items()})
    if profile.operator.enabled:
        files[operator_app.VALUES_FILE] = _text(top, operator_app.helm_values(profile))
    if dra.separate_release(profile):
        files[dra.VALUES_FILE] = _text(top, dra.helm_values(profile))
    if profile.gitops == "flux":
        stages = {flux.CONFIGS: [f for f in resources if f not in addons], flux.ADDONS: addons}
        files.update({name: _text(top, docs) for name, docs in flux.files(profile, stages, local_component).items()})
    else:  # the fleet ApplicationSet's parameters: only for clusters Argo CD syncs
        files[argocd.CLUSTER_FILE] = _text(top, argocd.cluster_params(profile))
    for name, content in provisioning.side_files(profile).items():
        files[name] = _text(top, content)
    for name, doc in placement.components(profile).items():
        files[name] = _text(top, doc)
    for pool in profile.node_pools:
        if pool.verify:
            files.update({name: _text(top, doc) for name, doc in verify.files(profile, pool).items()})
    return dict(sorted(files.items()))


def compile_argocd(names: list[str], first: Profile | None, built: list[Profile]) -> dict[str, str]:
    """argocd/: an Application per built cluster and, given every profile's name, their kustomization, the root
    app-of-apps and the fleet ApplicationSet; these take their repository settings from the first profile by name.
    """
    files = {}
    for profile in built:
        files[f"applications/{profile.name}.yaml"] = _text(header(profile.source), argocd.application(profile))
    if names and first is not None:
        top = header(f"{len(names)} profile(s) in {first.source.rsplit('/', 1)[0]}")
        files["applications/kustomization.yaml"] = _text(top, {
            "apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization",
            "resources": [f"{name}.yaml" for name in sorted(names)]})
        files["root-application.yaml"] = _text(top, argocd.root_application(first, "argocd/applications"))
        files["applicationset.yaml"] = _text(top, argocd.applicationset(first))
    return dict(sorted(files.items()))
