"""Which pool each node of a running cluster belongs to, and what the profile promised it would offer."""

from __future__ import annotations

from dataclasses import dataclass, field

from gengpu import catalog
from gengpu.cluster import gpu_counts, mig_layout
from gengpu.compiling import nodes as node_facts
from gengpu.live.snapshot import Item, Snapshot
from gengpu.loading import Document
from gengpu.model import NodePool, Profile

GPU_PRESENT = "nvidia.com/gpu.present"
GPU_PREFIXES = ("nvidia.com/gpu", "nvidia.com/mig-")


@dataclass
class Node:
    """One node, the pool that claims it (None: no pool does) and what it should offer."""

    item: Item
    pool: NodePool | None
    how: str  # the label that mapped it to its pool
    gpus: int | None  # physical GPUs: GFD's count label, the pool's gpusPerNode, or the instance type's

    @property
    def name(self) -> str:
        return self.item.name

    def allocatable(self, resource: str) -> int | None:
        return _quantity(self.item.get("status", "allocatable", resource))

    def capacity(self, resource: str) -> int | None:
        return _quantity(self.item.get("status", "capacity", resource))


@dataclass
class Cluster:
    """The subject of the live rules: one profile, its document, the snapshot, and every node."""

    profile: Profile
    doc: Document
    snapshot: Snapshot
    nodes: list[Node] = field(default_factory=list)

    def pool_nodes(self):
        return [n for n in self.nodes if n.pool is not None]


def _quantity(value) -> int | None:
    if value is None:
        return None
    text = str(value)
    return int(text) if text.isdigit() else None


def is_gpu_node(item: Item) -> bool:
    if item.labels.get(GPU_PRESENT) == "true":
        return True
    for section in ("capacity", "allocatable"):
        values = item.mapping("status", section)
        if any(str(k).startswith(GPU_PREFIXES) for k in values):
            return True
    return False


def _pool_keys(profile: Profile, pool: NodePool) -> list[tuple[str, str]]:
    """(label, value) pairs that put a node in the pool: gengpu's own first, then what each provisioner writes."""
    keys = [(node_facts.POOL_LABEL, pool.name), ("karpenter.sh/nodepool", pool.name)]
    if profile.platform == "aks":
        keys.append(("kubernetes.azure.com/agentpool", node_facts.aks_pool_name(pool)))
    if profile.platform in ("gke", "gke-autopilot"):
        keys += [("cloud.google.com/gke-nodepool", pool.name), ("cloud.google.com/compute-class", pool.name)]
    if profile.platform == "eks":
        keys.append(("eks.amazonaws.com/nodegroup", pool.name))
    return keys


def claim(profile: Profile, item: Item) -> tuple[NodePool | None, str]:
    for pool in profile.node_pools:
        for key, value in _pool_keys(profile, pool):
            if item.labels.get(key) == value:
                return pool, f"{key}={value}"
    return None, ""


def physical_gpus(profile: Profile, pool: NodePool, item: Item) -> int | None:
    count = item.labels.get("nvidia.com/gpu.count")
    # under the single MIG strategy GFD labels gpu.count (and gpu.product, <model>-MIG-<profile>) with the MIG
    # devices, not the GPUs (k8s-device-plugin internal/lm/mig-strategy.go)
    single = pool.sharing.mode == "mig" and pool.sharing.mig is not None and pool.sharing.mig.strategy == "single"
    if count and count.isdigit() and not single and "-MIG-" not in item.labels.get("nvidia.com/gpu.product", ""):
        return int(count)
    if pool.gpus_per_node:
        return pool.gpus_per_node
    spec = catalog.instance_type(profile.platform, item.labels.get("node.kubernetes.io/instance-type", "")) or {}
    if spec.get("gpus"):
        return spec["gpus"]
    counts = gpu_counts(profile, pool)
    return counts[0] if len(counts) == 1 else None


def promised(profile: Profile, node: Node) -> dict[str, tuple[int, str]]:
    """resource -> (how many the node should offer, how the profile arrives at it), for a device-plugin pool."""
    pool, gpus = node.pool, node.gpus
    if pool is None or pool.dra or gpus is None:
        return {}
    s = pool.sharing
    if s.mode in ("time-slicing", "mps") and s.replicas:
        name = "nvidia.com/gpu.shared" if s.rename_by_default else "nvidia.com/gpu"
        return {name: (gpus * s.replicas, f"{gpus} GPU(s) x {s.replicas} {s.mode} replicas")}
    layout = mig_layout(pool) if s.mode == "mig" else {}
    if layout and s.mig and s.mig.strategy == "single":
        per = sum(layout.values())
        return {"nvidia.com/gpu": (gpus * per, f"{gpus} GPU(s) x {per} MIG devices (single strategy)")}
    if layout:
        return {f"nvidia.com/mig-{p.replace('+', '.')}": (gpus * n, f"{gpus} GPU(s) x {n} {p}")
                for p, n in layout.items()}
    return {"nvidia.com/gpu": (gpus, f"{gpus} GPU(s)")}


def map_nodes(profile: Profile, snapshot: Snapshot) -> list[Node]:
    out = []
    for item in snapshot.nodes:
        pool, how = claim(profile, item)
        if pool is None and not is_gpu_node(item):
            continue  # a node without GPUs that no pool claims is none of gengpu's business
        out.append(Node(item, pool, how, physical_gpus(profile, pool, item) if pool else None))
    return out


def choose(profiles: list[tuple[Profile, Document]], snapshot: Snapshot) -> list[tuple[Profile, Document, int]]:
    """The profiles whose pools claim nodes of the snapshot, most claimed first."""
    scored = []
    for profile, doc in profiles:
        claimed = sum(1 for item in snapshot.nodes if claim(profile, item)[0] is not None)
        scored.append((profile, doc, claimed))
    return sorted(scored, key=lambda s: -s[2])


