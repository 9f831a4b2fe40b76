"""Snapshots of a cluster as its profile describes it when all is well, built from the profile YAML alone (not from
gengpu's code): every pool gets nodes labelled as its provisioner, GPU Feature Discovery, the device plugin and the
MIG manager label them (NVIDIA/k8s-device-plugin internal/lm, NVIDIA/mig-parted reconfigure), advertising what
the pool shares. Tests then break one thing at a time.
"""

from __future__ import annotations

import copy

import yaml

SHARED = ("time-slicing", "mps")


def plugin_config(pool: dict) -> str:
    """The device plugin's config for the pool, in its own format (k8s-device-plugin api/config/v1: sharing.timeSlicing
    or sharing.mps, resources with replicas, renameByDefault)."""
    sharing = pool.get("sharing") or {}
    config: dict = {"version": "v1"}
    if sharing.get("mode") in SHARED:
        block = {"renameByDefault": sharing.get("renameByDefault", False),
                 "resources": [{"name": "nvidia.com/gpu", "replicas": sharing["replicas"]}]}
        config["sharing"] = {"timeSlicing" if sharing["mode"] == "time-slicing" else "mps": block}
    mig = sharing.get("mig") or {}
    if sharing.get("mode") == "mig" and mig.get("replicas"):
        # time-sliced MIG devices: named as the strategy advertises them (api/config/v1 replicas.go)
        names = ["nvidia.com/gpu"] if mig.get("strategy") == "single" else \
            [f"nvidia.com/mig-{p}" for p in mig.get("layout") or {}]
        config["sharing"] = {"timeSlicing": {"resources": [{"name": n, "replicas": mig["replicas"]} for n in names]}}
    return yaml.safe_dump(config, sort_keys=False)


def advertised(pool: dict, gpus: int) -> dict[str, int]:
    sharing = pool.get("sharing") or {}
    mode = sharing.get("mode", "none")
    if pool.get("allocation") == "dra":
        return {}
    if mode in SHARED:
        name = "nvidia.com/gpu.shared" if sharing.get("renameByDefault") else "nvidia.com/gpu"
        return {name: gpus * sharing["replicas"]}
    if mode == "mig":
        mig = sharing.get("mig") or {}
        layout = mig.get("layout") or {}
        ways = mig.get("replicas") or 1  # (a time-sliced device is offered once per replica)
        if mig.get("layouts"):
            # per GPU: each entry's devices on the GPUs it names, the whole GPUs as nvidia.com/gpu (mixed strategy)
            out: dict[str, int] = {}
            for entry in mig["layouts"]:
                on_node = len([i for i in entry["gpus"] if i < gpus])
                for p, n in ({"gpu": 1} if entry.get("whole") else entry["layout"]).items():
                    name = "nvidia.com/gpu" if entry.get("whole") else f"nvidia.com/mig-{p}"
                    out[name] = out.get(name, 0) + n * on_node * (1 if entry.get("whole") else ways)
            return out
        if mig.get("strategy") == "single":
            return {"nvidia.com/gpu": gpus * sum(layout.values()) * ways}
        return {f"nvidia.com/mig-{p}": gpus * n * ways for p, n in layout.items()}
    return {"nvidia.com/gpu": gpus}


def node(profile: dict, pool: dict, index: int, gpus: int = 1, product: str = "NVIDIA-L4") -> dict:
    spec = profile["spec"]
    sharing = pool.get("sharing") or {}
    mode = sharing.get("mode", "none")
    labels = {"gengpu.dev/pool": pool["name"], "nvidia.com/gpu.present": "true", "nvidia.com/gpu.count": str(gpus),
              "kubernetes.io/hostname": f"{pool['name']}-{index}",
              "nvidia.com/cuda.driver-version.full": "580.95.05"}
    if pool.get("provisioner") == "karpenter":
        labels["karpenter.sh/nodepool"] = pool["name"]
    operator = (spec.get("operator") or {}).get("enabled", True) and spec["platform"] != "gke-autopilot"
    if pool.get("allocation") == "dra":
        labels["nvidia.com/dra-kubelet-plugin"] = "true"
    elif operator:
        labels["nvidia.com/device-plugin.config"] = pool["name"]
    if mode == "mig" and operator:
        labels.update({"nvidia.com/mig.config": pool["name"], "nvidia.com/mig.config.state": "success"})
    mig = sharing.get("mig") or {}
    if mode == "mig" and mig.get("strategy") == "single":
        # GFD's single strategy labels nvidia.com/gpu.* with the MIG device's values: count is the node's MIG
        # devices, product <model>-MIG-<profile> (k8s-device-plugin internal/lm/mig-strategy.go, resource.go)
        (profile_name, per_gpu), = mig["layout"].items()
        labels.update({"nvidia.com/gpu.count": str(gpus * per_gpu),
                       "nvidia.com/gpu.product": f"{product}-MIG-{profile_name}"})
    if mode == "mig" and mig.get("replicas"):
        # GFD labels each MIG resource's replicas and strategy, and a -SHARED product (internal/lm/resource.go)
        names = ["nvidia.com/gpu"] if mig.get("strategy") == "single" else \
            [f"nvidia.com/mig-{p}" for p in mig.get("layout") or {}]
        for name in names:
            labels.update({f"{name}.replicas": str(mig["replicas"]), f"{name}.sharing-strategy": "time-slicing"})
        if mig.get("strategy") == "single":
            labels["nvidia.com/gpu.product"] += "-SHARED"
    if mode in SHARED and pool.get("allocation") != "dra":
        # GFD labels nvidia.com/gpu.* whatever the advertised name; -SHARED only when the resource is not renamed
        # (k8s-device-plugin internal/lm/resource.go: fullGPUResourceName, getProductName)
        labels.update({"nvidia.com/gpu.replicas": str(sharing["replicas"]), "nvidia.com/gpu.sharing-strategy": mode,
                       "nvidia.com/gpu.product": product + ("" if sharing.get("renameByDefault") else "-SHARED")})
    offered = {k: str(v) for k, v in advertised(pool, gpus).items()}
    resources = {"cpu": "8", "memory": "32Gi", "pods": "110", **offered}
    return {
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": f"{pool['name']}-{index}", "labels": labels},
        "spec": {"taints": [t for t in pool.get("taints", [{"key": "nvidia.com/gpu", "effect": "NoSchedule"}])]},
        "status": {"capacity": dict(resources), "allocatable": dict(resources),
                   "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady"}]},
    }


def healthy(profile_text: str, per_pool: int = 2) -> dict:
    """A v1 List: per pool `per_pool` healthy nodes, the sharing ConfigMap with every pool's key, a ready
    ClusterPolicy, and for DRA pools a ResourceSlice per node with its GPUs."""
    profile = yaml.safe_load(profile_text)
    spec = profile["spec"]
    items = []
    for pool in spec["nodePools"]:
        gpus = pool.get("gpusPerNode") or 1
        for i in range(per_pool):
            items.append(node(profile, pool, i, gpus))
            if pool.get("allocation") == "dra":
                items.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
                              "metadata": {"name": f"{pool['name']}-{i}-gpu.nvidia.com"},
                              "spec": {"driver": "gpu.nvidia.com", "nodeName": f"{pool['name']}-{i}",
                                       "pool": {"name": f"{pool['name']}-{i}", "generation": 1,
                                                "resourceSliceCount": 1},
                                       "devices": [{"name": f"gpu-{g}"} for g in range(gpus)]}})
    operator = (spec.get("operator") or {}).get("enabled", True) and spec["platform"] != "gke-autopilot"
    if operator:
        namespace = (spec.get("operator") or {}).get("namespace", "gpu-operator")
        configs = {"default": "version: v1\n"}
        configs.update({p["name"]: plugin_config(p) for p in spec["nodePools"] if p.get("allocation") != "dra"})
        items.append({"apiVersion": "v1", "kind": "ConfigMap",
                      "metadata": {"name": "gengpu-device-plugin-config", "namespace": namespace},
                      "data": configs})
        # the CRD's required sections (the API server refuses a ClusterPolicy without them)
        required = ("daemonsets", "dcgm", "dcgmExporter", "devicePlugin", "driver", "gfd", "nodeStatusExporter",
                    "operator", "toolkit")
        policy = {"apiVersion": "nvidia.com/v1", "kind": "ClusterPolicy", "metadata": {"name": "cluster-policy"},
                  "spec": {k: {} for k in required}, "status": {"state": "ready"}}
        # the chart's devicePlugin.config, as the operator copies it into the ClusterPolicy
        policy["spec"]["devicePlugin"] = {"config": {"name": "gengpu-device-plugin-config", "default": "default"}}
        items.append(policy)
    items.append({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "system-0", "labels": {}},
                  "status": {"capacity": {"cpu": "4"}, "allocatable": {"cpu": "4"},
                             "conditions": [{"type": "Ready", "status": "True"}]}})
    return {"apiVersion": "v1", "kind": "List", "items": items}


def find(snapshot: dict, name: str) -> dict:
    return next(i for i in snapshot["items"] if i["metadata"]["name"] == name)


def dump(snapshot: dict) -> str:
    return yaml.safe_dump(copy.deepcopy(snapshot), sort_keys=False)


def gpu_pods(snapshot: dict, per_node: int) -> list[dict]:
    """Running pods on every node of a snapshot, each holding one of the node's advertised GPU resources, as
    `kubectl get pods -o json` lists them (owner, tolerations, node selector, status): the bulk of a real capture."""
    pods = []
    for node in [i for i in snapshot["items"] if i.get("kind") == "Node"]:
        name = node["metadata"]["name"]
        allocatable = (node.get("status") or {}).get("allocatable") or {}
        resource = next((r for r in allocatable if r.startswith("nvidia.com/")), "nvidia.com/gpu")
        for k in range(per_node):
            pods.append({
                "apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": f"{name}-job-{k}", "namespace": "ml", "labels": {"app": "job"},
                             "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": f"{name}-job-{k}",
                                                  "uid": f"{k:08d}-0000-0000-0000-000000000000"}]},
                "spec": {"nodeName": name, "containers": [{"name": "main", "image": "nvcr.io/nvidia/pytorch:25.01",
                                                           "resources": {"limits": {resource: 1},
                                                                         "requests": {resource: 1, "cpu": "4"}}}],
                         "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]},
                "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}})
    return pods


def node_item(capacity: dict | None = None, labels: dict | None = None, *, allocatable: dict | None = None,
              name: str = "n", version: str | None = None):
    """A Node as gengpu reads it (an Item) with the status sections given and nothing else: for unit tests of what
    one node shows."""
    from gengpu.live.snapshot import Item

    status: dict = {k: v for k, v in (("capacity", capacity), ("allocatable", allocatable)) if v is not None}
    if version is not None:
        status["nodeInfo"] = {"kubeletVersion": version}
    return Item({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels or {}},
                 "status": status})
