"""What a profile's cluster offers to pods: per pool, the extended resources it advertises and its taints.

Used by the workload rules (a pod must ask for a resource some pool advertises
and tolerate that pool's taints) and by the placement components.
"""

from __future__ import annotations

from dataclasses import dataclass

from gengpu import mig
from gengpu.model import NodePool, Profile, Taint


@dataclass(frozen=True)
class Offer:
    """One resource a pool advertises."""

    resource: str
    max_per_container: int | None  # 1 when the plugin rejects bigger requests


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
        if pool.sharing.mode == "mig" and pool.sharing.mig:
            return pool.sharing.mig.strategy
    return "none"


def mig_layout(pool: NodePool) -> dict:
    m = pool.sharing.mig
    if m is None or pool.gpu_id is None:
        return {}
    return dict(m.layout) if m.layout else (mig.preset_layout(pool.gpu_id, m.preset) or {})


def pool_offers(profile: Profile, pool: NodePool) -> PoolOffers:
    s = pool.sharing
    if s.mode in ("time-slicing", "mps"):
        fail = s.fail_requests_greater_than_one
        if fail is None:
            fail = s.mode == "mps"
        name = "nvidia.com/gpu.shared" if s.rename_by_default else "nvidia.com/gpu"
        offers = (Offer(name, 1 if fail else None),)
    elif s.mode == "mig" and s.mig and s.mig.strategy == "mixed":
        offers = tuple(Offer(f"nvidia.com/mig-{p.replace('+', '.')}", None) for p in mig_layout(pool))
    else:
        offers = (Offer("nvidia.com/gpu", None),)
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
