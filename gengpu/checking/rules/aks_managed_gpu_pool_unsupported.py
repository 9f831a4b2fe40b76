from gengpu.checking.rules.base import Hit, Rule, pool_path
from gengpu.cluster import mig_layout
from gengpu.mig import aks_instance_profile


def _problems(pool):
    """(path, why) for each thing the pool asks of AKS's managed GPU stack that it does not do."""
    mode = pool.sharing.mode
    if pool.dra:
        yield pool_path(pool, "allocation"), "asks for NVIDIA's DRA driver, but a managed GPU pool runs NVIDIA's " \
            "device plugin on its nodes, which would hand out the same GPUs"
    elif mode in ("time-slicing", "mps"):
        yield pool_path(pool, "sharing", "mode"), f"asks for {mode}, but AKS runs its managed device plugin with no " \
            "sharing config (nvidia-device-plugin --pass-device-specs)"
    elif pool.sharing.mig_replicas > 1:
        yield pool_path(pool, "sharing", "mig", "replicas"), "asks for time-sliced MIG devices, but AKS runs its " \
            "managed device plugin with no sharing config (nvidia-device-plugin --pass-device-specs)"
    elif mode == "mig" and pool.sharing.mig:
        if pool.provisioner == "node-auto-provisioning":
            yield pool_path(pool, "sharing", "mig"), "asks for MIG from node auto-provisioning, whose AKSNodeClass " \
                "has no MIG setting (only az aks nodepool add --gpu-instance-profile partitions GPUs)"
        elif pool.gpu_id and not pool.sharing.mig.layouts:  # (per-GPU layouts: mig-per-gpu-layouts-invalid's)
            size, why = aks_instance_profile(pool.gpu_id, mig_layout(pool))
            if size is None:
                yield pool_path(pool, "sharing", "mig"), f"asks for a MIG layout AKS cannot make: {why}"


def check(profile, ctx=None):
    if not profile.aks_managed_gpu:
        return
    for pool in profile.node_pools:
        for path, why in _problems(pool):
            yield Hit(path, f"nodePools[{pool.index}] ({pool.name}) {why}", key=path[-1] == "mig")


RULE = Rule(
    id="aks-managed-gpu-pool-unsupported",
    severity="error",
    summary="A pool asks AKS's managed GPU stack for something it does not do.",
    fix="Keep managed pools to whole GPUs or one MIG size per pool (1g.10gb: 7 is MIG1g on an A100 80GB or H100, "
    "2g.20gb: 3 MIG2g, 3g.40gb: 2 MIG3g, 4g.40gb: 1 MIG4g, 7g.80gb: 1 MIG7g), created with az aks nodepool add "
    "(provisioner: managed). For time-slicing, MPS, mixed layouts or DRA, drop "
    "spec.aks.managedGpu and run the GPU Operator (or NVIDIA's DRA driver).",
    explanation="A managed GPU pool runs NVIDIA's device plugin as a systemd service AKS writes itself: "
    "`nvidia-device-plugin --pass-device-specs`, with `--mig-strategy single|mixed` on MIG nodes, and no config "
    "file, so time-slicing and MPS settings have nowhere to go. AKS partitions MIG nodes at boot from "
    "--gpu-instance-profile, every GPU into as many instances of one size as fit (`nvidia-smi mig -cgi 19` seven "
    "times for MIG1g, 14 x3, 9 x2, 5, 0). Node auto-provisioning's AKSNodeClass has no MIG field. A DRA pool there "
    "would have the DRA driver and AKS's device plugin hand out the same GPUs.",
    source="Azure/AgentBaker@06836ee2 parts/linux/cloud-init/artifacts/cse_config.sh (startNvidiaManagedExpServices), "
    "mig-partition.sh; MicrosoftDocs/azure-aks-docs articles/aks/aks-managed-gpu-nodes.md at fb060abe; "
    "Azure/karpenter-provider-azure@352646f5 pkg/apis/crds/karpenter.azure.com_aksnodeclasses.yaml",
    check=check,
)
