"""Node provisioning per platform: Karpenter on EKS, node auto-provisioning on AKS and GKE, scripts for managed pools.

Every node a pool creates carries the labels that select its device-plugin and
MIG configs, so sharing follows new nodes with no manual labelling.
"""

from __future__ import annotations

from gengpu import catalog, overlay_files
from gengpu.cluster import gpu_counts, mig_layout, mig_per_node, mig_resource, nap_gpu_needs, nap_named_limits
from gengpu.compiling import nodes, own_nodes
from gengpu.compiling.pool_scripts import aks_nodepool_script, gke_gpu_sharing, gke_nodepool_script
from gengpu.model import NodePool, Profile


def _capacity(pool: NodePool) -> list[str]:
    # Spot first: Karpenter and NAP prefer the cheaper capacity when both are allowed.
    return sorted(pool.capacity_types, key=lambda c: c != "spot")


def _limits(profile: Profile, pool: NodePool) -> dict:
    """Karpenter limits. Karpenter counts a resource over its nodes' capacity: the instance type's (with the
    NodeOverlay's corrections) until a node initialises, then what the node reports. A shared or MIG pool's node
    reports slots, not GPUs, so limits.gpus GPUs become that many GPUs' worth of each resource the pool advertises;
    nvidia.com/gpu stays at limits.gpus where the pool does not advertise it (the instance type's count, before the
    device plugin renames or partitions the GPUs)."""
    limits = {}
    if "cpu" in pool.limits:
        limits["cpu"] = str(pool.limits["cpu"])
    if "memoryGiB" in pool.limits:
        limits["memory"] = f"{pool.limits['memoryGiB']}Gi"
    counts = gpu_counts(profile, pool)
    if "gpus" in pool.limits:
        gpus = pool.limits["gpus"]
        limits["nvidia.com/gpu"] = str(gpus)
        if pool.sharing.mig and pool.sharing.mig.layouts and len(counts) == 1:
            # per-GPU layouts: a node's devices differ GPU by GPU, so limits.gpus is that many nodes' worth
            for resource, per_node in shared_capacity(profile, pool, counts[0]).items():
                limits[resource] = str(gpus * int(per_node) // counts[0])
        else:
            for resource, per_gpu in shared_capacity(profile, pool, 1).items():
                limits[resource] = str(gpus * int(per_gpu))
    nodes_max = pool.limits.get("nodes")
    if "gpus" in pool.limits and profile.platform != "eks" and len(counts) == 1 and \
            "nvidia.com/gpu" in shared_capacity(profile, pool, 1):
        # No NodeOverlay tells Karpenter a starting node's slots: until it initialises it counts as its GPUs, so
        # a burst could launch replicas times the limit. A node limit holds at every stage.
        by_gpus = pool.limits["gpus"] // counts[0]
        nodes_max = by_gpus if nodes_max is None else min(nodes_max, by_gpus)
    if nodes_max is not None:
        limits["nodes"] = str(nodes_max)
    return limits


# Karpenter replaces a drifted node (its template changed) or consolidates an underused one within the budgets:
# one GPU node at a time, so a merge never takes a pool's whole capacity at once. Empty nodes have no budget here
# (no reason listed): they go as soon as consolidateAfter allows.
DISRUPTION_BUDGETS = [{"nodes": "1", "reasons": ["Drifted", "Underutilized"]}]


def _disruption(pool: NodePool) -> dict:
    return {"consolidationPolicy": pool.consolidation_policy, "consolidateAfter": pool.consolidate_after,
            "budgets": DISRUPTION_BUDGETS}


def _nodepool(profile: Profile, name: str, labels: dict, class_ref: dict, requirements: list, pool: NodePool) -> dict:
    spec = {
        "template": {
            "metadata": {"labels": labels},
            "spec": {
                "nodeClassRef": class_ref,
                "requirements": requirements,
                "expireAfter": "720h",
            },
        },
        "disruption": _disruption(pool),
    }
    if pool.taints:
        spec["template"]["spec"]["taints"] = nodes.taint_dicts(pool)
    if _limits(profile, pool):
        spec["limits"] = _limits(profile, pool)
    if pool.weight:
        spec["weight"] = pool.weight
    return {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": name}, "spec": spec}


def _req(key: str, values) -> dict:
    return {"key": key, "operator": "In", "values": [str(v) for v in values]}


def shared_capacity(profile: Profile, pool: NodePool, gpus: int) -> dict:
    """Extended resources one node of the pool really offers, once sharing or MIG applies."""
    s = pool.sharing
    if pool.dra:
        return {}  # DRA nodes advertise no extended resource to correct
    if s.mode in ("time-slicing", "mps"):
        name = "nvidia.com/gpu.shared" if s.rename_by_default else "nvidia.com/gpu"
        return {name: str(gpus * s.replicas)}
    if s.mode == "mig" and s.mig:
        layout, ways = mig_layout(pool), s.mig_replicas  # (a time-sliced MIG device is offered once per replica)
        if s.mig.strategy == "single":
            return {"nvidia.com/gpu": str(gpus * sum(layout.values()) * ways)}
        devices, whole = mig_per_node(pool, gpus)  # (per GPU: the GPUs left whole are offered as nvidia.com/gpu)
        return {**{mig_resource(p): str(c * ways) for p, c in devices.items()},
                **({"nvidia.com/gpu": str(whole)} if whole else {})}
    return {}


def eks_karpenter(profile: Profile, pool: NodePool) -> list[dict]:
    eks = profile.eks
    cluster = eks.get("clusterName", profile.name)
    families, types = nodes.eks_split(pool)
    requirements = []
    if families:
        requirements.append(_req("karpenter.k8s.aws/instance-family", families))
    if types:
        requirements.append(_req("node.kubernetes.io/instance-type", types))
    gpu_names = sorted({(catalog.instance_type("eks", t) or {}).get("gpuName") for t in pool.instance_types} - {None})
    if gpu_names:
        requirements.append(_req("karpenter.k8s.aws/instance-gpu-name", gpu_names))
    if pool.gpus_per_node:
        requirements.append(_req("karpenter.k8s.aws/instance-gpu-count", [pool.gpus_per_node]))
    requirements.append(_req("karpenter.sh/capacity-type", _capacity(pool)))
    arches = sorted({(catalog.instance_type("eks", t) or {}).get("arch") for t in pool.instance_types} - {None})
    requirements.append(_req("kubernetes.io/arch", arches or ["amd64"]))
    if profile.zones:
        requirements.append(_req("topology.kubernetes.io/zone", profile.zones))
    nodepool = _nodepool(profile, pool.name, nodes.node_labels(profile, pool),
                         {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": pool.name}, requirements, pool)
    discovery = [{"tags": {"karpenter.sh/discovery": cluster}}]
    nodeclass = {
        "apiVersion": "karpenter.k8s.aws/v1",
        "kind": "EC2NodeClass",
        "metadata": {"name": pool.name},
        "spec": {
            # A pinned AL2023 alias: Karpenter gives GPU instances the NVIDIA variant (driver + toolkit).
            "amiSelectorTerms": [{"alias": profile.ami_alias}],
            "role": eks.get("nodeRole", f"KarpenterNodeRole-{cluster}"),
            "subnetSelectorTerms": discovery,
            "securityGroupSelectorTerms": discovery,
            "blockDeviceMappings": [{
                "deviceName": "/dev/xvda",
                "ebs": {"volumeSize": f"{eks.get('volumeSizeGi', 100)}Gi", "volumeType": "gp3", "encrypted": True},
            }],
            **({"kubelet": dict(sorted(pool.kubelet.items()))} if pool.kubelet else {}),
        },
    }
    docs = [nodepool, nodeclass]
    for gpus in gpu_counts(profile, pool):
        capacity = shared_capacity(profile, pool, gpus)
        if not capacity:
            continue
        overlay_reqs = [r for r in requirements if r["key"] in (
            "karpenter.k8s.aws/instance-family", "node.kubernetes.io/instance-type")]
        overlay_reqs.append(_req("karpenter.k8s.aws/instance-gpu-count", [gpus]))
        # only this pool's nodes share their GPUs: another pool launching the same type keeps its real capacity
        overlay_reqs.insert(0, _req("karpenter.sh/nodepool", [pool.name]))
        docs.append({
            "apiVersion": "karpenter.sh/v1alpha1",
            "kind": "NodeOverlay",
            "metadata": {"name": f"{pool.name}-{gpus}gpu"},
            "spec": {"requirements": overlay_reqs, "capacity": capacity, "weight": 10},
        })
    return docs


def aks_node_auto_provisioning(profile: Profile, pool: NodePool) -> list[dict]:
    aks = profile.aks
    requirements = [
        _req("karpenter.azure.com/sku-name", pool.instance_types),
        _req("karpenter.sh/capacity-type", _capacity(pool)),
    ]
    if profile.zones:
        requirements.append(_req("topology.kubernetes.io/zone", [f"{profile.region}-{z}" for z in profile.zones]))
    nodepool = _nodepool(profile, pool.name, nodes.node_labels(profile, pool),
                         {"group": "karpenter.azure.com", "kind": "AKSNodeClass", "name": pool.name}, requirements, pool)
    nodeclass = {
        "apiVersion": "karpenter.azure.com/v1beta1",
        "kind": "AKSNodeClass",
        "metadata": {"name": pool.name},
        "spec": {
            # Ubuntu follows the Kubernetes version (22.04 to 1.34, 24.04 from 1.35): a pinned 22.04 would outlive it
            "imageFamily": aks.get("imageFamily", "Ubuntu"),
            # None leaves the driver to the GPU Operator; Driver lets AKS install it.
            "gpu": {"mode": "None" if profile.owns("driver") else "Driver"},
            "osDiskSizeGB": aks.get("osDiskSizeGB", 128),
        },
    }
    if profile.aks_managed_gpu:
        # The AKSNodeClass has no field for it: AKS's node bootstrap reads this VM tag (aks-managed-gpu-nodes.md, "Node
        # Auto Provisioning node pool"; AgentBaker cse_helpers.sh get_imds_vm_tag_value EnableManagedGPUExperience).
        nodeclass["spec"]["tags"] = {"EnableManagedGPUExperience": "true"}
    return [nodepool, nodeclass]


def gke_compute_class(profile: Profile, pool: NodePool) -> dict:
    priorities = []
    for machine in pool.instance_types:
        spec = catalog.instance_type(profile.platform, machine) or {}
        accelerator = catalog.gke_accelerator(pool.gpu_id, machine) if pool.gpu_id else None
        count = pool.gpus_per_node or spec.get("gpus", 1)
        for capacity in _capacity(pool):
            entry = {"machineType": machine, "spot": capacity == "spot"}
            if accelerator:
                entry["gpu"] = {"type": accelerator, "count": count, "driverVersion": "default"}
                sharing = gke_gpu_sharing(profile, pool)
                if sharing:
                    entry["gpu"]["gpuSharing"] = sharing
            priorities.append(entry)
    config = {"nodeLabels": nodes.node_labels(profile, pool)}
    if pool.taints:
        config["taints"] = nodes.taint_dicts(pool)
    return {
        "apiVersion": "cloud.google.com/v1",
        "kind": "ComputeClass",
        "metadata": {"name": pool.name},
        "spec": {
            "description": f"gengpu pool {pool.name}: {', '.join(pool.gpus)}, {' then '.join(_capacity(pool))}",
            "priorities": priorities,
            "nodePoolAutoCreation": {"enabled": True},
            "nodePoolConfig": config,
            "whenUnsatisfiable": "DoNotScaleUp",
        },
    }


def gke_autoprovisioning(profile: Profile) -> dict | None:
    """The --autoprovisioning-config-file of `gcloud container clusters update`, with only its documented keys."""
    conf = profile.gke.get("autoprovisioning")
    nap_pools = [p for p in profile.node_pools if p.provisioner == "node-auto-provisioning"]
    if conf is None and not nap_pools:
        return None
    conf = conf or {}
    limits = []
    for resource, key in (("cpu", "cpu"), ("memory", "memoryGb")):
        if key in conf:
            limits.append({"resourceType": resource, "minimum": conf[key].get("minimum", 0),
                           "maximum": conf[key]["maximum"]})
    gpus = {accelerator: maximum for accelerator, (_, maximum) in nap_named_limits(profile).items()}
    # Pools on one accelerator share its cluster-wide limit: the sum of theirs, unless the profile names one
    # (rules refuse a named limit below that sum, and pools with no limit at all).
    for accelerator, (total, _, _) in nap_gpu_needs(profile).items():
        if accelerator not in gpus and total:
            gpus[accelerator] = total
    limits += [{"resourceType": acc, "minimum": 0, "maximum": maximum} for acc, maximum in gpus.items()]
    out = {"resourceLimits": limits}
    if profile.zones:
        out["autoprovisioningLocations"] = list(profile.zones)
    out["management"] = {"autoRepair": conf.get("autoRepair", True), "autoUpgrade": conf.get("autoUpgrade", True)}
    out["shieldedInstanceConfig"] = {"enableSecureBoot": conf.get("secureBoot", True),
                                     "enableIntegrityMonitoring": conf.get("integrityMonitoring", True)}
    out["diskSizeGb"] = conf.get("diskSizeGb", 100)
    for key in ("diskType", "imageType"):
        if key in conf:
            out[key] = conf[key]
    return out


def kubernetes_objects(profile: Profile) -> dict[str, list[dict]]:
    """File name -> provisioning objects that go into the kustomization."""
    files = {}
    for pool in profile.node_pools:
        if profile.platform == "eks" and pool.provisioner == "karpenter":
            files[f"nodepool-{pool.name}.yaml"] = eks_karpenter(profile, pool)
        elif profile.platform == "aks" and pool.provisioner == "node-auto-provisioning":
            files[f"nodepool-{pool.name}.yaml"] = aks_node_auto_provisioning(profile, pool)
        elif profile.platform == "gke" and pool.provisioner == "node-auto-provisioning":
            files[f"computeclass-{pool.name}.yaml"] = [gke_compute_class(profile, pool)]
    return files


def side_files(profile: Profile) -> dict[str, object]:
    """Files beside the overlay, outside the kustomization: scripts and cloud CLI configs."""
    files: dict[str, object] = {}
    if profile.platform == "kubernetes":
        for pool in profile.node_pools:
            files[f"label-nodes-{pool.name}.sh"] = own_nodes.label_script(profile, pool)
    if profile.platform == "aks":
        for pool in profile.node_pools:
            if pool.provisioner == "managed":
                files[f"aks-nodepool-{pool.name}.sh"] = aks_nodepool_script(profile, pool)
    if profile.platform == "gke":
        for pool in profile.node_pools:
            if pool.provisioner == "managed":
                files[f"gke-nodepool-{pool.name}.sh"] = gke_nodepool_script(profile, pool)
        nap = gke_autoprovisioning(profile)
        if nap:
            files[overlay_files.GKE_AUTOPROVISIONING] = nap
    return files
