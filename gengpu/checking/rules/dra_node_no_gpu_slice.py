from gengpu.checking.rules._live import at_item
from gengpu.checking.rules.base import LIVE_CLUSTER, Rule

GPU_DRIVER = "gpu.nvidia.com"
NVIDIA_DRIVERS = ("gpu.nvidia.com", "compute-domain.nvidia.com")


def check(cluster, ctx=None):
    if not cluster.profile.dra_pools or "resourceslices" not in cluster.snapshot.captured:
        return
    nodes = {n.name for n in cluster.snapshot.nodes}
    by_node: dict[str, list] = {}
    for s in cluster.snapshot.resourceslices:
        node = s.text("spec", "nodeName")
        if node and s.text("spec", "driver") in NVIDIA_DRIVERS:
            by_node.setdefault(node, []).append(s)
    for node, slices in sorted(by_node.items()):
        if node in nodes:
            continue  # a Node of the snapshot: node-gpus-not-advertised weighs it against its pool
        drivers = {s.text("spec", "driver") for s in slices}
        if GPU_DRIVER not in drivers:
            yield at_item(slices[0], f"node {node} publishes ResourceSlices of {', '.join(sorted(drivers))} and none "
                          f"of {GPU_DRIVER}: NVIDIA's DRA driver runs there without its GPU kubelet plugin, so no "
                          "claim for a GPU can be allocated on it", "spec", node=node, subject=f"Node/{node}")


RULE = Rule(
    id="dra-node-no-gpu-slice",
    severity="error",
    summary="A node where NVIDIA's DRA driver runs (its ComputeDomain plugin publishes a ResourceSlice) publishes no "
    "ResourceSlice of gpu.nvidia.com, on a cluster whose profile hands out GPUs through DRA.",
    fix="Turn GPU allocation on in the DRA driver's chart (resources.gpus.enabled: true, in releases that have it "
    "also gpuResourcesEnabledOverride: true) and check its kubelet plugin's gpus container on the node: kubectl logs "
    "-n <driver namespace> <kubelet-plugin pod> -c gpus.",
    explanation="NVIDIA's DRA driver has two kubelet plugins: compute-domain.nvidia.com for Multi-Node NVLink and "
    "gpu.nvidia.com for GPUs. Its chart deployed the GPU plugin only when GPU allocation was switched on, so a node "
    "can show the driver running (a compute-domain slice) while it offers no GPU: pods with GPU claims stay Pending. "
    "A Node in the snapshot is judged by node-gpus-not-advertised against its pool; this rule speaks for nodes the "
    "snapshot knows only from their slices.",
    source="NVIDIA/k8s-dra-driver-gpu deployments/helm values (resources.gpus.enabled); kubernetes-sigs/"
    "dra-driver-nvidia-gpu #438",
    check=check,
    applies_to=LIVE_CLUSTER,
)
