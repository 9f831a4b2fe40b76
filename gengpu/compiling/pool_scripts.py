"""Scripts that create the node pools gengpu cannot write as objects: `az aks nodepool add` and `gcloud container
node-pools create`, one option per line, every value shell-quoted; and GKE's own GPU sharing, which both the gcloud
flags and a ComputeClass ask for.
"""

from __future__ import annotations

import shlex

from gengpu import catalog
from gengpu.cluster import mig_layout
from gengpu.compiling import nodes
from gengpu.mig import aks_instance_profile
from gengpu.model import NodePool, Profile


def _script(comment: list[str], command: list[str], options: list[tuple[str, ...]]) -> str:
    """A bash script running one command; every value is shell-quoted, one option per line."""
    lines = ["#!/usr/bin/env bash", *(f"# {c}" for c in comment), "set -euo pipefail",
             " ".join(shlex.quote(w) for w in command) + " \\"]
    lines += ["  " + " ".join(shlex.quote(w) for w in option) + " \\" for option in options]
    lines[-1] = lines[-1].removesuffix(" \\")
    return "\n".join(lines) + "\n"


def aks_nodepool_argv(profile: Profile, pool: NodePool) -> list[tuple[str, ...]]:
    """The options of `az aks nodepool add`, one tuple per option with its values."""
    aks = profile.aks
    cluster = aks.get("clusterName", profile.name)
    taints = ",".join(f"{t.key}={t.value}:{t.effect}" if t.value is not None else f"{t.key}:{t.effect}"
                      for t in pool.taints)
    options = [
        ("--resource-group", aks.get("resourceGroup", f"{cluster}-rg")),
        ("--cluster-name", cluster),
        ("--name", nodes.aks_pool_name(pool)),
        ("--node-vm-size", pool.instance_types[0]),
    ]
    if profile.aks_managed_gpu:  # no cluster autoscaler on managed GPU pools during the preview
        options.append(("--node-count", str(pool.limits.get("nodes", 1))))
    else:
        options += [("--node-count", "1"), ("--enable-cluster-autoscaler",), ("--min-count", "0"),
                    ("--max-count", str(pool.limits.get("nodes", 3)))]
    options.append(("--labels", *(f"{k}={v}" for k, v in nodes.node_labels(profile, pool).items())))
    if taints:
        options.append(("--node-taints", taints))
    if profile.zones:
        options.append(("--zones", *profile.zones))
    if "spot" in pool.capacity_types:
        options.append(("--priority", "Spot", "--eviction-policy", "Delete", "--spot-max-price", "-1"))
    if profile.owns("driver"):
        options.append(("--gpu-driver", "none"))  # the GPU Operator installs the driver
    if profile.aks_managed_gpu:
        options.append(("--enable-managed-gpu=true",))  # the docs' spelling of the flag and its value
        layout = mig_layout(pool) if pool.sharing.mode == "mig" and pool.gpu_id else {}
        size = aks_instance_profile(pool.gpu_id, layout)[0] if layout else None
        if size:
            options += [("--gpu-instance-profile", size), ("--gpu-mig-strategy", pool.sharing.mig.strategy.title())]
    options.append(("--os-sku", "AzureLinux" if aks.get("imageFamily") == "AzureLinux" else "Ubuntu"))
    return options


def aks_nodepool_script(profile: Profile, pool: NodePool) -> str:
    if profile.aks_managed_gpu:
        comment = [f"Creates the AKS managed GPU node pool for gengpu pool '{pool.name}': AKS runs the driver, NVIDIA's",
                   "device plugin, DCGM and dcgm-exporter on its nodes. Preview: needs the aks-preview extension",
                   "(19.0.0b29+) and the ManagedGPUExperiencePreview feature. Run once: VM size, taints and the GPU",
                   "settings cannot be changed later. AKS does not autoscale managed GPU pools during the preview;",
                   "scale it with az aks nodepool scale."]
    else:
        comment = [f"Creates the AKS node pool for gengpu pool '{pool.name}'. Run once; VM size and taints",
                   "cannot be changed later. Node labels select the pool's device-plugin (and MIG) config."]
    return _script(comment, ["az", "aks", "nodepool", "add"], aks_nodepool_argv(profile, pool))


def gke_accelerator_flag(profile: Profile, pool: NodePool, machine: str) -> str:
    """gcloud's --accelerator value: type, count, driver and, without the operator, GKE's own sharing."""
    spec = catalog.instance_type(profile.platform, machine) or {}
    parts = [f"type={catalog.gke_accelerator(pool.gpu_id, machine) or pool.gpus[0]}",
             f"count={pool.gpus_per_node or spec.get('gpus', 1)}"]
    if profile.operator.enabled or pool.dra:
        # The operator's device plugin, or NVIDIA's DRA driver, replaces GKE's; Google's driver installer comes with
        # the Application. GKE's DRA setup requires its driver disabled and rules out its time-sharing, MPS and
        # multi-instance GPUs ("Prepare GKE infrastructure for DRA workloads"): sharing is the DRA driver's.
        parts.append("gpu-driver-version=disabled")
        return ",".join(parts)
    parts.append("gpu-driver-version=default")
    sharing = gke_gpu_sharing(profile, pool)  # gcloud spells the API's TIME_SHARING time-sharing
    if "sharingStrategy" in sharing:
        parts += [f"gpu-sharing-strategy={sharing['sharingStrategy'].lower().replace('_', '-')}",
                  f"max-shared-clients-per-gpu={sharing['maxSharedClientsPerGPU']}"]
    if "gpuPartitionSize" in sharing:
        parts.append(f"gpu-partition-size={sharing['gpuPartitionSize']}")
    return ",".join(parts)


def gke_nodepool_argv(profile: Profile, pool: NodePool) -> list[tuple[str, ...]]:
    """The options of `gcloud container node-pools create POOL`, one tuple per option with its values."""
    machine = pool.instance_types[0]
    taints = ",".join(f"{t.key}={t.value or ''}:{t.effect}" for t in pool.taints)
    options = [
        ("--cluster", profile.gke.get("clusterName", profile.name)),
        ("--zone", profile.zones[0]) if len(profile.zones) == 1 else ("--region", profile.region),
        ("--machine-type", machine),
        ("--accelerator", gke_accelerator_flag(profile, pool, machine)),
        ("--enable-autoscaling", "--min-nodes", "0"),
        ("--max-nodes", str(pool.limits.get("nodes", 3))),
        ("--node-labels", ",".join(f"{k}={v}" for k, v in nodes.node_labels(profile, pool).items())),
    ]
    if len(profile.zones) > 1:
        options.append(("--node-locations", ",".join(profile.zones)))
    if taints:
        options.append(("--node-taints", taints))
    if pool.capacity_types == ("spot",):
        options.append(("--spot",))
    options.append(("--image-type", "UBUNTU_CONTAINERD" if profile.gke.get("imageType") == "Ubuntu"
                    else "COS_CONTAINERD"))
    return options


def gke_nodepool_script(profile: Profile, pool: NodePool) -> str:
    return _script([f"Creates the GKE node pool for gengpu pool '{pool.name}'. Run once; machine type, accelerator and",
                    "taints cannot be changed later. Node labels select the pool's device-plugin (and MIG) config."],
                   ["gcloud", "container", "node-pools", "create", pool.name], gke_nodepool_argv(profile, pool))


def gke_gpu_sharing(profile: Profile, pool: NodePool) -> dict:
    """GKE's own GPU sharing on a pool's nodes (its device plugin: no operator, no DRA) in the API's terms: a
    ComputeClass's gpu.gpuSharing as GKE served the CRD on 2026-08-02 (schemas/documented), sharingStrategy
    TIME_SHARING or MPS with maxSharedClientsPerGPU, or a MIG gpuPartitionSize; gcloud's --accelerator flags say
    the same."""
    if profile.operator.enabled or pool.dra:
        return {}  # the operator's device plugin or NVIDIA's DRA driver shares the GPUs
    s = pool.sharing
    if s.mode in ("time-slicing", "mps") and s.replicas:
        return {"sharingStrategy": "TIME_SHARING" if s.mode == "time-slicing" else "MPS",
                "maxSharedClientsPerGPU": s.replicas}
    layout = mig_layout(pool) if s.mode == "mig" else {}
    if len(layout) == 1:  # (GKE time-shares MIG partitions too: "Share GPUs with multiple workloads using time-sharing")
        return {"gpuPartitionSize": next(iter(layout)), **({"sharingStrategy": "TIME_SHARING", "maxSharedClientsPerGPU":
                                                            s.mig_replicas} if s.mig_replicas > 1 else {})}
    return {}
