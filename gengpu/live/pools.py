"""Which pool each node of a running cluster belongs to, and what the profile promised it would offer.

A pool claims a node by, in order: gengpu's pool label; the provisioner's or cloud's node pool label; the labels the
profile states for the pool (`nodeSelector`, for node groups gengpu does not create); and, where no label ties the
node to a pool, by what the node is: its GPU model (GPU Feature Discovery's product, a cloud's accelerator or
instance type label) and GPU count, when exactly one pool fits. `gengpu check --pool NAME` puts every GPU node in
one pool. A node no pool claims keeps why each pool did not fit, for the finding that names it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from gengpu import catalog
from gengpu.cluster import gpu_counts, mig_layout, mig_per_node, mig_resource
from gengpu.compiling import nodes as node_facts
from gengpu.live.snapshot import Item, Snapshot
from gengpu.loading import Document
from gengpu.model import NodePool, Profile

GPU_PRESENT = "nvidia.com/gpu.present"
PRODUCT = "nvidia.com/gpu.product"
COUNT = "nvidia.com/gpu.count"
GPU_PREFIXES = ("nvidia.com/gpu", "nvidia.com/mig-")
# Labels of the clouds that name a node's GPU or machine (GKE, AKS, and the well-known instance type).
ACCELERATOR_LABELS = ("cloud.google.com/gke-accelerator", "kubernetes.azure.com/accelerator")
INSTANCE_TYPE_LABELS = ("node.kubernetes.io/instance-type", "beta.kubernetes.io/instance-type")


@dataclass
class Node:
    """One node, the pool that claims it (None: no pool does) and what it should offer."""

    item: Item
    pool: NodePool | None
    how: str  # what tied it to its pool
    gpus: int | None  # physical GPUs: GFD's count label, the pool's gpusPerNode, or the instance type's
    misfits: list[str] = field(default_factory=list)  # (no pool) why each pool did not fit
    memo: dict = field(default_factory=dict, repr=False)  # what the live rules judge once per node

    @property
    def name(self) -> str:
        return self.item.name

    @property
    def labels(self) -> dict:
        return self.item.labels

    def allocatable(self, resource: str) -> int | None:
        return _quantity(self.item.get("status", "allocatable", resource))

    def capacity(self, resource: str) -> int | None:
        return _quantity(self.item.get("status", "capacity", resource))

    def offered(self, resource: str) -> int | None:
        """What the node hands out: allocatable, or capacity where the snapshot has no allocatable (allocatable is
        never above capacity)."""
        if isinstance(self.item.get("status", "allocatable"), dict):
            return self.allocatable(resource)
        return self.capacity(resource)

    def has_counts(self) -> bool:
        """Whether the snapshot shows what the node advertises (allocatable or capacity)."""
        status = self.item.mapping("status")
        return isinstance(status.get("allocatable"), dict) or isinstance(status.get("capacity"), dict)

    def gpu_resources(self) -> dict[str, tuple[int | None, int | None]]:
        """resource -> (capacity, allocatable) of every NVIDIA resource the node shows (worked out once: three rules
        read it of every node)."""
        if "gpu_resources" not in self.memo:
            names = {str(k) for section in ("capacity", "allocatable")
                     for k in self.item.mapping("status", section) if str(k).startswith(GPU_PREFIXES)}
            self.memo["gpu_resources"] = {r: (self.capacity(r), self.allocatable(r)) for r in sorted(names)}
        return self.memo["gpu_resources"]

    def vm_resources(self) -> dict[str, tuple[int | None, int | None]]:
        """resource -> (capacity, allocatable) of the GPUs the node offers to VMs: NVIDIA's sandbox device plugin
        names them by device (nvidia.com/GA102GL_A10), vGPU type (nvidia.com/NVIDIA_A10-8Q) or nvidia.com/pgpu."""
        names = {str(k) for section in ("capacity", "allocatable") for k in self.item.mapping("status", section)
                 if str(k).startswith("nvidia.com/") and not str(k).startswith(GPU_PREFIXES)}
        return {r: (self.capacity(r), self.allocatable(r)) for r in sorted(names)}


@dataclass
class Cluster:
    """The subject of the live rules: one profile, its document, the snapshot, and every node."""

    profile: Profile
    doc: Document
    snapshot: Snapshot
    nodes: list[Node] = field(default_factory=list)
    memo: dict = field(default_factory=dict, repr=False)  # what the live rules judge once per cluster

    def pool_nodes(self):
        return [n for n in self.nodes if n.pool is not None]


def _quantity(value) -> int | None:
    if value is None:
        return None
    text = str(value).strip()
    return int(text) if text.isdecimal() else None


NFD_NVIDIA = ("feature.node.kubernetes.io/pci-10de.present", "feature.node.kubernetes.io/pci-0302_10de.present")


def is_gpu_node(item: Item) -> bool:
    """A node with NVIDIA GPUs: GPU Feature Discovery's or the operator's nvidia.com labels, NFD's PCI vendor label, a
    cloud's accelerator label (GKE's names the GPU; AKS's says nvidia, its well-known labels), or NVIDIA resources in
    its status."""
    labels = item.labels
    if labels.get(GPU_PRESENT) == "false":
        return False
    if any(k.startswith("nvidia.com/") for k in labels) or any(labels.get(k) == "true" for k in NFD_NVIDIA) \
            or ACCELERATOR_LABELS[0] in labels or labels.get(ACCELERATOR_LABELS[1]) == "nvidia":
        return True
    for section in ("capacity", "allocatable"):
        values = item.mapping("status", section)
        if any(str(k).startswith(GPU_PREFIXES) or VM_RESOURCE.match(str(k)) for k in values):
            return True
    return False


# what NVIDIA's sandbox device plugin registers for VMs: nvidia.com/pgpu, a passed-through GPU by its PCI device name
# (nvidia.com/GA102GL_A10), a vGPU by its type (nvidia.com/NVIDIA_A10-8Q)
VM_RESOURCE = re.compile(r"^nvidia\.com/(pgpu|[A-Z0-9][A-Za-z0-9]*_[A-Za-z0-9_-]+)$")


def _pool_keys(profile: Profile, pool: NodePool) -> list[tuple[str, str]]:
    """(label, value) pairs that put a node in the pool: gengpu's own first, then what each provisioner writes."""
    keys = [(node_facts.POOL_LABEL, pool.name), ("karpenter.sh/nodepool", pool.name)]
    if profile.platform == "aks":
        keys.append(("kubernetes.azure.com/agentpool", node_facts.aks_pool_name(pool)))
    if profile.platform in ("gke", "gke-autopilot"):
        keys += [("cloud.google.com/gke-nodepool", pool.name), ("cloud.google.com/compute-class", pool.name)]
    if profile.platform == "eks":
        keys += [("eks.amazonaws.com/nodegroup", pool.name), ("alpha.eksctl.io/nodegroup-name", pool.name)]
    return keys


def pool_by_labels(profile: Profile, labels: dict[str, str]) -> tuple[NodePool | None, str]:
    """(the pool, the label that says so) of a node's labels: gengpu's or a provisioner's pool label, else a pool's
    own nodeSelector; (None, "") when no label says. The first of pools_by_labels, in the profile's order."""
    named = pools_by_labels(profile, labels)
    return named[0] if named else (None, "")


def pools_by_labels(profile: Profile, labels: dict[str, str]) -> list[tuple[NodePool, str]]:
    """Every pool a node's pool labels name, each with the first label that says so: more than one when sources
    disagree (kube-state-metrics' gengpu.dev/pool against Karpenter's karpenter.sh/nodepool); else the first pool
    whose own nodeSelector the labels match."""
    named: dict[int, tuple[NodePool, str]] = {}
    for pool in profile.node_pools:
        for key, value in _pool_keys(profile, pool):
            if labels.get(key) == value and pool.index not in named:
                named[pool.index] = (pool, f"{key}={value}")
    if named:
        return list(named.values())
    for pool in profile.node_pools:
        if pool.node_selector and all(labels.get(k) == v for k, v in pool.node_selector.items()):
            return [(pool, "the pool's nodeSelector")]
    return []


def pool_label_keys(profile: Profile) -> list[str]:
    """Every node label that can tie a node to one of the profile's pools."""
    keys = {key for pool in profile.node_pools for key, _ in _pool_keys(profile, pool)}
    keys |= {key for pool in profile.node_pools for key in pool.node_selector}
    return sorted(keys)


def node_gpu_model(platform: str, item: Item) -> tuple[str | None, str | None]:
    """(catalog id or None, the evidence as label=value) of the node's GPU model; (None, None) when nothing says.
    platform: whose instance types the node's instance-type label names."""
    labels = item.labels
    product = labels.get(PRODUCT)
    if product:
        return product_gpu(product), f"{PRODUCT}={product}"
    for key in ACCELERATOR_LABELS:
        value = labels.get(key)
        if value and catalog.resolve_gpu(value):
            return catalog.resolve_gpu(value), f"{key}={value}"
    for key in INSTANCE_TYPE_LABELS:
        value = labels.get(key)
        spec = catalog.instance_type(platform, value) if value else None
        if spec and spec.get("gpu"):
            return catalog.resolve_gpu(spec["gpu"]), f"{key}={value}"
    return None, None


def product_gpu(product: str) -> str | None:
    """The catalog id of GPU Feature Discovery's product string: with its -SHARED or -MIG-<profile> suffix, and in
    older spellings without the NVIDIA- prefix (A100-SXM4-40GB)."""
    base = re.sub(r"-MIG-.*$", "", product).removesuffix("-SHARED")
    # NVML names SKU variants with a short suffix (Tesla-V100-SXM2-16GB-N): the model without it
    for stem in (base, *(base.rsplit("-", n)[0] for n in (1, 2) if base.count("-") > n)):
        for name in (stem, f"NVIDIA-{stem}", stem.removeprefix("NVIDIA-"), stem.replace("Tesla-", "NVIDIA-")):
            found = catalog.resolve_gpu(name)
            if found:
                return found
    return None


def _same_product(product: str, pool: NodePool) -> bool:
    """GFD's product (without -SHARED or -MIG-...) is one of the pool's models as written, NVIDIA- prefix or not."""
    base = re.sub(r"-MIG-.*$", "", product).removesuffix("-SHARED").lower()
    names = {g.lower() for g in pool.gpus}
    return bool(base) and (base in names or base.removeprefix("nvidia-") in {n.removeprefix("nvidia-") for n in names})


def _misfit(profile: Profile, pool: NodePool, item: Item) -> str | None:
    """Why the node is not one of the pool's by what it is (None: it may be)."""
    gpu, evidence = node_gpu_model(profile.platform, item)
    wanted = {g for g in pool.gpu_ids if g}
    if gpu is None and evidence is not None and _same_product(item.labels.get(PRODUCT, ""), pool):
        pass  # a model the catalog does not know, written as GFD's product string: the strings are the evidence
    elif evidence is not None and (gpu is None or (wanted and gpu not in wanted)):
        return f"{evidence}, pool {pool.name} has {', '.join(pool.gpus)}"
    count = item.labels.get(COUNT)
    mig_single = "-MIG-" in item.labels.get(PRODUCT, "")
    if count and count.isdecimal() and pool.gpus_per_node and not mig_single and int(count) != pool.gpus_per_node:
        return f"{COUNT}={count}, pool {pool.name} has {pool.gpus_per_node} GPU(s) per node"
    return None


def claim(profile: Profile, item: Item, forced: NodePool | None = None,
          alone: bool = False) -> tuple[NodePool | None, str, list[str]]:
    """(the pool, what tied the node to it, why the other pools did not fit). forced (--pool) takes every GPU node,
    and a node that is alone in its snapshot (one node pasted to be checked, whatever it shows), as does a profile's
    only pool."""
    labels = item.labels
    pool, how = pool_by_labels(profile, labels)
    if pool is not None:
        return pool, how, []
    if forced is not None and (is_gpu_node(item) or alone):
        return forced, "--pool", []
    # a snapshot of one node is that node put to the question, whatever it shows (a GPU node whose driver never
    # came up shows no GPU at all): the profile's only pool takes it unless its labels say it is another GPU
    if not is_gpu_node(item) and not (alone and len(profile.node_pools) == 1):
        return None, "", []
    misfits = {pool.name: _misfit(profile, pool, item) for pool in profile.node_pools}
    fits = [pool for pool in profile.node_pools if misfits[pool.name] is None and not pool.node_selector]
    if len(fits) == 1:
        gpu, evidence = node_gpu_model(profile.platform, item)
        return fits[0], f"its GPUs ({evidence})" if evidence else "the only pool that fits", []
    if len(fits) > 1:
        return None, "", [f"pools {' and '.join(p.name for p in fits)} both fit its GPUs: give the pools a "
                          "nodeSelector, or check with --pool"]
    return None, "", [m for m in misfits.values() if m] + [
        f"pool {p.name} selects nodes by {', '.join(f'{k}={v}' for k, v in p.node_selector.items())}"
        for p in profile.node_pools if p.node_selector]


def physical_gpus(profile: Profile, pool: NodePool, item: Item) -> int | None:
    """The GPUs the node should have: the pool's gpusPerNode, its instance type's, else what GFD counts (the promise
    comes first, so a node that lost a GPU is measured against the machine it should be)."""
    if pool.gpus_per_node:
        return pool.gpus_per_node
    for key in INSTANCE_TYPE_LABELS:
        spec = catalog.instance_type(profile.platform, item.labels.get(key, "")) or {}
        if spec.get("gpus"):
            return spec["gpus"]
    count = item.labels.get(COUNT)
    # under the single MIG strategy GFD labels gpu.count (and gpu.product, <model>-MIG-<profile>) with the MIG
    # devices, not the GPUs (k8s-device-plugin internal/lm/mig-strategy.go)
    single = pool.sharing.mode == "mig" and pool.sharing.mig is not None and pool.sharing.mig.strategy == "single"
    if count and count.isdecimal() and not single and "-MIG-" not in item.labels.get(PRODUCT, ""):
        return int(count)
    counts = gpu_counts(profile, pool)
    return counts[0] if len(counts) == 1 else None


def promised(profile: Profile, node: Node) -> dict[str, tuple[int, str]]:
    """resource -> (how many the node should offer, how the profile arrives at it), for a device-plugin pool."""
    pool, gpus = node.pool, node.gpus
    if pool is None or pool.dra or pool.for_vms or gpus is None:
        return {}
    s = pool.sharing
    if s.mode in ("time-slicing", "mps") and s.replicas:
        name = "nvidia.com/gpu.shared" if s.rename_by_default else "nvidia.com/gpu"
        return {name: (gpus * s.replicas, f"{gpus} GPU(s) x {s.replicas} {s.mode} replicas")}
    layout = mig_layout(pool) if s.mode == "mig" else {}
    shared = s.mig_replicas
    sliced = f" x {shared} time-slicing replicas" if shared > 1 else ""
    if layout and s.mig and s.mig.strategy == "single":
        per = sum(layout.values())
        return {"nvidia.com/gpu": (gpus * per * shared, f"{gpus} GPU(s) x {per} MIG devices (single strategy)"
                                   f"{sliced}")}
    if layout and s.mig and s.mig.layouts:
        devices, whole = mig_per_node(pool, gpus)
        out = {mig_resource(p): (n * shared, f"{n} {p} on the GPUs the pool's per-GPU layouts give it{sliced}")
               for p, n in devices.items()}
        return {**out, **({"nvidia.com/gpu": (whole, f"{whole} GPU(s) the per-GPU layouts leave whole")}
                          if whole else {})}
    if layout:
        return {mig_resource(p): (gpus * n * shared, f"{gpus} GPU(s) x {n} {p}{sliced}") for p, n in layout.items()}
    return {"nvidia.com/gpu": (gpus, f"{gpus} GPU(s)")}


def map_nodes(profile: Profile, snapshot: Snapshot, forced: str | None = None) -> list[Node]:
    pool_named = next((p for p in profile.node_pools if p.name == forced), None)
    out = []
    for item in snapshot.nodes:
        pool, how, misfits = claim(profile, item, pool_named, len(snapshot.nodes) == 1)
        if pool is None and not is_gpu_node(item):
            continue  # a node without GPUs that no pool claims is none of gengpu's business
        out.append(Node(item, pool, how, physical_gpus(profile, pool, item) if pool else None, misfits))
    return out


def choose(profiles: list[tuple[Profile, Document]], snapshot: Snapshot,
           forced: str | None = None) -> list[tuple[Profile, Document, int, int]]:
    """(profile, document, nodes claimed, nodes claimed by a label) of the profiles, most claimed by label first,
    then most claimed (with --pool: only the profiles that have that pool)."""
    scored = []
    for profile, doc in profiles:
        if forced is not None and forced not in {p.name for p in profile.node_pools}:
            continue
        pool = next((p for p in profile.node_pools if p.name == forced), None)
        alone = len(snapshot.nodes) == 1
        claims = [claim(profile, item, pool, alone) for item in snapshot.nodes]
        by_label = sum(1 for found, how, _ in claims if found is not None and "=" in how and not how.startswith("its"))
        scored.append((profile, doc, sum(1 for found, _, _ in claims if found is not None), by_label))
    # nodes a profile's labels claim outrank nodes its GPUs merely fit: the profile gengpu built the cluster from
    return sorted(scored, key=lambda s: (-s[3], -s[2]))
