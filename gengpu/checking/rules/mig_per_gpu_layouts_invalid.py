from gengpu.checking.rules.base import Hit, Rule, pool_path
from gengpu.cluster import gpu_counts


def _problems(profile, pool):
    """(path, why) for each thing wrong with a pool's per-GPU layouts (sharing.mig.layouts)."""
    m = pool.sharing.mig
    at = ("sharing", "mig", "layouts")
    if m.strategy != "mixed":
        yield pool_path(pool, "sharing", "mig", "strategy"), "per-GPU layouts need strategy mixed: under single " \
            "every GPU must hold MIG devices of one profile, or the device plugin advertises nothing (MIG-INVALID)"
    if pool.dra:
        yield pool_path(pool, *at), "per-GPU layouts are the MIG manager's (mig-parted devices: [indices]); a DRA " \
            "pool's MIG devices are the DRA driver's"
    elif profile.aks_managed_gpu:
        yield pool_path(pool, *at), "AKS's managed GPU pools partition every GPU alike (--gpu-instance-profile)"
    elif profile.platform in ("gke", "gke-autopilot") and not profile.operator.enabled:
        yield pool_path(pool, *at), "GKE's own MIG support partitions every GPU of a node pool alike " \
            "(gpu-partition-size); per-GPU layouts need the GPU Operator's MIG manager"
    counts = gpu_counts(profile, pool)
    if len(counts) != 1:
        yield pool_path(pool, *at), "per-GPU layouts name GPUs by index, so the pool's GPUs per node must be " \
            "known: set gpusPerNode" + (f" (its instance types have {', '.join(map(str, counts))})" if counts else "")
        return
    gpus, seen = counts[0], {}
    for i, (indices, _) in enumerate(m.layouts):
        for j, index in enumerate(indices):
            if index >= gpus:
                yield pool_path(pool, *at, i, "gpus", j), f"GPU {index} is not on a node of {gpus} GPU(s) (indices " \
                    f"0 to {gpus - 1})"
            elif index in seen:
                yield pool_path(pool, *at, i, "gpus", j), f"GPU {index} is in entries {seen[index]} and {i}: " \
                    "mig-parted applies both, the last wins"
            else:
                seen[index] = i
    missing = [i for i in range(gpus) if i not in seen]
    if missing:
        yield pool_path(pool, *at), f"GPU(s) {', '.join(map(str, missing))} of the node's {gpus} are in no entry: " \
            "mig-parted leaves them as they are, so the node offers what the profile cannot count"


def check(profile, ctx=None):
    for pool in profile.node_pools:
        if pool.sharing.mode == "mig" and pool.sharing.mig is not None and pool.sharing.mig.layouts:
            for path, why in _problems(profile, pool):
                yield Hit(path, f"nodePools[{pool.index}] ({pool.name}) sharing.mig.layouts: {why}",
                          key=path[-1] in ("layouts", "strategy"))


RULE = Rule(
    id="mig-per-gpu-layouts-invalid",
    severity="error",
    summary="A pool's per-GPU MIG layouts (sharing.mig.layouts) cannot be applied as written.",
    fix="Give every GPU index of the node (0 to gpusPerNode - 1) exactly once, with strategy mixed and the GPU "
    "Operator's MIG manager; on GKE without the operator, on AKS managed GPU pools and on DRA pools use one layout "
    "for every GPU.",
    explanation="The MIG manager applies a pool's mig-parted config entry by entry, each to the GPUs its devices "
    "list names (api/spec/v1 MigConfigSpec). A GPU named twice is configured twice and the last entry wins; a GPU in "
    "no entry keeps whatever it had; an index past the node's GPUs matches nothing. Under the single strategy the "
    "device plugin advertises nothing once the GPUs differ (MIG-INVALID). GKE's and AKS's own MIG support and a DRA "
    "driver partition every GPU of a pool alike.",
    source="NVIDIA/mig-parted api/spec/v1 (MigConfigSpec.Devices: all, or GPU indices); NVIDIA/k8s-device-plugin "
    "internal/lm/mig-strategy.go (MIG-INVALID); GKE gpu-partition-size; AKS --gpu-instance-profile",
    check=check,
)
