"""Per pool, a Kustomize Component an application overlay includes to run on that pool.

It adds to every Deployment, StatefulSet, Job, ReplicaSet and CronJob of the including
overlay what it needs to land on the pool's nodes, and nothing else: node selector labels
(merged into the pod's own nodeSelector) and a toleration per pool taint (merged by key
into the pod's own tolerations). Containers keep their own resources: a workload asks for
its GPUs itself, and the rules check that the request fits the pool.
"""

from __future__ import annotations

from gengpu import catalog
from gengpu.cluster import mig_layout, pool_offers
from gengpu.compiling import dra, nodes
from gengpu.model import NodePool, Profile

POD_KINDS = "Deployment|StatefulSet|Job|ReplicaSet"
LOCAL_CONFIG = {"config.kubernetes.io/local-config": "true"}
POOL_ANNOTATION = "gengpu.dev/pool"


def component_names(profile: Profile, pool: NodePool) -> list[tuple[str, str]]:
    """(component folder, resource) per resource the pool advertises; MIG resources name their profile.

    A DRA pool has one component per slice type, and its "resource" is the device class the claim asks for.
    """
    if pool.dra:
        return [(s.name, s.device_class) for s in dra.slices(pool)]
    offers = pool_offers(profile, pool).offers
    if len(offers) == 1 and not offers[0].resource.startswith("nvidia.com/mig-"):
        return [(pool.name, offers[0].resource)]
    # (a per-GPU layout's whole GPUs, nvidia.com/gpu beside the MIG devices: the pool's -gpu component)
    return [(f"{pool.name}-{o.resource.removeprefix('nvidia.com/mig-') if o.resource != 'nvidia.com/gpu' else 'gpu'}",
             o.resource) for o in offers]


def _gke_native_selectors(profile: Profile, pool: NodePool) -> dict:
    """GKE's own GPU sharing is asked for by the pod (Autopilot, or GKE Standard without the operator)."""
    s = pool.sharing
    if s.mode == "time-slicing":
        return {"cloud.google.com/gke-gpu-sharing-strategy": "time-sharing",
                "cloud.google.com/gke-max-shared-clients-per-gpu": str(s.replicas)}
    if s.mode == "mps":
        return {"cloud.google.com/gke-gpu-sharing-strategy": "mps",
                "cloud.google.com/gke-max-shared-clients-per-gpu": str(s.replicas)}
    if s.mig_replicas > 1:  # time-shared MIG partitions
        return {"cloud.google.com/gke-gpu-sharing-strategy": "time-sharing",
                "cloud.google.com/gke-max-shared-clients-per-gpu": str(s.mig_replicas)}
    return {}


def node_selector(profile: Profile, pool: NodePool, resource: str) -> dict:
    """Labels only the pool's nodes carry (a map, so the pod's own selector labels stay)."""
    gke_native = profile.platform in ("gke", "gke-autopilot") and not profile.operator.enabled
    if profile.platform == "gke-autopilot":
        # Autopilot has no pools of ours: the accelerator, its count per node and spot choose the machine.
        selector = {"cloud.google.com/gke-accelerator": catalog.gke_accelerator(pool.gpu_id) or pool.gpus[0]}
        if pool.gpus_per_node:
            selector["cloud.google.com/gke-accelerator-count"] = str(pool.gpus_per_node)
    elif profile.platform == "gke" and pool.provisioner == "node-auto-provisioning":
        # The ComputeClass carries machine type, accelerator and spot; pods only name it.
        selector = {"cloud.google.com/compute-class": pool.name}
    else:
        selector = {nodes.POOL_LABEL: pool.name}
        if profile.platform == "gke":
            selector["cloud.google.com/gke-accelerator"] = catalog.gke_accelerator(pool.gpu_id) or pool.gpus[0]
    if profile.platform in ("gke", "gke-autopilot") and pool.provisioner != "node-auto-provisioning":
        if pool.capacity_types == ("spot",):
            selector["cloud.google.com/gke-spot"] = "true"
    if gke_native:
        if resource.startswith("nvidia.com/mig-") or (pool.sharing.mode == "mig" and pool.sharing.mig):
            size = resource.removeprefix("nvidia.com/mig-") if resource.startswith("nvidia.com/mig-") else \
                next(iter(mig_layout(pool)), None)
            if size:
                selector["cloud.google.com/gke-gpu-partition-size"] = size
        selector.update(_gke_native_selectors(profile, pool))
    return dict(sorted(selector.items()))


def tolerations(profile: Profile, pool: NodePool) -> list[dict]:
    """One toleration per taint key of the pool's nodes (several effects of one key: one that tolerates all)."""
    by_key: dict[str, list] = {}
    for t in nodes.tolerations(profile, pool):
        by_key.setdefault(t["key"], []).append(t)
    out = []
    for key, same in by_key.items():
        effects = {t.get("effect") for t in same}
        if len(same) == 1:
            out.append(same[0])
        else:  # any value of the key; its one effect, or every effect
            out.append({"key": key, "operator": "Exists", **({"effect": effects.pop()} if len(effects) == 1 else {})})
    return out


def gpu_count(profile: Profile, pool: NodePool) -> int:
    """GPUs a verification pod asks for: one, or on Autopilot the smallest count it allows for the accelerator."""
    if profile.platform != "gke-autopilot":
        return 1
    allowed = catalog.clouds()["gke"]["autopilot"]["allowedCounts"].get(catalog.gke_accelerator(pool.gpu_id) or "")
    return min(allowed) if allowed else 1


def component(profile: Profile, pool: NodePool, name: str, resource: str) -> dict[str, dict]:
    """File name -> document, for components/<name>/."""
    selector = node_selector(profile, pool, resource)
    patch = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "any", "annotations": {POOL_ANNOTATION: pool.name}},
        "spec": {"template": {"spec": {"nodeSelector": selector}}},
    }
    cronjob = {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": {"name": "any", "annotations": {POOL_ANNOTATION: pool.name}},
        "spec": {"jobTemplate": {"spec": {"template": {"spec": {"nodeSelector": selector}}}}},
    }
    wanted = tolerations(profile, pool)
    claim = {"name": dra.CLAIM, "resourceClaimTemplateName": name} if pool.dra else None
    placement = {
        "apiVersion": "gengpu.dev/v1alpha1",
        "kind": "Placement",
        "metadata": {"name": name, "annotations": LOCAL_CONFIG},
        "spec": {"pool": pool.name, **({"claim": claim} if claim else {"resource": resource}),
                 "nodeSelector": selector, "tolerations": wanted},
    }
    # A strategic merge patch would replace the pod's whole tolerations list; a replacement of the list entry with
    # the taint's key adds ours and keeps the pod's own (kustomize creates the entry when the key is missing, and
    # copies the whole object, quoting included).
    replacements = [{
        "source": {"kind": "Placement", "name": name, "fieldPath": f"spec.tolerations.{i}"},
        "targets": [
            {"select": {"kind": POD_KINDS}, "fieldPaths": [f"spec.template.spec.tolerations.[key={t['key']}]"],
             "options": {"create": True}},
            {"select": {"kind": "CronJob"},
             "fieldPaths": [f"spec.jobTemplate.spec.template.spec.tolerations.[key={t['key']}]"],
             "options": {"create": True}},
        ],
    } for i, t in enumerate(wanted)]
    files = {}
    if claim:
        # The pod's claim, merged by name like the tolerations; the container that uses the GPU names it.
        replacements.append({
            "source": {"kind": "Placement", "name": name, "fieldPath": "spec.claim"},
            "targets": [
                {"select": {"kind": POD_KINDS}, "fieldPaths": [f"spec.template.spec.resourceClaims.[name={dra.CLAIM}]"],
                 "options": {"create": True}},
                {"select": {"kind": "CronJob"},
                 "fieldPaths": [f"spec.jobTemplate.spec.template.spec.resourceClaims.[name={dra.CLAIM}]"],
                 "options": {"create": True}},
            ],
        })
        piece = next(s for s in dra.slices(pool) if s.name == name)
        files["resourceclaimtemplate.yaml"] = dra.claim_template(profile, pool, piece)
    kustomization = {
        "apiVersion": "kustomize.config.k8s.io/v1alpha1",
        "kind": "Component",
        "resources": ["placement.yaml", *files],
        "patches": [
            {"path": "pod-template.yaml", "target": {"kind": POD_KINDS}},
            {"path": "cronjob.yaml", "target": {"kind": "CronJob"}},
        ],
        **({"replacements": replacements} if replacements else {}),
    }
    return {"kustomization.yaml": kustomization, "placement.yaml": placement, "pod-template.yaml": patch,
            "cronjob.yaml": cronjob, **files}


def components(profile: Profile) -> dict[str, dict]:
    """Relative path -> document for every pool's component."""
    files = {}
    for pool in profile.node_pools:
        for name, resource in component_names(profile, pool):
            for fname, doc in component(profile, pool, name, resource).items():
                files[f"components/{name}/{fname}"] = doc
    return files
