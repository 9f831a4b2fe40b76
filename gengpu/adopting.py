"""A profile from a running cluster: what `gengpu import --snapshot` (or `--context`) writes, so a team adopts gengpu
by checking in what it already runs, then `gengpu check` keeps it honest.

Read from the nodes as they are: the platform from the cloud's node labels (none: `kubernetes`, nodes you bring);
one pool per node group (the provisioner's or cloud's pool label), else per kind of GPU node (GPU Feature
Discovery's product and count); each pool's GPU, GPUs per node and instance types; its sharing from what the nodes
advertise and GFD labels (time-slicing or MPS replicas, renamed shared GPUs, the MIG strategy and the layout per
GPU). What a snapshot cannot say (prices, limits, quotas) is left for the team, and said in comments.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from gengpu import catalog, mig, names
from gengpu.live import pools as live_pools
from gengpu.adopting_sharing import REPLICAS, counts as _counts, laid_out_per_gpu, mig_devices, sharing_of
from gengpu.live.snapshot import Item, Snapshot

PLATFORM_LABELS = (  # (label, platform, whether its value names the node group)
    ("karpenter.sh/nodepool", "eks", True),
    ("eks.amazonaws.com/nodegroup", "eks", True),
    ("alpha.eksctl.io/nodegroup-name", "eks", True),
    ("cloud.google.com/gke-nodepool", "gke", True),
    ("kubernetes.azure.com/agentpool", "aks", True),
)
REGION = "topology.kubernetes.io/region"


@dataclass
class Group:
    """The GPU nodes of one pool to be: what tied them together, and the nodes."""

    key: str  # the pool name to be
    selector: dict = field(default_factory=dict)  # label=value every node of the group has
    nodes: list[Item] = field(default_factory=list)
    # no other group has its GPU model and count: gengpu check ties its nodes by what they are, and a selector on
    # GFD's product would change with sharing (-SHARED) or MIG (-MIG-<profile>)
    distinct: bool = False
    dra: bool = False  # its nodes publish GPUs in ResourceSlices of NVIDIA's DRA driver


def platform_of(snapshot: Snapshot) -> str:
    """The platform the nodes' labels name (GKE Autopilot by its node names, gk3-, or its compute class), else
    kubernetes. GKE's cloud.google.com/gke-provisioning (standard, spot) is on Standard nodes too: no evidence."""
    for item in snapshot.nodes:
        labels = item.labels
        if (item.name.startswith("gk3-") and "cloud.google.com/gke-nodepool" in labels) or \
                labels.get("cloud.google.com/compute-class") in ("autopilot", "autopilot-spot"):
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
            mig_single = "-MIG-" in product  # (gpu.count counts MIG devices there, not GPUs)
            key = re.sub(r"-SHARED$|-MIG-.*$", "", product) + (
                f"-x{count}" if count and count != "1" and not mig_single else "")
            selector = {live_pools.PRODUCT: product} if live_pools.PRODUCT in labels else {}
        found.setdefault(key, Group(key, selector)).nodes.append(item)
    out = [found[k] for k in sorted(found)]
    taken: set[str] = set()
    for group in out:  # in the groups' order, so two labels that make one name (l4.spot, l4-spot) stay two pools
        group.key = _pool_name(group.key, taken)
        taken.add(group.key)
    kinds = [(live_pools.product_gpu(g.nodes[0].labels.get(live_pools.PRODUCT, "")),
              g.nodes[0].labels.get(live_pools.COUNT)) for g in out]
    sliced = {str(s.get("spec", "nodeName")) for s in snapshot.resourceslices
              if s.text("spec", "driver") == "gpu.nvidia.com"}
    for group, kind in zip(out, kinds):
        group.distinct = kinds.count(kind) == 1
        group.dra = all(n.name in sliced or n.labels.get("nvidia.com/dra-kubelet-plugin") == "true" for n in group.nodes)
    return out


def _pool_name(key: str, taken: set[str]) -> str:
    """A pool name for the group's label: a slug, not a name the device plugin's configs use, not one taken."""
    name = names.slug(re.sub(r"(?i)^(nvidia|tesla)-", "", key), "gpu")[:40].strip("-") or "gpu"
    name = name if name not in {"default", "all-disabled", "all-enabled", "all-balanced"} else f"{name}-pool"
    base, n = name, 2
    while name in taken:
        name, n = f"{base[:37]}-{n}", n + 1
    return name


def pool_of(group: Group, platform: str) -> tuple[dict, list[str]]:
    """The profile's node pool for a group, and notes on what the nodes left open."""
    notes: list[str] = []
    first = group.nodes[0]
    gpu_id, evidence = live_pools.node_gpu_model(platform, first)
    types = sorted({next((i.labels[k] for k in live_pools.INSTANCE_TYPE_LABELS if k in i.labels), None)
                    for i in group.nodes} - {None})
    spec = catalog.instance_type(platform, types[0]) if types and platform != "kubernetes" else None
    if types and platform == "kubernetes":
        # nodes you bring on a cloud's machines (OpenShift or kubeadm on EC2): the cloud's table still names the GPU
        spec = next((found for cloud in ("eks", "gke", "aks") for found in [catalog.instance_type(cloud, types[0])]
                     if found and found.get("gpu") and not found.get("family")), None)
    if gpu_id is None and spec and spec.get("gpu"):
        gpu_id = catalog.resolve_gpu(spec["gpu"])
    if gpu_id is None:
        gpu_id, evidence = model_from_resources(first) or (None, evidence)
    pool: dict = {"name": group.key, "gpu": gpu_id or "UNKNOWN"}
    if gpu_id is None:
        notes.append(f"pool {group.key}: no label names its GPU model ({evidence or 'no GPU Feature Discovery product'});"
                     " set gpu")
    gpus, counted = _gpus_per_node(first, spec, gpu_id)
    if gpus:
        pool["gpusPerNode"] = gpus
        if counted:
            notes.append(f"pool {group.key}: gpusPerNode {gpus} is {counted}")
    else:
        notes.append(f"pool {group.key}: no label counts its GPUs; set gpusPerNode")
    if platform != "kubernetes":
        pool["instanceTypes"] = types or ["UNKNOWN"]
        if not types:
            notes.append(f"pool {group.key}: its nodes carry no node.kubernetes.io/instance-type; set instanceTypes")
        pool["provisioner"] = "karpenter" if "karpenter.sh/nodepool" in group.selector else \
            ("autopilot" if platform == "gke-autopilot" else "managed")
    elif group.selector and not group.distinct:
        pool["nodeSelector"] = dict(group.selector)
    vms = _for_vms(first, gpu_id)
    if vms:
        pool.update(vms)
    else:
        per_gpu = laid_out_per_gpu(first, gpus)
        if per_gpu:
            notes.append(f"pool {group.key}: {per_gpu}")
        sharing = None if per_gpu else sharing_of(first, gpus, gpu_id)
        if sharing:
            pool["sharing"] = sharing
    if group.dra:
        pool["allocation"] = "dra"
    cc = first.labels.get(CC_MODE)
    if cc in ("on", "off", "devtools", "ppcie") and cc != "off":
        pool["confidentialComputing"] = cc
    return pool, notes


def _gpus_per_node(item: Item, spec: dict | None, gpu_id: str | None) -> tuple[int | None, str]:
    """The node's physical GPUs and, where no label or instance type says it, how it was worked out: from what the
    node registers (its MIG devices over the layout its mig.config names, its vGPUs over the type's share, its
    passed-through GPUs, its nvidia.com/gpu over GFD's replicas)."""
    labels = item.labels
    count = labels.get(live_pools.COUNT)
    product = labels.get(live_pools.PRODUCT, "")
    if count and count.isdecimal() and "-MIG-" not in product and int(count) > 0:
        return int(count), ""
    if spec and spec.get("gpus"):
        return int(spec["gpus"]), ""
    counts = _counts(item)
    preset = labels.get("nvidia.com/mig.config", "")
    layout = mig.preset_layout(gpu_id, preset) if gpu_id and preset.startswith("all-") else None
    devices, _ = mig_devices(item)
    if layout and devices and all(p in layout for p in devices):
        per = {p: devices.get(p, 0) / n for p, n in layout.items()}
        if len(set(per.values())) == 1 and float(next(iter(per.values()))).is_integer():
            return int(next(iter(per.values()))), f"its MIG devices over {preset}'s layout per GPU"
    single = re.search(r"-MIG-(\d+g\.\d+gb)(?:-SHARED)?$", product)
    if single and layout and count and count.isdecimal() and sum(layout.values()) and \
            int(count) % sum(layout.values()) == 0:
        return int(count) // sum(layout.values()), f"GFD's {count} MIG devices over {preset}'s layout per GPU"
    if layout is None and gpu_id and devices and mig.profiles(gpu_id):
        # MIG devices that fill whole GPUs: their compute slices over a GPU's (all-balanced on a DGX H100: 16 x 1g,
        # 8 x 2g and 8 x 3g fill 8 GPUs of 7 slices)
        table = {p.replace("+", "."): spec for p, spec in mig.profiles(gpu_id).items()}
        slices = catalog.gpus()[gpu_id]["mig"]["slices"]["compute"]
        used = sum(table[p]["compute"] * n for p, n in devices.items() if p in table)
        (only, n), = devices.items() if len(devices) == 1 else ((None, 0),)
        if only in table and n % table[only]["max"] == 0:
            # one profile, as many as a GPU holds on each (NVIDIA's all-<profile>)
            return n // table[only]["max"], f"its {n} {only} devices over the {table[only]['max']} a GPU holds"
        if all(p in table for p in devices) and used and used % slices == 0:
            return used // slices, "the GPUs its MIG devices fill (their compute slices over a GPU's); a layout that " \
                                   "leaves slices free would mean more"
    vms = {r: n for r, n in _vm_counts(item).items() if n}
    if vms:
        total = sum(vms.values())
        vgpu = next((m.group(1) for r in vms for m in [_VGPU.match(r)] if m), None)
        per = _per_gpu(gpu_id, vgpu) if vgpu else 1
        if per and total % per == 0:
            return total // per, "what the sandbox device plugin offers" + (f" over {per} {vgpu} per GPU" if vgpu else "")
    replicas = labels.get(REPLICAS)
    shared = counts.get("nvidia.com/gpu.shared") or counts.get("nvidia.com/gpu")
    if shared and not devices and not single:
        if replicas and replicas.isdecimal() and int(replicas) > 1:
            if shared % int(replicas) == 0:
                return shared // int(replicas), f"the {shared} GPUs it registers over GFD's {replicas} replicas"
            return None, ""
        if "nvidia.com/gpu.shared" not in counts and shared <= MAX_GPUS:
            return shared, ("the nvidia.com/gpu it registers (no label says whether they are shared: a time-sliced "
                            "GPU registers once per replica)")
    return None, ""


# NVIDIA's sandbox device plugin: a vGPU as nvidia.com/NVIDIA_<type>, a passed-through GPU by its PCI device name
# (nvidia.com/GA102GL_A10: the chip, then the product)
_VGPU = re.compile(r"^nvidia\.com/NVIDIA_(\S+-\d+[A-Z])$")
_PASSTHROUGH = re.compile(r"^nvidia\.com/[A-Z]{2}\d{3}[A-Z0-9]*_(\S+)$")
CC_MODE = "nvidia.com/cc.mode"
MAX_GPUS = 16  # a node's GPUs at most (the profile's gpusPerNode): more registered devices are shares


def _vm_counts(item: Item) -> dict[str, int]:
    out = {}
    for section in ("allocatable", "capacity"):
        for k, v in item.mapping("status", section).items():
            if (_VGPU.match(str(k)) or _PASSTHROUGH.match(str(k)) or str(k) == "nvidia.com/pgpu") and str(v).isdecimal():
                out[str(k)] = int(v)
    return out


def _per_gpu(gpu_id: str | None, vgpu: str) -> int | None:
    size = re.search(r"-(\d+)[A-Z]$", vgpu)
    memory = (catalog.gpu(gpu_id) or {}).get("memoryGB") if gpu_id else None
    return memory // int(size.group(1)) if size and memory and int(size.group(1)) else None


def model_from_resources(item: Item) -> tuple[str, str] | None:
    """(catalog id, evidence) of a GPU model the node's resources name: a vGPU type (NVIDIA_A10-8Q), a passed-through
    device (GA102GL_A10), or MIG profiles only one GPU has (mig-2g.10gb: A100 40GB)."""
    for name in _vm_counts(item):
        m = _VGPU.match(name) or _PASSTHROUGH.match(name)
        if m:
            stem = m.group(1).rsplit("-", 1)[0] if _VGPU.match(name) else m.group(1)
            found = live_pools.product_gpu(stem.replace("_", "-"))
            if found:
                return found, name
    shown = {str(k).removeprefix("nvidia.com/mig-") for section in ("capacity", "allocatable")
             for k in item.mapping("status", section) if str(k).startswith("nvidia.com/mig-")}
    if shown:
        having = [g for g in catalog.gpus() if shown <= {p.replace("+", ".") for p in mig.profiles(g)}]
        if len(having) == 1:
            return having[0], ", ".join(f"nvidia.com/mig-{p}" for p in sorted(shown))
    return None


def _for_vms(item: Item, gpu_id: str | None) -> dict:
    """workload (and vgpuType) of a node whose GPUs go to VMs: what the sandbox device plugin offers, else the
    operator's nvidia.com/gpu.workload.config label."""
    vms = {r: n for r, n in _vm_counts(item).items() if n}
    vgpu = next((m.group(1) for r in vms for m in [_VGPU.match(r)] if m), None)
    label = item.labels.get("nvidia.com/gpu.workload.config")
    if vgpu or label == "vm-vgpu":
        return {"workload": "vm-vgpu", **({"vgpuType": vgpu or item.labels["nvidia.com/vgpu.config"]}
                                           if vgpu or item.labels.get("nvidia.com/vgpu.config") else {})}
    if vms or label == "vm-passthrough" or item.labels.get(CC_MODE) in ("on", "devtools", "ppcie"):
        return {"workload": "vm-passthrough"}
    return {}


def _plugin_seen(item: Item) -> bool:
    """The node shows a device plugin at work: an nvidia.com resource in its capacity, or GPU Feature Discovery's
    labels (GFD runs beside the plugin, in its chart and in the operator)."""
    return any(str(k).startswith("nvidia.com/") for section in ("capacity", "allocatable")
               for k in item.mapping("status", section)) or any(
        k.startswith(("nvidia.com/gpu.", "nvidia.com/mig.")) for k in item.labels)


def kubernetes_version(snapshot: Snapshot) -> str | None:
    for item in snapshot.nodes:
        m = re.match(r"v?1\.(\d+)", str(item.get("status", "nodeInfo", "kubeletVersion") or ""))
        if m:
            return f"1.{m.group(1)}"
    return None


@functools.lru_cache(maxsize=1)
def _version_pattern() -> re.Pattern:
    """The Kubernetes versions gengpu validates against, as the profile schema says them."""
    from gengpu.schemas_dir import profile_schema

    return re.compile(profile_schema()["properties"]["spec"]["properties"]["kubernetesVersion"]["pattern"])


def _supported(version: str) -> bool:
    return _version_pattern().match(version) is not None


def _nearest_supported(version: str) -> str:
    """The supported minor version nearest to version (a cluster older or newer than any gengpu knows)."""
    minor = int(version.partition(".")[2])
    known = [m for m in range(0, 100) if _supported(f"1.{m}")]
    return f"1.{min(known, key=lambda m: (abs(m - minor), m))}"


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
    elif not _supported(version):
        nearest = _nearest_supported(version)
        spec["kubernetesVersion"] = nearest
        notes.append(f"the nodes run Kubernetes {version}, which gengpu does not validate against (the profile "
                     f"schema's spec.kubernetesVersion); spec.kubernetesVersion says {nearest}, the nearest it does")
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

    from gengpu.reporting.safe import shown

    profile, notes = profile_of(snapshot, name)
    # notes quote the cluster's labels: escaped, so each stays one comment line (a newline in a label would start
    # YAML of its own)
    head = [f"# Imported by gengpu from {shown(snapshot.source)}: {len(snapshot.nodes)} node(s), "
            f"{len(profile['spec']['nodePools'])} GPU pool(s)."]
    head += [f"# check: {shown(n)}" for n in notes]
    return "\n".join(head) + "\n" + dump(profile)
