"""What a profile's cluster offers to pods: per pool, the extended resources it advertises and its taints.

Used by the workload rules (a pod must ask for a resource some pool advertises
and tolerate that pool's taints) and by the placement components.
"""

from __future__ import annotations

from dataclasses import dataclass

from gengpu import catalog, mig
from gengpu.model import NodePool, Profile, Taint


@dataclass(frozen=True)
class Offer:
    """One resource a pool advertises."""

    resource: str
    max_per_container: int | None  # 1 when the plugin rejects bigger requests
    per_node: int | None = None  # how many one node of the pool advertises at most; None when unknown


@dataclass(frozen=True)
class PoolOffers:
    pool: NodePool
    offers: tuple[Offer, ...]
    taints: tuple[Taint, ...]

    def offer(self, resource: str) -> Offer | None:
        return next((o for o in self.offers if o.resource == resource), None)


def mig_strategy(profile: Profile) -> str:
    """One MIG strategy per cluster (the operator sets it for every node)."""
    for pool in profile.node_pools:
        if pool.sharing.mode == "mig" and pool.sharing.mig and not pool.dra:  # DRA hands out MIG devices itself
            return pool.sharing.mig.strategy
    return "none"


def mig_layout(pool: NodePool) -> dict:
    """Profile -> instances on each GPU; for per-GPU layouts (mig.layouts) the most any GPU holds, which names the
    profiles a node offers (mig_per_node counts them)."""
    m = pool.sharing.mig
    if m is None or pool.gpu_id is None:
        return {}
    if m.layouts:
        out: dict = {}
        for _, layout in m.layouts:
            for name, n in (layout or {}).items():
                out[name] = max(out.get(name, 0), n)
        return out
    return dict(m.layout) if m.layout else (mig.preset_layout(pool.gpu_id, m.preset) or {})


def mig_per_node(pool: NodePool, gpus: int) -> tuple[dict, int]:
    """(profile -> instances one node of `gpus` GPUs holds, how many of its GPUs stay whole)."""
    m = pool.sharing.mig
    if m is None or not m.layouts:
        return {name: n * gpus for name, n in mig_layout(pool).items()}, 0
    devices, whole = {}, 0
    for indices, layout in m.layouts:
        on_node = sum(1 for i in indices if i < gpus)
        if layout is None:
            whole += on_node
        for name, n in (layout or {}).items():
            devices[name] = devices.get(name, 0) + n * on_node
    return {name: n for name, n in devices.items() if n}, whole


def mig_resource(profile: str) -> str:
    """The extended resource the device plugin advertises a MIG profile's devices as under the mixed strategy."""
    return f"nvidia.com/mig-{profile.replace('+', '.')}"


def gpu_counts(profile: Profile, pool: NodePool) -> list[int]:
    """GPUs per node: declared, or every count the pool's instance types have."""
    if pool.gpus_per_node:
        return [pool.gpus_per_node]
    counts = set()
    for name in pool.instance_types:
        spec = catalog.instance_type(profile.platform, name) or {}
        counts.update(spec.get("counts") or ([spec["gpus"]] if "gpus" in spec else []))
    return sorted(counts)


def pool_offers(profile: Profile, pool: NodePool) -> PoolOffers:
    s = pool.sharing
    counts = gpu_counts(profile, pool)
    gpus = max(counts) if counts else None

    def times(n: int) -> int | None:
        return gpus * n if gpus else None

    if pool.dra:
        offers = ()  # pods claim devices through ResourceClaims, no extended resource is advertised
    elif s.mode in ("time-slicing", "mps"):
        fail = s.fail_requests_greater_than_one
        if fail is None:
            fail = s.mode == "mps"
        name = "nvidia.com/gpu.shared" if s.rename_by_default else "nvidia.com/gpu"
        offers = (Offer(name, 1 if fail else None, times(s.replicas)),)
    elif s.mode == "mig" and s.mig and s.mig.strategy == "mixed" and s.mig.layouts and gpus:
        devices, whole = mig_per_node(pool, gpus)  # per GPU: GPUs left whole are offered beside the MIG devices
        offers = tuple(Offer(mig_resource(p), None, n * s.mig_replicas) for p, n in devices.items()) + \
            ((Offer("nvidia.com/gpu", None, whole),) if whole else ())
    elif s.mode == "mig" and s.mig and s.mig.strategy == "mixed":
        offers = tuple(Offer(mig_resource(p), None, times(n * s.mig_replicas)) for p, n in mig_layout(pool).items())
    elif s.mode == "mig" and s.mig and (layout := mig_layout(pool)):
        # single: one per instance, each time-sliced mig.replicas ways
        offers = (Offer("nvidia.com/gpu", None, times(sum(layout.values()) * s.mig_replicas)),)
    else:
        offers = (Offer("nvidia.com/gpu", None, gpus),)
    return PoolOffers(pool, offers, pool.taints)


def cluster_offers(profile: Profile) -> list[PoolOffers]:
    return [pool_offers(profile, pool) for pool in profile.node_pools]


@dataclass(frozen=True)
class Cluster:
    """The context workload rules check against."""

    profile: Profile
    strategy: str
    offers: tuple[PoolOffers, ...]

    @classmethod
    def of(cls, profile: Profile) -> "Cluster":
        return cls(profile, mig_strategy(profile), tuple(cluster_offers(profile)))


def dra_feature_gates(profile: Profile) -> set[str]:
    """The DRA driver's feature gates the DRA pools' sharing modes need (software.yaml draDriver.featureGates)."""
    gates = catalog.software()["draDriver"]["featureGates"]
    return {gates[p.sharing.mode] for p in profile.dra_pools if p.sharing.mode in gates}


def nap_accelerator(pool: NodePool) -> str | None:
    """The GKE accelerator type an auto-provisioned pool asks for."""
    return catalog.gke_accelerator(pool.gpu_id, pool.instance_types[0] if pool.instance_types else None) \
        if pool.gpu_id else None


def nap_gpu_needs(profile: Profile) -> dict[str, tuple[int, list[NodePool], list[NodePool]]]:
    """Per accelerator of GKE auto-provisioned pools: the sum of their limits.gpus, the pools, those with no limit.

    Node auto-provisioning's GPU limit is per accelerator for the whole cluster: pools on one accelerator share it.
    """
    out: dict[str, tuple[int, list, list]] = {}
    for pool in profile.node_pools:
        if pool.provisioner != "node-auto-provisioning" or profile.platform != "gke":
            continue
        accelerator = nap_accelerator(pool)
        if not accelerator:
            continue
        total, pools, unlimited = out.get(accelerator, (0, [], []))
        gpus = pool.limits.get("gpus")
        out[accelerator] = (total + (gpus or 0), pools + [pool], unlimited + ([pool] if gpus is None else []))
    return out


def nap_named_limits(profile: Profile) -> dict[str, tuple[str, object]]:
    """Accelerator -> (the model as written, its maximum) from spec.gke.autoprovisioning.gpus."""
    named = (profile.gke.get("autoprovisioning") or {}).get("gpus") or {}
    out = {}
    for model, maximum in named.items():
        gpu_id = catalog.resolve_gpu(str(model))
        out[(catalog.gke_accelerator(gpu_id) if gpu_id else None) or str(model)] = (str(model), maximum)
    return out
