"""Assemble an overlay: file name -> text, every file with the gengpu header."""

from __future__ import annotations

from gengpu.compiling import operator_app, sharing
from gengpu.compiling.yamltext import dump, header
from gengpu.model import Profile

KUSTOMIZATION = "kustomization.yaml"
# Tells `gengpu validate` which Kubernetes schemas the rendered overlay is checked against.
VERSION_ANNOTATION = "gengpu.dev/kubernetes-version"
MANAGED_BY = {"app.kubernetes.io/managed-by": "gengpu"}


def _configmap(name: str, namespace: str, data: dict) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": namespace, "annotations": {operator_app.SYNC_WAVE: "-1"}},
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
            "annotations": {operator_app.SYNC_WAVE: "-1"},
        },
    }


def _gke_quota(namespace: str) -> dict:
    """GKE admits system-node-critical pods outside kube-system only under a quota that names them."""
    return {
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": {"name": "gpu-operator-quota", "namespace": namespace, "annotations": {operator_app.SYNC_WAVE: "-1"}},
        "spec": {
            "hard": {"pods": "100"},
            "scopeSelector": {"matchExpressions": [{
                "operator": "In",
                "scopeName": "PriorityClass",
                "values": ["system-node-critical", "system-cluster-critical"],
            }]},
        },
    }


def compile_overlay(profile: Profile) -> dict[str, str]:
    top = header(profile.source)
    docs: dict[str, dict] = {}
    ns = profile.operator.namespace
    if profile.operator.enabled:
        docs["namespace.yaml"] = _namespace(ns)
        if profile.platform == "gke":
            docs["resource-quota.yaml"] = _gke_quota(ns)
        configs = sharing.device_plugin_configs(profile)
        docs["device-plugin-config.yaml"] = _configmap(
            sharing.DEVICE_PLUGIN_CONFIGMAP, ns, {key: dump(cfg) for key, cfg in configs.items()})
        if sharing.mig_pools(profile):
            docs["mig-parted-config.yaml"] = _configmap(
                sharing.MIG_PARTED_CONFIGMAP, ns, {"config.yaml": dump(sharing.mig_parted_config(profile))})
        docs["gpu-operator.yaml"] = operator_app.application(profile)
    kustomization = {
        "apiVersion": "kustomize.config.k8s.io/v1beta1",
        "kind": "Kustomization",
        "metadata": {
            "name": profile.name,
            "annotations": {VERSION_ANNOTATION: profile.kubernetes_version},
        },
        "labels": [{"pairs": MANAGED_BY, "includeSelectors": False}],
        "resources": list(docs),
    }
    files = {KUSTOMIZATION: top + dump(kustomization)}
    files.update({name: top + dump(doc) for name, doc in docs.items()})
    if profile.operator.enabled:
        files[operator_app.VALUES_FILE] = top + dump(operator_app.helm_values(profile))
    return dict(sorted(files.items()))
