from gengpu.checking.rules._devices import hits
from gengpu.checking.rules._live import at_pool
from gengpu.checking.rules.base import LIVE_NODE, Rule

ID = "node-gpus-not-advertised"
DRIVER = "gpu.nvidia.com"


def _dra_devices(node, cluster) -> int | None:
    """The GPU devices the node's ResourceSlices publish; None where a slice of the driver shows no devices field (a
    `kubectl get resourceslices` table lists slices, not their devices)."""
    slices = [s for s in cluster.snapshot.resourceslices
              if s.text("spec", "nodeName") == node.name and s.text("spec", "driver") == DRIVER]
    if any(s.get("spec", "devices") is None for s in slices):
        return None
    return sum(len(s.sequence("spec", "devices")) for s in slices)


def check(node, cluster):
    if node.pool is None:
        return
    if node.pool.dra:
        if "resourceslices" in cluster.snapshot.captured and node.gpus and _dra_devices(node, cluster) == 0:
            yield at_pool(node, "publishes no GPU device in a ResourceSlice (driver gpu.nvidia.com), where the pool "
                          f"hands out {node.gpus} GPU(s) through DRA: the DRA kubelet plugin is not running there, "
                          "so every claim stays pending", "allocation")
        return
    yield from hits(ID, node, cluster, "sharing")


RULE = Rule(
    id=ID,
    severity="error",
    summary="A node does not offer what its pool promises: no GPU resource at all, one device per GPU where "
    "sharing was promised, the shared GPUs under another name, or another MIG layout.",
    fix="Find the config the node runs: its nvidia.com/device-plugin.config label (else the ClusterPolicy's "
    "devicePlugin.config.default) must name a key of the sharing ConfigMap that holds the pool's sharing; for MIG, "
    "its nvidia.com/mig.config must name a layout the GPU holds and the MIG manager must report success. A node "
    "with no GPU resource at all has no device plugin running: look at its pod.",
    explanation="The profile says what every node of a pool offers: GPUs times the time-slicing or MPS replicas, "
    "or the MIG devices of the layout (one resource per profile with the mixed strategy, nvidia.com/gpu with "
    "single). gengpu judges what the node advertises, whatever its config is called (NVIDIA's stock all-1g.10gb or "
    "a cluster-wide default are fine when they make the promised devices): one device per GPU where four were "
    "promised is a sharing config that never applied; whole GPUs where MIG devices were promised, MIG that is not "
    "enabled. On a DRA pool the kubelet plugin publishes the node's GPUs in ResourceSlices; none there means claims "
    "never bind.",
    source="NVIDIA/k8s-device-plugin (config per node, replicas, renameByDefault, MIG strategies); kubernetes "
    "ResourceSlice (resource.k8s.io/v1)",
    check=check,
    applies_to=LIVE_NODE,
)
