"""Cost and quota planning: what each pool may cost and which cloud quotas its limits need.

Prices come from gengpu/data/prices.yaml (scripts/sync-prices; every figure names its source and date), quotas
from gengpu/data/quotas.yaml. Every figure is an estimate: list prices before discounts, commitments and taxes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from gengpu import catalog
from gengpu.cluster import gpu_counts, mig_layout
from gengpu.model import NodePool, Profile

HOURS_PER_MONTH = 730  # the clouds' own convention for monthly estimates
CLOUD = {"eks": "eks", "aks": "aks", "gke": "gke", "gke-autopilot": "gke"}
ESTIMATE = ("Estimates from list prices (gengpu/data/prices.yaml: each figure names its source and date), "
            "before discounts, commitments and taxes; the clouds' own calculators are authoritative.")


def prices() -> dict:
    return catalog.data_file("prices.yaml")


def quotas() -> dict:
    return catalog.data_file("quotas.yaml")


@dataclass(frozen=True)
class Node:
    """One node shape a pool may launch, priced in the profile's region."""

    name: str
    gpus: int
    vcpus: int | None
    on_demand: float | None
    spot: float | None
    sources: tuple[str, ...]


@dataclass
class PoolPlan:
    cluster: str
    pool: str
    platform: str
    region: str
    gpu: str
    capacity: tuple[str, ...]
    provisioner: str
    gpus_max: int | None  # None: no upper bound in the profile
    bound: str  # which setting bounds it
    slices_per_gpu: int
    nodes: list[Node]
    unpriced: list[str] = field(default_factory=list)
    quota: dict[str, int] = field(default_factory=dict)  # quota name -> amount needed at the limit
    quota_unit: str = ""
    caps: dict[str, int] = field(default_factory=dict)  # node shape -> GPUs the limit allows of it
    slices: tuple[Slice, ...] = ()  # what one GPU is sold as

    # Every pool gengpu writes scales to zero nodes (Karpenter, auto-provisioning, --min-nodes 0 scripts).
    gpus_min = 0

    def nodes_at_limit(self, node: Node) -> int | None:
        cap = self.caps.get(node.name, self.gpus_max)
        return None if cap is None else math.ceil(cap / node.gpus)

    def per_gpu_hour(self, capacity: str) -> tuple[float, float] | None:
        values = [(n.on_demand if capacity == "on-demand" else n.spot) / n.gpus for n in self.nodes
                  if (n.on_demand if capacity == "on-demand" else n.spot) is not None and n.gpus]
        return (min(values), max(values)) if values else None

    def hourly_at_limit(self, capacity: str) -> tuple[float, float] | None:
        """Cheapest and dearest node shape, as many of it as the limit allows."""
        if self.gpus_max is None:
            return None
        values = [self.nodes_at_limit(n) * price for n in self.nodes
                  if (price := n.on_demand if capacity == "on-demand" else n.spot) is not None]
        return (min(values), max(values)) if values else None

    def monthly_at_limit(self, capacity: str) -> tuple[float, float] | None:
        hourly = self.hourly_at_limit(capacity)
        return (hourly[0] * HOURS_PER_MONTH, hourly[1] * HOURS_PER_MONTH) if hourly else None

    @property
    def uniform(self) -> bool:
        """Every slice of a GPU costs the same."""
        return len({round(sl.share, 9) for sl in self.slices}) <= 1

    def per_slice_hour(self, capacity: str, piece: Slice | None = None) -> tuple[float, float] | None:
        """The hourly price of one slice (of the given kind; None: the pool's one kind, or None for unlike ones)."""
        per = self.per_gpu_hour(capacity)
        if piece is None:
            if not self.uniform:
                return None
            piece = self.slices[0] if self.slices else Slice("GPU", 1, 1.0)
        return (per[0] * piece.share, per[1] * piece.share) if per else None

    @property
    def sources(self) -> list[str]:
        return sorted({s for n in self.nodes for s in n.sources})


def _types(profile: Profile, pool: NodePool) -> list[tuple[str, int, bool]]:
    """(instance type, GPUs, whether the GPUs are attached to it and priced apart: GCE N1) of every node shape the
    pool may launch."""
    out = []
    for name in pool.instance_types:
        spec = catalog.instance_type(profile.platform, name) or {}
        if profile.platform == "eks" and spec.get("family"):
            sizes = catalog.clouds()["eks"]["families"][name]["sizes"]
            out += [(f"{name}.{size}", n, False) for size, n in sizes.items()]
        elif spec.get("attachable"):
            out.append((name, pool.gpus_per_node or 1, True))
        elif spec.get("gpus"):
            out.append((name, spec["gpus"], False))
    if pool.gpus_per_node:
        out = [t for t in out if t[1] == pool.gpus_per_node] or out
    return out


def _vcpus(profile: Profile, name: str) -> int | None:
    q = quotas()
    if profile.platform == "eks":
        return q["aws"]["vcpus"].get(name)
    if profile.platform == "aks":
        for family in q["azure"]["families"]:
            if name in family["sizes"]:
                return family["sizes"][name]
    return None


def _node(profile: Profile, pool: NodePool, name: str, gpus: int, attached: bool, priced: bool) -> Node:
    """The shape with its prices in the profile's region (None where the table has none, or not asked for)."""
    unpriced = Node(name, gpus, _vcpus(profile, name), None, None, ())
    if not priced:
        return unpriced
    table = prices()[CLOUD[profile.platform]]
    row = (table.get(name) or {}).get(profile.region)
    if row is None:
        return unpriced
    on_demand, spot = row.get("onDemand"), row.get("spot")
    sources = {row[k] for k in ("onDemandFrom", "spotFrom") if k in row}
    if attached:  # the machine plus its GPUs, priced apart (scripts/sync-prices keys them by gengpu's GPU id)
        gpu_row = (table.get(f"accelerator:{pool.gpu_id}") or {}).get(profile.region)
        if gpu_row is None:
            return unpriced
        on_demand = on_demand + gpus * gpu_row["onDemand"] if on_demand is not None and \
            gpu_row.get("onDemand") is not None else None
        spot = spot + gpus * gpu_row["spot"] if spot is not None and gpu_row.get("spot") is not None else None
        sources |= {gpu_row[k] for k in ("onDemandFrom", "spotFrom") if k in gpu_row}
    return Node(name, gpus, _vcpus(profile, name), on_demand, spot, tuple(sorted(sources)))


@dataclass(frozen=True)
class Slice:
    """One kind of share of a GPU that pods of the pool ask for, and the part of the GPU's price it carries."""

    name: str
    per_gpu: int
    share: float


def slices(pool: NodePool) -> tuple[Slice, ...]:
    """What one GPU of the pool is sold as. A MIG device carries its compute slices' part of the GPU ('3g' is 3 of
    the GPU's 7): unlike devices cost unlike amounts. A DRA pool's claim gets a whole GPU, whatever clients share
    it (sharing.replicas splits the claim, not the GPU between pods)."""
    s = pool.sharing
    if s.mode in ("time-slicing", "mps") and s.replicas and not pool.dra:
        return (Slice("slice", s.replicas, 1 / s.replicas),)
    layout = mig_layout(pool) if s.mode == "mig" else {}
    ways = s.mig_replicas  # (time-sliced: each MIG device taken by as many pods, in turns)
    if layout and s.mig.layouts and pool.gpus_per_node:
        # per-GPU layouts: each entry's devices (or whole GPUs) on the GPUs it names, as an average per GPU
        gpus, out = pool.gpus_per_node, []
        for indices, entry in s.mig.layouts:
            part = sum(1 for i in indices if i < gpus) / gpus
            out += [Slice("GPU", _count(part), 1.0)] if entry is None else \
                [Slice(n, _count(c * ways * part), share / ways) for n, c, share in _shares(entry)]
        return tuple(out)
    if layout:
        return tuple(Slice(name, count * ways, share / ways) for name, count, share in _shares(layout))
    return (Slice("claim" if pool.dra else "GPU", 1, 1.0),)


def _shares(layout: dict) -> list[tuple[str, int, float]]:
    """(profile, instances per GPU, the part of the GPU one instance is sold as: its compute slices of the layout's)"""
    units = {name: int(name.split("g", 1)[0]) if name.split("g", 1)[0].isdecimal() else 1 for name in layout}
    total = sum(units[name] * count for name, count in layout.items())
    return [(name, count, units[name] / total) for name, count in layout.items()]


def _count(value: float) -> int | float:
    """A count per GPU, whole where it is (per-GPU layouts average over the node's GPUs)."""
    return int(value) if float(value).is_integer() else round(value, 3)


def slices_per_gpu(pool: NodePool) -> int:
    return sum(sl.per_gpu for sl in slices(pool))


def _bound(profile: Profile, pool: NodePool, types) -> tuple[int | None, str, dict[str, int]]:
    """(most GPUs the pool's limits allow, which limit, node shape -> GPUs of that shape the limit allows)."""
    limits = pool.limits
    if limits.get("gpus") is not None:
        return int(limits["gpus"]), "limits.gpus", {}
    if limits.get("nodes") is not None:
        caps = {name: int(limits["nodes"]) * g for name, g, _ in types}
        counts = list(caps.values()) or [int(limits["nodes"]) * c for c in gpu_counts(profile, pool)]
        if counts:
            return max(counts), "limits.nodes", caps
    if limits.get("cpu") is not None and types:
        # Karpenter stops adding nodes at the CPU limit: as many of a shape as its vCPUs fit
        caps = {name: int(limits["cpu"]) // v * g for name, g, _ in types if (v := _vcpus(profile, name))}
        if len(caps) == len(types):
            return max(caps.values()), "limits.cpu", caps
    return None, "none", {}


def _quota(profile: Profile, plan: PoolPlan, capacity: str) -> tuple[dict[str, int], str]:
    """Quota name -> amount the pool needs at its limit, in the cloud's unit (worst case over its node shapes)."""
    if plan.gpus_max is None:
        return {}, ""
    q = quotas()
    if profile.platform == "eks":
        need: dict[str, int] = {}
        for node in plan.nodes:
            family = node.name.split(".")[0]
            entry = next((e for e in q["aws"]["quotas"] if e["capacity"] == capacity and family in e["families"]),
                         None)
            if entry and node.vcpus:
                amount = plan.nodes_at_limit(node) * node.vcpus
                key = f"{entry['name']} ({entry['code']})"
                need[key] = max(need.get(key, 0), amount)
        return need, "vCPUs"
    if profile.platform in ("gke", "gke-autopilot"):
        entry = next((e for e in q["gcp"]["quotas"] if e["gpu"] == plan.gpu), None)
        if entry:
            return {entry["spotMetric"] if capacity == "spot" else entry["metric"]: plan.gpus_max}, "GPUs"
        return {}, ""
    if profile.platform == "aks":
        need = {}
        for node in plan.nodes:
            family = next((f for f in q["azure"]["families"] if node.name in f["sizes"]), None)
            if family and node.vcpus:
                key = q["azure"]["spot"]["quota"] if capacity == "spot" else _azure_family_quota(family)
                need[key] = max(need.get(key, 0), plan.nodes_at_limit(node) * node.vcpus)
        return need, "vCPUs"
    return {}, ""


def _azure_family_quota(family: dict) -> str:
    """A family's quota by its display name, or by its API name (what `az vm list-usage` lists as name.value)
    where no display name is documented (the ND H200 v5 family)."""
    return family["quota"] or family["apiName"]


def plan_pool(profile: Profile, pool: NodePool, priced: bool = True) -> PoolPlan:
    """priced=False: GPUs and quota only, without reading the price table (what the quota rule needs)."""
    types = _types(profile, pool)
    nodes = [_node(profile, pool, name, gpus, attached, priced) for name, gpus, attached in types]
    unpriced = [n.name for n in nodes if n.on_demand is None and n.spot is None] if priced else []
    gpus_max, bound, caps = _bound(profile, pool, types)
    plan = PoolPlan(profile.name, pool.name, profile.platform, profile.region, pool.gpu_id or "+".join(pool.gpus),
                    pool.capacity_types, pool.provisioner, gpus_max, bound, slices_per_gpu(pool), nodes, unpriced,
                    caps=caps, slices=slices(pool))
    for capacity in pool.capacity_types:
        need, unit = _quota(profile, plan, capacity)
        plan.quota.update(need)
        plan.quota_unit = unit or plan.quota_unit
    return plan


def plan_profile(profile: Profile, priced: bool = True) -> list[PoolPlan]:
    return [plan_pool(profile, pool, priced) for pool in profile.node_pools]


def quota_default(platform: str, name: str) -> int | None:
    """The documented default of a quota (by the name plan_pool gives it), or None when none is documented."""
    q = quotas()
    if platform == "eks":
        return next((e["default"] for e in q["aws"]["quotas"] if f"{e['name']} ({e['code']})" == name), None)
    if platform in ("gke", "gke-autopilot"):
        return next((e.get("default") for e in q["gcp"]["quotas"] if name in (e["metric"], e["spotMetric"])), None)
    if platform == "aks":
        if name == q["azure"]["spot"]["quota"]:
            return None  # the documented 20 is a generic figure that varies by offer
        return next((f.get("default") for f in q["azure"]["families"] if _azure_family_quota(f) == name), None)
    return None


def fleet_quota(plans: list[PoolPlan]) -> dict[tuple[str, str, str], int]:
    """(cloud, region, quota) -> amount the fleet's limits need, summed over clusters and pools."""
    out: dict[tuple[str, str, str], int] = {}
    for plan in plans:
        for name, amount in plan.quota.items():
            key = (CLOUD[plan.platform], plan.region, name)
            out[key] = out.get(key, 0) + amount
    return dict(sorted(out.items()))


def max_monthly(plans: list[PoolPlan]) -> tuple[float, bool]:
    """Highest monthly GPU spend the limits allow (the dearer capacity and node shape), and whether any pool is
    unbounded or unpriced (so the figure is a floor)."""
    total, partial = 0.0, False
    for plan in plans:
        worst = [m[1] for c in plan.capacity if (m := plan.monthly_at_limit(c))]
        if worst:
            total += max(worst)
        else:
            partial = True
    return total, partial


def max_gpus(plans: list[PoolPlan]) -> dict[str, int]:
    out: dict[str, int] = {}
    for plan in plans:
        if plan.gpus_max is not None:
            out[plan.gpu] = out.get(plan.gpu, 0) + plan.gpus_max
    return dict(sorted(out.items()))


def sources_used(plans: list[PoolPlan]) -> dict[str, dict]:
    table = prices()["sources"]
    return {s: table[s] for s in sorted({s for p in plans for s in p.sources}) if s in table}
