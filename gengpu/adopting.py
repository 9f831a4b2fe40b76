"""A profile from a running cluster: what `gengpu import --snapshot` (or `--context`) writes, so a team adopts gengpu
by checking in what it already runs, then `gengpu check` keeps it honest.

Read from the nodes as they are: the platform from the cloud's node labels (none: `kubernetes`, nodes you bring);
one pool per node group (the provisioner's or cloud's pool label), else per kind of GPU node (GPU Feature
Discovery's product and count); each pool's GPU, GPUs per node and instance types; its sharing from what the nodes
advertise and GFD labels (time-slicing or MPS replicas, renamed shared GPUs, the MIG strategy and the layout per
GPU). What a snapshot cannot say (prices, limits, quotas) is left for the team, and said in comments.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from gengpu import catalog, mig, names
from gengpu.live import pools as live_pools
from gengpu.live.snapshot import Item, Snapshot

PLATFORM_LABELS = (  # (label, platform, whether its value names the node group)
    ("karpenter.sh/nodepool", "eks", True),
    ("eks.amazonaws.com/nodegroup", "eks", True),
    ("alpha.eksctl.io/nodegroup-name", "eks", True),
    ("cloud.google.com/gke-nodepool", "gke", True),
    ("kubernetes.azure.com/agentpool", "aks", True),
)
REGION = "topology.kubernetes.io/region"
STRATEGY = "nvidia.com/gpu.sharing-strategy"
REPLICAS = "nvidia.com/gpu.replicas"


@dataclass
class Group:
    """The GPU nodes of one pool to be: what tied them together, and the nodes."""

    key: str  # the pool name to be
    selector: dict = field(default_factory=dict)  # label=value every node of the group has
    nodes: list[Item] = field(default_factory=list)


def platform_of(snapshot: Snapshot) -> str:
    """The platform the nodes' labels name (GKE Autopilot by its compute classes), else kubernetes."""
    for item in snapshot.nodes:
        labels = item.labels
        if labels.get("cloud.google.com/gke-provisioning") or labels.get("cloud.google.com/compute-class") == "autopilot":
            return "gke-autopilot"
        for label, platform, _ in PLATFORM_LABELS:
            if label in labels and (label != "karpenter.sh/nodepool" or "karpenter.k8s.aws/instance-family" in labels
                                    or _eks_type(labels)):
                return platform
    return "kubernetes"


def _eks_type(labels: dict) -> bool:
    return catalog.instance_type("eks", labels.get("node.kubernetes.io/instance-type", "")) is not None


def groups(snapshot: Snapshot, platform: str) -> list[Group]:
    """The GPU nodes by node group label, else by GPU product and count (nodes you bring)."""
    found: dict[str, Group] = {}
    for item in snapshot.nodes:
        if not live_pools.is_gpu_node(item):
            continue
        labels = item.labels
        named = next(((label, labels[label]) for label, _, names_group in PLATFORM_LABELS
                      if names_group and label in labels), None)
        if named is not None:
            key, selector = named[1], {named[0]: named[1]}
        else:
            product = labels.get(live_pools.PRODUCT, "gpu")
            count = labels.get(live_pools.COUNT)
            key = re.sub(r"-SHARED$|-MIG-.*$", "", product) + (f"-x{count}" if count and count != "1" else "")
            selector = {live_pools.PRODUCT: product} if live_pools.PRODUCT in labels else {}
        found.setdefault(key, Group(_pool_name(key, set(found)), selector)).nodes.append(item)
    return [found[k] for k in sorted(found)]


def _pool_name(key: str, taken: set[str]) -> str:
    name = names.slug(re.sub(r"(?i)^(nvidia|tesla)-", "", key), "gpu")[:40].strip("-") or "gpu"
    return name if name not in {"default", "all-disabled", "all-enabled", "all-balanced"} else f"{name}-pool"


def pool_of(group: Group, platform: str) -> tuple[dict, list[str]]:
    """The profile's node pool for a group, and notes on what the nodes left open."""
    notes: list[str] = []
    first = group.nodes[0]
    gpu_id, evidence = live_pools.node_gpu_model(platform, first)
    types = sorted({i.labels.get("node.kubernetes.io/instance-type") for i in group.nodes} - {None})
    spec = catalog.instance_type(platform, types[0]) if types and platform != "kubernetes" else None
    if gpu_id is None and spec and spec.get("gpu"):
        gpu_id = catalog.resolve_gpu(spec["gpu"])
    pool: dict = {"name": group.key, "gpu": gpu_id or "UNKNOWN"}
    if gpu_id is None:
        notes.append(f"pool {group.key}: no label names its GPU model ({evidence or 'no GPU Feature Discovery product'});"
                     " set gpu")
    gpus = _gpus_per_node(first, spec)
    if gpus:
        pool["gpusPerNode"] = gpus
    else:
        notes.append(f"pool {group.key}: no label counts its GPUs; set gpusPerNode")
    if platform != "kubernetes":
        pool["instanceTypes"] = types or ["UNKNOWN"]
        if not types:
            notes.append(f"pool {group.key}: its nodes carry no node.kubernetes.io/instance-type; set instanceTypes")
        pool["provisioner"] = "karpenter" if "karpenter.sh/nodepool" in group.selector else \
            ("autopilot" if platform == "gke-autopilot" else "managed")
    elif group.selector:
        pool["nodeSelector"] = dict(group.selector)
    sharing = _sharing(first, gpus, gpu_id)
    if sharing:
        pool["sharing"] = sharing
    return pool, notes


def _gpus_per_node(item: Item, spec: dict | None) -> int | None:
    count = item.labels.get(live_pools.COUNT)
    if count and count.isdigit() and "-MIG-" not in item.labels.get(live_pools.PRODUCT, "") and int(count) > 0:
        return int(count)
    if spec and spec.get("gpus"):
        return int(spec["gpus"])
    return None


def _counts(item: Item) -> dict[str, int]:
    """What the node registered: capacity (allocatable where the snapshot has no capacity)."""
    out = {}
    for section in ("allocatable", "capacity"):
        for k, v in item.mapping("status", section).items():
            if str(k).startswith(live_pools.GPU_PREFIXES) and str(v).isdigit():
                out[str(k)] = int(v)
    return out


def _sharing(item: Item, gpus: int | None, gpu_id: str | None) -> dict | None:
    """The sharing the node shows: MIG devices (mixed: per resource; single: GFD's -MIG-<profile> product), else
    GFD's sharing strategy and replicas, with the shared GPUs renamed where they are advertised as .shared."""
    labels, counts = item.labels, _counts(item)
    devices = {r.removeprefix("nvidia.com/mig-"): n for r, n in counts.items() if r.startswith("nvidia.com/mig-") and n}
    if not devices:  # GFD's per-profile labels under the mixed strategy (nvidia.com/mig-<profile>.count)
        devices = {m.group(1): int(v) for k, v in labels.items()
                   if (m := re.match(r"^nvidia\.com/mig-(\d+g\.\d+gb)\.count$", k)) and str(v).isdigit() and int(v)}
    product = labels.get(live_pools.PRODUCT, "")
    if devices and gpus:
        layout = {p: n // gpus for p, n in sorted(devices.items()) if n // gpus}
        return {"mode": "mig", "mig": {"strategy": "mixed", **_layout_or_preset(layout, labels, gpu_id)}}
    single = re.search(r"-MIG-(\d+g\.\d+gb)$", product)
    if single and gpus and counts.get("nvidia.com/gpu"):
        layout = {single.group(1): counts["nvidia.com/gpu"] // gpus}
        return {"mode": "mig", "mig": {"strategy": "single", **_layout_or_preset(layout, labels, gpu_id)}}
    strategy, replicas = labels.get(STRATEGY), labels.get(REPLICAS)
    shared = counts.get("nvidia.com/gpu.shared") or counts.get("nvidia.com/gpu")
    if not (replicas and replicas.isdigit()) and shared and gpus and shared > gpus and shared % gpus == 0:
        replicas = str(shared // gpus)  # no GFD label: what the plugin registered per GPU
    if replicas and replicas.isdigit() and int(replicas) > 1 and strategy in (None, "time-slicing", "mps"):
        # GFD before the sharing-strategy label knew only time-slicing
        out = {"mode": strategy or "time-slicing", "replicas": int(replicas)}
        if "nvidia.com/gpu.shared" in counts:
            out["renameByDefault"] = True
        return out
    return None


def _layout_or_preset(layout: dict, labels: dict, gpu_id: str | None) -> dict:
    """NVIDIA's stock config name where the node runs one and it is this layout, else the layout itself."""
    config = labels.get("nvidia.com/mig.config", "")
    if gpu_id and config.startswith("all-") and mig.preset_layout(gpu_id, config) == layout:
        return {"preset": config}
    return {"layout": layout}


def _plugin_seen(item: Item) -> bool:
    """The node shows a device plugin at work: an nvidia.com resource in its capacity, or GPU Feature Discovery's
    labels (GFD runs beside the plugin, in its chart and in the operator)."""
    return any(str(k).startswith("nvidia.com/") for k in (item.get("status", "capacity") or {})) or any(
        k.startswith(("nvidia.com/gpu.", "nvidia.com/mig.")) for k in item.labels)


def kubernetes_version(snapshot: Snapshot) -> str | None:
    for item in snapshot.nodes:
        m = re.match(r"v?1\.(\d+)", str(item.get("status", "nodeInfo", "kubeletVersion") or ""))
        if m:
            return f"1.{m.group(1)}"
    return None


def profile_of(snapshot: Snapshot, name: str) -> tuple[dict, list[str]]:
    """The profile (as data, in the order a person writes it) and notes on what to fill in or check."""
    platform = platform_of(snapshot)
    notes: list[str] = []
    spec: dict = {"platform": platform}
    if platform != "kubernetes":
        region = next((i.labels[REGION] for i in snapshot.nodes if REGION in i.labels), None)
        spec["region"] = region or "UNKNOWN"
        if region is None:
            notes.append(f"no node carries {REGION}; set spec.region")
    version = kubernetes_version(snapshot)
    spec["kubernetesVersion"] = version or "1.33"
    if version is None:
        notes.append("no node states its kubelet version; spec.kubernetesVersion is a guess")
    operated = any(k.startswith("nvidia.com/gpu.deploy.") for i in snapshot.nodes for k in i.labels) or \
        bool(snapshot.clusterpolicies)
    if platform != "gke-autopilot":
        spec["operator"] = {"enabled": operated}
    # AKS's managed GPU stack labels its nodes (AgentBaker cse_config.sh); with the operator too, check says so
    aks_managed = platform == "aks" and not operated and any(
        all(i.labels.get(k) == v for k, v in catalog.platforms()["aks"]["managedGpu"]["nodeLabel"].items())
        for i in snapshot.nodes)
    if aks_managed:
        spec["aks"] = {"managedGpu": True}
    spec["nodePools"], own = [], []
    for group in groups(snapshot, platform):
        pool, more = pool_of(group, platform)
        spec["nodePools"].append(pool)
        notes += more
        if pool.get("allocation") != "dra" and any(_plugin_seen(i) for i in group.nodes):
            own.append(pool["name"])
    if not operated and not aks_managed and platform in ("eks", "aks", "kubernetes") and own:
        # The nodes advertise GPUs with no operator and no platform plugin: the cluster runs a device plugin gengpu
        # does not install. Say so in the profile rather than have no-device-plugin call the cluster broken.
        spec["suppress"] = [{"rule": "no-device-plugin", "pools": own,
                             "reason": "imported from a cluster whose nodes show NVIDIA's device plugin or GPU Feature "
                                       "Discovery without the GPU Operator: it runs a device plugin of its own, which "
                                       "gengpu does not install"}]
        notes.append("no GPU Operator on the nodes: the cluster's own device plugin stays yours to run "
                     "(no-device-plugin is suppressed for that reason)")
    notes.append("limits, capacity types, taints and quotas are the team's to set: a snapshot does not show them")
    profile = {"apiVersion": "gengpu.dev/v1alpha1", "kind": "GPUProfile", "metadata": {"name": name}, "spec": spec}
    profile["spec"]["argocd"] = {"repoURL": "https://github.com/example/gitops.git"}
    notes.append("spec.argocd.repoURL is a placeholder: the repository Argo CD syncs (or set spec.gitops: flux)")
    return profile, notes


def profile_text(snapshot: Snapshot, name: str) -> str:
    from gengpu.compiling.yamltext import dump

    profile, notes = profile_of(snapshot, name)
    head = [f"# Imported by gengpu from {snapshot.source}: {len(snapshot.nodes)} node(s), "
            f"{len(profile['spec']['nodePools'])} GPU pool(s)."]
    head += [f"# check: {n}" for n in notes]
    return "\n".join(head) + "\n" + dump(profile)
