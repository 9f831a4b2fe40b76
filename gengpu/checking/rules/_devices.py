"""What a node advertises against what its pool promises, judged once per node and told by cause.

The kubelet shows a device plugin's devices in capacity (registered) and allocatable (healthy). Read together with
the promise and GPU Feature Discovery's labels they tell apart: a plugin that is down or restarting (every device of
a resource gone at once), a MIG re-partition in progress (the MIG manager pauses the plugin), unhealthy devices (some
gone: Xid, ECC), GPUs missing (fewer registered than the node has), a config not applied, more devices than
promised, and whole GPUs left beside MIG devices. Each rule module reports the causes of its own id.
"""

from __future__ import annotations

from gengpu.checking.rules._live import at_pool
from gengpu.cluster import mig_layout
from gengpu.live.pools import COUNT, PRODUCT, promised

MIG_STATE = "nvidia.com/mig.config.state"
PAUSED = "paused-for-mig-change"


def reconfiguring(node) -> str | None:
    """The label that says the MIG manager is re-partitioning the node's GPUs (the device plugin is paused)."""
    labels = node.labels
    if labels.get(MIG_STATE) in ("pending", "rebooting"):
        return f"{MIG_STATE}={labels[MIG_STATE]}"
    for key, value in sorted(labels.items()):
        if key.startswith("nvidia.com/gpu.deploy.") and value == PAUSED:
            return f"{key}={value}"
    return None


def plugin_where(profile) -> str:
    """Where the node's device plugin runs, by how the profile installs it: where to look."""
    if profile.aks_managed_gpu:
        return "AKS's managed device plugin runs on the node itself: its nvidia-device-plugin service"
    if profile.operator.enabled:
        return (f"its pod: kubectl get pods -n {profile.operator.namespace} -o wide -l "
                "app=nvidia-device-plugin-daemonset")
    if profile.platform in ("gke", "gke-autopilot"):
        return "GKE's device plugin: kubectl get pods -n kube-system -o wide -l k8s-app=nvidia-gpu-device-plugin"
    return "the device plugin's own DaemonSet, installed outside gengpu: its pod on the node"


def hits(rule: str, node, cluster, *path):
    """The findings of one rule among the node's causes, at the pool (path: the field of the pool they are about)."""
    for found, message in causes(node, cluster):
        if found == rule:
            yield at_pool(node, message, *path)


def causes(node, cluster) -> list[tuple[str, str]]:
    """(rule id, message) for every way the node's advertised devices differ from its pool's promise; judged once
    per node, whichever rule asks first."""
    if "devices" not in node.memo:
        node.memo["devices"] = _causes(node, cluster)
    return node.memo["devices"]


def _causes(node, cluster) -> list[tuple[str, str]]:
    pool = node.pool
    if pool is None or pool.dra or not node.has_counts():
        return []
    out: list[tuple[str, str]] = []
    busy = reconfiguring(node)
    resources = node.gpu_resources()
    wanted = promised(cluster.profile, node)
    gone = set()
    for resource, (capacity, allocatable) in resources.items():
        if allocatable == 0 and capacity and resource not in wanted and any(
                (resources.get(r) or (None, None))[1] for r in wanted):
            # a name the node no longer serves (renameByDefault switched, a MIG profile of an earlier layout): the
            # kubelet keeps its capacity, at allocatable 0, after the plugin stops advertising it, while the promised
            # resource is offered
            continue
        if capacity and allocatable is not None and allocatable < capacity:
            gone.add(resource)
            if allocatable > 0:
                out.append(("node-gpus-unhealthy", f"{capacity - allocatable} of {capacity} {resource} are unhealthy "
                            f"(allocatable {allocatable} < capacity {capacity})"))
            elif not busy:
                out.append(("node-device-plugin-down", f"all {capacity} {resource} are unavailable at once "
                            f"(allocatable 0 < capacity {capacity}): the device plugin is not registered, or every "
                            f"device failed its health check ({plugin_where(cluster.profile)})"))
    if busy:
        return out  # counts in transition: node-gpu-reconfiguring says so
    if pool.for_vms:
        return out + _vms(node, pool, resources)
    if not wanted:
        return out
    # what the plugin registered: capacity (allocatable where the snapshot has no capacity)
    shown = {r: (c if c is not None else a) or 0 for r, (c, a) in resources.items()}
    gpus = node.gpus
    count = node.labels.get(COUNT)
    single_mig = pool.sharing.mode == "mig" and pool.sharing.mig is not None and pool.sharing.mig.strategy == "single"
    if count and count.isdecimal() and gpus and int(count) < gpus and not single_mig \
            and "-MIG-" not in node.labels.get(PRODUCT, ""):
        out.append(("node-gpus-missing", f"GPU Feature Discovery counts {COUNT}={count} (the GPUs the driver sees), "
                    f"the pool's nodes have {gpus} GPU(s): {gpus - int(count)} not visible to the driver (fallen off "
                    "the bus, Xid 79; bound to vfio-pci; disabled in firmware)"))
        return out
    if not any(shown.values()):
        promise = ", ".join(f"{n} {r}" for r, (n, _) in wanted.items())
        out.append(("node-gpus-not-advertised", f"advertises no GPU resource, the profile promises {promise}: the "
                    f"device plugin never registered (not running on the node, or without its config: "
                    f"{plugin_where(cluster.profile)})"))
        return out
    if pool.sharing.mode == "mig" and mig_layout(pool):
        out += _mig(node, pool, wanted, shown, gone)
    else:
        out += _shared(node, pool, wanted, shown, gone)
    return out


def _shared(node, pool, wanted: dict, shown: dict, gone: set) -> list[tuple[str, str]]:
    (resource, (expected, why)), = wanted.items()
    other = "nvidia.com/gpu" if resource.endswith(".shared") else "nvidia.com/gpu.shared"
    have = shown.get(resource, 0)
    gpus = node.gpus or 0
    replicas = pool.sharing.replicas if pool.sharing.mode in ("time-slicing", "mps") and pool.sharing.replicas else 1
    mig = {r: n for r, n in shown.items() if r.startswith("nvidia.com/mig-") and n}
    if mig:
        listed = ", ".join(f"{n} {r}" for r, n in sorted(mig.items()))
        return [("node-gpus-not-advertised", f"advertises MIG devices ({listed}) on a pool without MIG, the "
                 f"profile promises {expected} {resource} ({why}): a MIG layout is still applied")]
    if not have and shown.get(other):
        renamed = "renames the shared GPUs" if other.endswith(".shared") else "does not rename the shared GPUs"
        return [("node-gpus-not-advertised", f"advertises {shown[other]} {other} and no {resource}: the device "
                 f"plugin {renamed}, the profile promises {expected} {resource} ({why})")]
    if resource in gone or have == expected:
        return []
    if have < expected:
        if replicas > 1 and have == gpus:
            return [("node-gpus-not-advertised", f"{resource} is {have}, one per GPU, the profile promises "
                     f"{expected} ({why}): the sharing config did not apply")]
        if have % replicas == 0 and have // replicas < gpus:
            seen = have // replicas
            return [("node-gpus-missing", f"{resource} is {have}" + (f" = {seen} GPU(s) x {replicas}" if replicas > 1
                     else "") + f", the profile promises {expected} ({why}): {seen} of {gpus} GPU(s) registered. "
                     "What the node shows cannot tell apart a GPU the driver does not see (Xid 79, bound to "
                     "vfio-pci), one the plugin found unhealthy as it started (a critical Xid), or a device discovery "
                     f"that skips it; GPU Feature Discovery's {COUNT} label would tell the first")]
        return [("node-gpus-not-advertised", f"{resource} is {have}, the profile promises {expected} ({why}): "
                 "another sharing config applies")]
    return [("node-gpus-over-advertised", f"{resource} is {have}, the profile promises {expected} ({why}): the "
             "node runs another sharing config (more replicas, or sharing the pool does not promise)")]


def _mig(node, pool, wanted: dict, shown: dict, gone: set) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    gpus = node.gpus or 0
    whole = shown.get("nvidia.com/gpu", 0)
    devices = {r: n for r, n in shown.items() if r.startswith("nvidia.com/mig-") and n}
    product = node.labels.get(PRODUCT, "")
    if pool.sharing.mig.strategy == "single":
        (resource, (expected, why)), = wanted.items()
        per = expected // gpus if gpus else 0
        if product and "-MIG-" not in product and (per != 1 or whole == gpus):
            return [("node-gpus-not-advertised", f"GPU Feature Discovery reports {PRODUCT}={product}, a GPU without "
                     f"MIG, the profile promises {expected} MIG devices ({why}): MIG is not enabled on the node")]
        if resource in gone or whole == expected:
            return []
        rule = "node-gpus-not-advertised" if whole < expected else "node-gpus-over-advertised"
        return [(rule, f"nvidia.com/gpu is {whole}, the profile promises {expected} ({why}): the node runs "
                 "another MIG layout")]
    listed = ", ".join(f"{n} {r}" for r, n in sorted(devices.items()))
    # per-GPU layouts (mig.layouts) promise some GPUs whole, beside the MIG devices
    wanted = dict(wanted)
    kept_whole, whole_why = wanted.pop("nvidia.com/gpu", (0, ""))
    if whole > kept_whole and devices:  # the GPUs left whole are why the MIG devices fall short: one cause
        out = [("node-mig-whole-gpus", f"advertises {whole} whole nvidia.com/gpu beside its MIG devices "
                f"({listed}): " + (f"the profile promises {kept_whole} ({whole_why}), and {whole - kept_whole} "
                                   "more run without MIG" if kept_whole else "under the mixed strategy every GPU "
                                   f"of the pool is to be partitioned, and {whole} run without MIG"))]
        # and devices of a profile the layout does not have: another cause (a layout before the last, still
        # registered), said on its own
        stale = [f"{r} is {n}, a profile the pool's layout does not have" for r, n in sorted(devices.items())
                 if r not in wanted and r not in gone]
        if stale:
            out.append(("node-gpus-over-advertised", "; ".join(stale) + ": the node runs another MIG layout"))
        return out
    if not devices:
        state = "MIG is not enabled" if whole == gpus else "the layout did not apply"
        promise = ", ".join(f"{n} {r}" for r, (n, _) in wanted.items())
        return out + [("node-gpus-not-advertised", f"advertises no MIG device (nvidia.com/gpu {whole}), the "
                       f"profile promises {promise}: {state}")]
    short = [f"{r} is {devices.get(r, 0)}, the profile promises {n} ({why})" for r, (n, why) in wanted.items()
             if r not in gone and devices.get(r, 0) < n]
    extra = [f"{r} is {n}" + (f", the profile promises {wanted[r][0]}" if r in wanted else
                                  ", a profile the pool's layout does not have")
             for r, n in sorted(devices.items()) if r not in gone and n > wanted.get(r, (0, ""))[0]]
    if short:
        out.append(("node-gpus-not-advertised", "; ".join(short) + ": the node runs another MIG layout"))
    if extra and not short:
        out.append(("node-gpus-over-advertised", "; ".join(extra) + ": the node runs another MIG layout"))
    if whole < kept_whole and not short and "nvidia.com/gpu" not in gone:
        out.append(("node-gpus-not-advertised", f"nvidia.com/gpu is {whole}, the profile promises {kept_whole} "
                    f"({whole_why}): the node runs another MIG layout"))
    return out


def vgpus_per_gpu(pool) -> int | None:
    """How many vGPUs of the pool's type one GPU holds: its frame buffer over the type's (A10-8Q: 24 GB / 8 GB)."""
    import re

    from gengpu import catalog

    size = re.search(r"-(\d+)[A-Z]$", pool.vgpu_type or "")
    memory = (catalog.gpu(pool.gpu_id) or {}).get("memoryGB") if pool.gpu_id else None
    return memory // int(size.group(1)) if size and memory and int(size.group(1)) else None


def _vms(node, pool, container: dict) -> list[tuple[str, str]]:
    """A pool whose GPUs go to VMs: NVIDIA's sandbox device plugin advertises each passed-through GPU under its device
    name, or each vGPU under its type; names left from an earlier layout stay at 0."""
    offered = {r: (c if c is not None else a) or 0 for r, (c, a) in node.vm_resources().items()}
    offered = {r: n for r, n in offered.items() if n}
    whole = {r: (c if c is not None else a) or 0 for r, (c, a) in container.items()}
    whole = {r: n for r, n in whole.items() if n}
    gpus = node.gpus or 0
    kind = "vGPU" if pool.workload == "vm-vgpu" else "passed-through GPU"
    if not offered:
        also = f" (it advertises {', '.join(f'{n} {r}' for r, n in sorted(whole.items()))} for pods: the container " \
               "stack runs there)" if whole else ""
        return [("node-gpus-not-advertised", f"advertises no {kind} for VMs, the pool's workload is {pool.workload}"
                 f"{also}: the node is not labelled nvidia.com/gpu.workload.config={pool.workload}, or the operator's "
                 "sandbox device plugin is not running on it")]
    total = sum(offered.values())
    listed = ", ".join(f"{n} {r}" for r, n in sorted(offered.items()))
    if pool.workload == "vm-passthrough":
        if gpus and total < gpus:
            return [("node-gpus-missing", f"offers {listed} to VMs, the pool's nodes have {gpus} GPU(s): "
                     f"{gpus - total} are not bound to vfio-pci or not seen by the sandbox device plugin")]
        return []
    per = vgpus_per_gpu(pool)
    if pool.vgpu_type and not any(r.endswith(pool.vgpu_type) for r in offered):
        return [("node-gpus-not-advertised", f"offers {listed} to VMs, the pool's vGPU type is {pool.vgpu_type}: "
                 "the node runs another vgpu.config")]
    if per and gpus and total < per * gpus:
        return [("node-gpus-missing", f"offers {listed} to VMs, the pool promises {per * gpus} ({gpus} GPU(s) x {per} "
                 f"{pool.vgpu_type}): some GPUs hold no vGPU")]
    return []
