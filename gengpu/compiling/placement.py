"""Per pool, a Kustomize Component an application overlay includes to run on that pool.

It gives every Deployment, StatefulSet, Job and CronJob of the including overlay
the pool's tolerations, a node affinity (or, on GKE, selectors) that only the
pool's nodes satisfy, and the pool's GPU resource in the first container's limits.
"""

from __future__ import annotations

from gengpu import catalog
from gengpu.cluster import pool_offers
from gengpu.compiling import nodes
from gengpu.model import NodePool, Profile

POD_KINDS = "Deployment|StatefulSet|Job|ReplicaSet"
LOCAL_CONFIG = {"config.kubernetes.io/local-config": "true"}
POOL_ANNOTATION = "gengpu.dev/pool"


def component_names(profile: Profile, pool: NodePool) -> list[tuple[str, str]]:
    """(component folder, resource) per resource the pool advertises."""
    offers = pool_offers(profile, pool).offers
    if len(offers) == 1:
        return [(pool.name, offers[0].resource)]
    return [(f"{pool.name}-{o.resource.removeprefix('nvidia.com/mig-')}", o.resource) for o in offers]


def _gke_native_selectors(profile: Profile, pool: NodePool) -> dict:
    """GKE's own GPU sharing is asked for by the pod (Autopilot, or GKE Standard without the operator)."""
    s = pool.sharing
    if s.mode == "time-slicing":
        return {"cloud.google.com/gke-gpu-sharing-strategy": "time-sharing",
                "cloud.google.com/gke-max-shared-clients-per-gpu": str(s.replicas)}
    if s.mode == "mps":
        return {"cloud.google.com/gke-gpu-sharing-strategy": "mps",
                "cloud.google.com/gke-max-shared-clients-per-gpu": str(s.replicas)}
    return {}


def pod_spec(profile: Profile, pool: NodePool, resource: str) -> dict:
    spec: dict = {}
    tolerations = nodes.tolerations(profile, pool)
    if tolerations:
        spec["tolerations"] = tolerations
    gke_native = profile.platform in ("gke", "gke-autopilot") and not profile.operator.enabled
    if profile.platform == "gke-autopilot" or (profile.platform == "gke" and gke_native and
                                               pool.provisioner != "node-auto-provisioning"):
        selector = {"cloud.google.com/gke-accelerator": catalog.gke_accelerator(pool.gpu_id) or pool.gpus[0]}
        if pool.capacity_types == ("spot",):
            selector["cloud.google.com/gke-spot"] = "true"
        if resource.startswith("nvidia.com/mig-"):
            selector["cloud.google.com/gke-gpu-partition-size"] = resource.removeprefix("nvidia.com/mig-")
        selector.update(_gke_native_selectors(profile, pool))
        spec["nodeSelector"] = selector
        return spec
    if profile.platform == "gke" and pool.provisioner == "node-auto-provisioning":
        # The ComputeClass carries machine type, accelerator and spot; pods only name it (and GKE's own sharing).
        spec["nodeSelector"] = {"cloud.google.com/compute-class": pool.name,
                                **(_gke_native_selectors(profile, pool) if gke_native else {})}
        return spec
    expressions = [{"key": nodes.POOL_LABEL, "operator": "In", "values": [pool.name]}]
    if profile.platform == "eks" and pool.provisioner == "karpenter":
        families, _ = nodes.eks_split(pool)
        expressions.append({"key": "karpenter.sh/capacity-type", "operator": "In",
                            "values": sorted(pool.capacity_types, key=lambda c: c != "spot")})
        if families:
            expressions.append({"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": families})
    if profile.platform == "gke":
        accelerator = catalog.gke_accelerator(pool.gpu_id) if pool.gpu_id else None
        if accelerator:
            expressions.append({"key": "cloud.google.com/gke-accelerator", "operator": "In", "values": [accelerator]})
        if pool.capacity_types == ("spot",):
            expressions.append({"key": "cloud.google.com/gke-spot", "operator": "In", "values": ["true"]})
    spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": expressions}]}}}
    return spec


def gpu_count(profile: Profile, pool: NodePool) -> int:
    """GPUs the component asks for: one, or on Autopilot the smallest count it allows for the accelerator."""
    if profile.platform != "gke-autopilot":
        return 1
    allowed = catalog.clouds()["gke"]["autopilot"]["allowedCounts"].get(catalog.gke_accelerator(pool.gpu_id) or "")
    return min(allowed) if allowed else 1


def component(profile: Profile, pool: NodePool, name: str, resource: str) -> dict[str, dict]:
    """File name -> document, for components/<name>/."""
    patch = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "any", "annotations": {POOL_ANNOTATION: pool.name}},
        "spec": {"template": {"spec": pod_spec(profile, pool, resource)}},
    }
    cronjob = {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": {"name": "any", "annotations": {POOL_ANNOTATION: pool.name}},
        "spec": {"jobTemplate": {"spec": {"template": {"spec": pod_spec(profile, pool, resource)}}}},
    }
    placement = {
        "apiVersion": "gengpu.dev/v1alpha1",
        "kind": "Placement",
        "metadata": {"name": name, "annotations": LOCAL_CONFIG},
        "spec": {"pool": pool.name, "resource": resource, "count": str(gpu_count(profile, pool))},
    }
    limit = f"resources.limits.[{resource}]"
    kustomization = {
        "apiVersion": "kustomize.config.k8s.io/v1alpha1",
        "kind": "Component",
        "resources": ["placement.yaml"],
        "patches": [
            {"path": "pod-template.yaml", "target": {"kind": POD_KINDS}},
            {"path": "cronjob.yaml", "target": {"kind": "CronJob"}},
        ],
        "replacements": [{
            "source": {"kind": "Placement", "name": name, "fieldPath": "spec.count"},
            "targets": [
                {"select": {"kind": POD_KINDS}, "fieldPaths": [f"spec.template.spec.containers.0.{limit}"],
                 "options": {"create": True}},
                {"select": {"kind": "CronJob"},
                 "fieldPaths": [f"spec.jobTemplate.spec.template.spec.containers.0.{limit}"],
                 "options": {"create": True}},
            ],
        }],
    }
    return {"kustomization.yaml": kustomization, "placement.yaml": placement, "pod-template.yaml": patch,
            "cronjob.yaml": cronjob}


def components(profile: Profile) -> dict[str, dict]:
    """Relative path -> document for every pool's component."""
    files = {}
    for pool in profile.node_pools:
        for name, resource in component_names(profile, pool):
            for fname, doc in component(profile, pool, name, resource).items():
                files[f"components/{name}/{fname}"] = doc
    return files
