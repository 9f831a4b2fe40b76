from gengpu import catalog
from gengpu.checking.rules.base import Hit, Rule, pool_path

# GPUs with Confidential Computing (NVIDIA's CC deployment guide: Hopper H100/H200 and Blackwell)
CC_ARCHITECTURES = ("hopper", "blackwell")


def check(profile, ctx=None):
    for pool in profile.node_pools:
        where = f"nodePools[{pool.index}]"
        if pool.for_vms and pool.sharing.mode != "none":
            yield Hit(pool_path(pool, "sharing", "mode"), f"{where} gives its GPUs to VMs (workload {pool.workload}) "
                      f"and shares them with sharing.mode {pool.sharing.mode}: the device plugin that shares GPUs "
                      "does not run on VM nodes")
        if pool.for_vms and pool.dra:
            yield Hit(pool_path(pool, "allocation"), f"{where} gives its GPUs to VMs (workload {pool.workload}) and "
                      "hands them out through DRA: NVIDIA's DRA driver serves pods, not VMs")
        if pool.vgpu_type and pool.workload != "vm-vgpu":
            yield Hit(pool_path(pool, "vgpuType"), f"{where}.vgpuType is set on a pool whose workload is "
                      f"{pool.workload}, not vm-vgpu: no vGPU is created")
        if pool.confidential_computing:
            if pool.workload != "vm-passthrough":
                yield Hit(pool_path(pool, "confidentialComputing"), f"{where}.confidentialComputing is "
                          f"{pool.confidential_computing} on a pool whose workload is {pool.workload}: confidential "
                          "GPUs are passed through whole to Kata sandboxes (workload vm-passthrough)")
            for gpu_id, written in zip(pool.gpu_ids, pool.gpus):
                arch = (catalog.gpu(gpu_id) or {}).get("architecture") if gpu_id else None
                if arch and arch not in CC_ARCHITECTURES:
                    yield Hit(pool_path(pool, "confidentialComputing"), f"{where}.confidentialComputing is set and "
                              f"its GPU {written} ({arch}) has no Confidential Computing mode (Hopper and Blackwell "
                              "have it)")


RULE = Rule(
    id="vm-workload-unsupported",
    severity="error",
    summary="A pool whose GPUs go to VMs (passthrough, vGPU, Confidential Computing) asks for what VM nodes do not do.",
    fix="Keep sharing, DRA and vgpuType to the pools they apply to: sharing and DRA on container pools, vgpuType on "
    "vm-vgpu pools, confidentialComputing on vm-passthrough pools of Hopper or Blackwell GPUs.",
    explanation="The GPU Operator runs one of two stacks on a node, by its nvidia.com/gpu.workload.config label: the "
    "container stack (driver, device plugin, its sharing and MIG) or the sandbox stack (VFIO manager, vGPU manager "
    "and device manager, sandbox device plugin). A VM pool's GPUs are never shared by the device plugin nor handed "
    "out by the DRA driver, and a confidential GPU is passed through whole to a Kata confidential sandbox.",
    source="NVIDIA GPU Operator docs: GPU Operator with KubeVirt (sandboxWorkloads, gpu.workload.config), "
    "Confidential Containers (cc.mode, supported GPUs)",
    check=check,
)
