"""The profile as typed values, with every default filled in.

Built only from data that passed the JSON Schema, so it trusts types and enums.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gengpu import catalog

DEFAULT_TAINTS = ({"key": "nvidia.com/gpu", "effect": "NoSchedule"},)
DEFAULT_AMI_ALIAS = "al2023@v20260917"  # the schema's spec.eks.amiAlias default


@dataclass(frozen=True)
class Taint:
    key: str
    effect: str
    value: str | None = None

    def toleration(self) -> dict:
        if self.value is None:
            return {"key": self.key, "operator": "Exists", "effect": self.effect}
        return {"key": self.key, "operator": "Equal", "value": self.value, "effect": self.effect}


@dataclass(frozen=True)
class Mig:
    strategy: str
    layout: dict | None = None
    preset: str | None = None
    replicas: int | None = None  # time-slicing on each MIG device (the device plugin's timeSlicing resources)
    # per GPU (mig.layouts): (the node's GPU indices, their layout, or None where they stay whole), as written
    layouts: tuple[tuple[tuple[int, ...], dict | None], ...] | None = None


@dataclass(frozen=True)
class Sharing:
    mode: str = "none"
    replicas: int | None = None
    rename_by_default: bool = False
    fail_requests_greater_than_one: bool | None = None
    mig: Mig | None = None
    allocation_policy: str | None = None  # the device plugin's sharedDevicesAllocationPolicy (v0.20.0+)

    @property
    def mig_replicas(self) -> int:
        """How many pods take turns on each MIG device: 1 unless the MIG layout is time-sliced (mig.replicas)."""
        return self.mig.replicas if self.mode == "mig" and self.mig is not None and self.mig.replicas else 1


@dataclass(frozen=True)
class NodePool:
    index: int
    name: str
    gpus: tuple[str, ...]  # models as written; resolve with catalog.resolve_gpu
    gpus_per_node: int | None
    instance_types: tuple[str, ...]
    capacity_types: tuple[str, ...]
    provisioner: str
    taints: tuple[Taint, ...]
    labels: dict
    limits: dict
    sharing: Sharing
    cuda_version: str | None = None
    consolidation_policy: str = "WhenEmpty"
    consolidate_after: str = "5m"
    weight: int | None = None
    verify: bool = False
    kubelet: dict = field(default_factory=dict)  # EC2NodeClass spec.kubelet fields
    allocation: str = "device-plugin"  # or "dra": pods claim GPUs through NVIDIA's DRA driver
    node_selector: dict = field(default_factory=dict)  # labels of its nodes in a running cluster (gengpu check)
    # what the GPUs run (the operator's nvidia.com/gpu.workload.config): container, vm-passthrough or vm-vgpu
    workload: str = "container"
    vgpu_type: str | None = None  # vm-vgpu: the vGPU type (nvidia.com/vgpu.config), A10-8Q
    confidential_computing: str | None = None  # nvidia.com/cc.mode: on, off, devtools, ppcie

    @property
    def dra(self) -> bool:
        return self.allocation == "dra"

    @property
    def for_vms(self) -> bool:
        """Its GPUs go to virtual machines (passthrough or vGPU), through NVIDIA's sandbox stack, not to pods."""
        return self.workload != "container"

    @property
    def gpu_ids(self) -> tuple[str | None, ...]:
        """Canonical ids, None for a model the catalog does not know."""
        return tuple(catalog.resolve_gpu(g) for g in self.gpus)

    @property
    def gpu_id(self) -> str | None:
        """The pool's one known model, or None when it has several or an unknown one."""
        ids = set(self.gpu_ids)
        return ids.pop() if len(ids) == 1 else None


@dataclass(frozen=True)
class Operator:
    enabled: bool = True
    version: str = "v26.7.0"
    namespace: str = "gpu-operator"
    driver: str = "auto"
    toolkit: str = "auto"
    driver_version: str | None = None
    # clusterpolicy: the ClusterPolicy (driver, toolkit, device plugin, MIG manager, DCGM); gpucluster: the GPUCluster
    # of GPU Operator v26.7.0+ (NVIDIA's DRA driver, DCGM and dcgm-exporter; the driver from an NVIDIADriver)
    model: str = "clusterpolicy"


@dataclass(frozen=True)
class ArgoCD:
    repo_url: str
    revision: str = "HEAD"
    project: str = "default"
    namespace: str = "argocd"
    overlays_dir: str = "overlays"
    server: str | None = "https://kubernetes.default.svc"
    cluster_name: str | None = None


@dataclass(frozen=True)
class Flux:
    namespace: str = "flux-system"
    git_repository: str = "flux-system"  # the GitRepository of this repository, as `flux bootstrap` names it
    interval: str = "10m"
    overlays_dir: str = "overlays"
    retry_interval: str = "1m"  # a failed Kustomization retries this soon, not after `interval`
    drift_detection: str | None = None  # the HelmReleases' spec.driftDetection.mode: enabled, warn or disabled
    service_account: str | None = None  # multi-tenant Flux: the account Kustomizations and HelmReleases act as
    depends_on: tuple[tuple[str, str | None], ...] = ()  # (name, namespace) of Kustomizations the add-ons wait for


@dataclass(frozen=True)
class Monitoring:
    mode: str = "service-monitor"
    namespace: str = "monitoring"
    interval: str = "15s"
    scrape_timeout: str = "10s"
    labels: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Suppression:
    index: int
    rule: str
    reason: str
    pools: tuple[str, ...]


@dataclass(frozen=True)
class Profile:
    name: str
    description: str
    platform: str
    region: str
    zones: tuple[str, ...]
    kubernetes_version: str
    operator: Operator
    node_pools: tuple[NodePool, ...]
    monitoring_config: Monitoring
    argocd: ArgoCD
    source: str = field(default="", compare=False)  # profile path as shown in headers
    suppressions: tuple[Suppression, ...] = ()
    eks: dict = field(default_factory=dict)
    aks: dict = field(default_factory=dict)
    gke: dict = field(default_factory=dict)
    verify_image: str = "nvcr.io/nvidia/k8s/cuda-sample:vectoradd-cuda12.5.0"
    dra_driver_version: str | None = None  # None: the catalog's default
    quotas: dict = field(default_factory=dict)  # quota name or code -> amount granted in the region
    gitops: str = "argocd"  # or "flux": who syncs the repository into the cluster
    flux: Flux = field(default_factory=Flux)

    @property
    def gpucluster(self) -> bool:
        """The GPU Operator runs the cluster's GPUs through its GPUCluster: no ClusterPolicy, no device plugin."""
        return self.operator.enabled and self.operator.model == "gpucluster"

    @property
    def cluster_policy(self) -> bool:
        """The GPU Operator runs through its ClusterPolicy (the device plugin, MIG manager and sharing ConfigMaps)."""
        return self.operator.enabled and self.operator.model != "gpucluster"

    @property
    def aks_managed_gpu(self) -> bool:
        """AKS's managed GPU node pools (preview): AKS runs the driver, NVIDIA's device plugin, DCGM and its exporter on
        every GPU node as systemd services (az aks nodepool add --enable-managed-gpu=true)."""
        return self.platform == "aks" and bool(self.aks.get("managedGpu"))

    @property
    def ami_alias(self) -> str:
        """The EKS AMI alias of gengpu's Karpenter pools."""
        return self.eks.get("amiAlias", DEFAULT_AMI_ALIAS)

    def node_device_plugin(self, pool: NodePool) -> str | None:
        """Who runs a device plugin on the pool's nodes besides the GPU Operator, or None: GKE's own plugin, AKS's
        managed GPU stack, or the one built into Bottlerocket's NVIDIA variants (a Karpenter pool on a bottlerocket@
        AMI alias)."""
        platform = catalog.platforms()[self.platform]
        if platform["builtinDevicePlugin"]:
            return f"{platform['title']}'s own device plugin"
        if self.aks_managed_gpu:
            return "AKS's managed GPU stack (spec.aks.managedGpu)"
        if self.platform == "eks" and pool.provisioner == "karpenter" and self.ami_alias.startswith("bottlerocket@"):
            return "Bottlerocket's NVIDIA variant (spec.eks.amiAlias)"
        return None

    @property
    def dra_pools(self) -> tuple[NodePool, ...]:
        return tuple(p for p in self.node_pools if p.dra)

    @property
    def monitoring(self) -> str:
        return self.monitoring_config.mode

    @property
    def cluster_name(self) -> str:
        section = self.eks if self.platform == "eks" else self.aks if self.platform == "aks" else {}
        return section.get("clusterName", self.name)

    @property
    def overlay_path(self) -> str:
        return f"{self.flux.overlays_dir if self.gitops == 'flux' else self.argocd.overlays_dir}/{self.name}"

    def driver_version(self) -> str | None:
        """The nodes' driver version when known: declared, or the operator chart's default it installs."""
        if self.operator.driver_version:
            return self.operator.driver_version
        if self.operator.enabled and self.owns("driver"):
            release = catalog.operator()["releases"].get(self.operator.version)
            return release["driver"] if release else None
        return None

    def owns(self, component: str) -> bool:
        """True when the GPU Operator installs the driver or the toolkit."""
        choice = getattr(self.operator, component)
        platform = catalog.platforms()[self.platform]
        if choice == "auto":
            if component == "toolkit" and platform.get("driverSkippable") and self.operator.driver == "operator":
                return True  # the node image's driver is skipped, and its toolkit with it
            return not platform[f"{component}Preinstalled"]
        return choice == "operator"


def _sharing(data: dict | None) -> Sharing:
    data = data or {}
    mig = data.get("mig")
    return Sharing(
        mode=data.get("mode", "none"),
        replicas=data.get("replicas"),
        rename_by_default=data.get("renameByDefault", False),
        fail_requests_greater_than_one=data.get("failRequestsGreaterThanOne"),
        mig=Mig(mig["strategy"], mig.get("layout"), mig.get("preset"), mig.get("replicas"),
                tuple((tuple(e["gpus"]), None if e.get("whole") else e.get("layout")) for e in mig["layouts"])
                if mig.get("layouts") else None) if mig else None,
        allocation_policy=data.get("allocationPolicy"),
    )


def _pool(index: int, data: dict) -> NodePool:
    return NodePool(
        index=index,
        name=data["name"],
        gpus=tuple(data["gpu"]) if isinstance(data["gpu"], list) else (data["gpu"],),
        gpus_per_node=data.get("gpusPerNode"),
        instance_types=tuple(data.get("instanceTypes", ())),
        capacity_types=tuple(data.get("capacityTypes", ["on-demand"])),
        provisioner=data.get("provisioner", "managed"),
        taints=tuple(Taint(t["key"], t["effect"], t.get("value")) for t in data.get("taints", DEFAULT_TAINTS)),
        labels=dict(data.get("labels", {})),
        node_selector=dict(data.get("nodeSelector", {})),
        limits=dict(data.get("limits", {})),
        sharing=_sharing(data.get("sharing")),
        cuda_version=data.get("cudaVersion"),
        consolidation_policy=data.get("consolidationPolicy", "WhenEmpty"),
        consolidate_after=data.get("consolidateAfter", "5m"),
        weight=data.get("weight"),
        verify=data.get("verify", False),
        kubelet=dict(data.get("kubelet") or {}),
        allocation=data.get("allocation", "device-plugin"),
        workload=data.get("workload", "container"),
        vgpu_type=data.get("vgpuType"),
        confidential_computing=data.get("confidentialComputing"),
    )


def build_profile(data: dict, source: str) -> Profile:
    spec = data["spec"]
    op = spec.get("operator", {})
    argo = spec.get("argocd") or {}  # absent when Flux syncs the cluster
    flux = spec.get("flux") or {}
    dest = argo.get("destination", {})
    mon = spec.get("monitoring", {})
    return Profile(
        name=data["metadata"]["name"],
        description=data["metadata"].get("description", ""),
        platform=spec["platform"],
        region=spec.get("region", ""),
        zones=tuple(spec.get("zones", [])),
        kubernetes_version=spec["kubernetesVersion"],
        operator=Operator(
            enabled=op.get("enabled", spec["platform"] != "gke-autopilot"),
            version=op.get("version", catalog.operator()["default"]),
            namespace=op.get("namespace", "gpu-operator"),
            driver=op.get("driver", "auto"),
            toolkit=op.get("toolkit", "auto"),
            driver_version=op.get("driverVersion"),
            model=op.get("model", "clusterpolicy"),
        ),
        node_pools=tuple(_pool(i, p) for i, p in enumerate(spec["nodePools"])),
        monitoring_config=Monitoring(
            mode=mon.get("mode", "service-monitor"),
            namespace=mon.get("namespace", "monitoring"),
            interval=mon.get("interval", "15s"),
            scrape_timeout=mon.get("scrapeTimeout", "10s"),
            labels=dict(mon.get("serviceMonitorLabels", {})),
        ),
        argocd=ArgoCD(
            repo_url=argo.get("repoURL", ""),
            revision=argo.get("revision", "HEAD"),
            project=argo.get("project", "default"),
            namespace=argo.get("namespace", "argocd"),
            overlays_dir=argo.get("overlaysDir", "overlays"),
            server=None if "name" in dest else dest.get("server", "https://kubernetes.default.svc"),
            cluster_name=dest.get("name"),
        ),
        source=source,
        suppressions=tuple(
            Suppression(i, s["rule"], s.get("reason", "").strip(), tuple(s.get("pools", [])))
            for i, s in enumerate(spec.get("suppress", []))),
        eks=dict(spec.get("eks", {})),
        aks=dict(spec.get("aks", {})),
        gke=dict(spec.get("gke", {})),
        **({"verify_image": spec["verifyImage"]} if "verifyImage" in spec else {}),
        dra_driver_version=(spec.get("draDriver") or {}).get("version"),
        quotas=dict(spec.get("quotas") or {}),
        gitops=spec.get("gitops", "argocd"),
        flux=Flux(namespace=flux.get("namespace", "flux-system"), git_repository=flux.get("gitRepository", "flux-system"),
                  interval=flux.get("interval", "10m"), overlays_dir=flux.get("overlaysDir", "overlays"),
                  retry_interval=flux.get("retryInterval", "1m"), drift_detection=flux.get("driftDetection"),
                  service_account=flux.get("serviceAccountName"),
                  depends_on=tuple((d["name"], d.get("namespace")) for d in flux.get("dependsOn", []))),
    )
