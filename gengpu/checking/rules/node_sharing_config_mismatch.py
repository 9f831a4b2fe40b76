import yaml

from gengpu.checking.rules._live import at_pool
from gengpu.checking.rules.base import LIVE_NODE, Rule
from gengpu.compiling.nodes import DEVICE_PLUGIN_LABEL
from gengpu.compiling.sharing import DEFAULT_KEY, DEVICE_PLUGIN_CONFIGMAP, device_plugin_config

STRATEGY = {"time-slicing": "time-slicing", "mps": "mps"}


def _keys(cluster) -> set[str] | None:
    ns = cluster.profile.operator.namespace
    for cm in cluster.snapshot.configmaps:
        if cm.name == DEVICE_PLUGIN_CONFIGMAP and cm.text("metadata", "namespace") in (None, ns):
            return {str(k) for k in cm.mapping("data")}
    return None


def check(node, cluster):
    pool = node.pool
    if pool is None or pool.dra or not cluster.profile.operator.enabled:
        return
    labels = node.item.labels
    label = labels.get(DEVICE_PLUGIN_LABEL)
    keys = _keys(cluster)
    # no label (or the default key) gives the default config: no finding where the pool's config is just that
    as_default = label in (None, DEFAULT_KEY) and \
        device_plugin_config(cluster.profile, pool) == device_plugin_config(cluster.profile, None)
    if label != pool.name and not as_default:
        yield at_pool(node, f"{DEVICE_PLUGIN_LABEL} is {label if label is not None else 'missing'}, not {pool.name}: "
                      "the device plugin runs with another config (or the default)", "name")
    elif label is not None and keys is not None and label not in keys:
        yield at_pool(node, f"{DEVICE_PLUGIN_LABEL}={label} names no key of ConfigMap {DEVICE_PLUGIN_CONFIGMAP} "
                      f"({', '.join(sorted(keys)) or 'empty'}): the config-manager stops with 'specified config "
                      "does not exist'", "name")
    s = pool.sharing
    # GFD labels nvidia.com/gpu.* whatever name the shared GPUs are advertised under (resource.go
    # fullGPUResourceName); the product ends in -SHARED when they are shared and not renamed
    resource = "nvidia.com/gpu"
    replicas, strategy = labels.get(f"{resource}.replicas"), labels.get(f"{resource}.sharing-strategy")
    product = labels.get(f"{resource}.product", "")
    if s.mode in STRATEGY and replicas is not None and replicas != str(s.replicas):
        yield at_pool(node, f"GPU Feature Discovery reports {resource}.replicas={replicas}, the pool shares each GPU "
                      f"{s.replicas} ways: the node runs an older or another sharing config", "sharing", "replicas")
    if s.mode in STRATEGY and strategy is not None and strategy != STRATEGY[s.mode]:
        yield at_pool(node, f"GPU Feature Discovery reports {resource}.sharing-strategy={strategy}, the pool uses "
                      f"{s.mode}", "sharing", "mode")
    if s.mode in STRATEGY and s.rename_by_default and product.endswith("-SHARED"):
        yield at_pool(node, f"GPU Feature Discovery reports {resource}.product={product}: the device plugin does not "
                      "rename the shared GPUs, the pool promises nvidia.com/gpu.shared", "sharing", "renameByDefault")
    if s.mode not in STRATEGY and strategy not in (None, "none"):
        yield at_pool(node, f"GPU Feature Discovery reports nvidia.com/gpu.sharing-strategy={strategy} on a pool "
                      "that does not share its GPUs: a stale sharing config is still applied", "sharing")


RULE = Rule(
    id="node-sharing-config-mismatch",
    severity="error",
    summary="A node runs another sharing config than its pool's: the config label, the ConfigMap key or GPU Feature "
    "Discovery's sharing labels disagree with the profile.",
    fix="Let the node's nvidia.com/device-plugin.config label name the pool (gengpu's node pools set it), and sync "
    "the overlay so the ConfigMap has the pool's key; the device plugin picks the new config up within a minute.",
    explanation="The device plugin's config-manager picks the ConfigMap key the node's label names. A label that "
    "names another pool, or a key the ConfigMap lacks, leaves the node on another config; GPU Feature Discovery then "
    "labels what really applies (nvidia.com/gpu.replicas, nvidia.com/gpu.sharing-strategy, and a product ending in "
    "-SHARED when the shared GPUs keep the name nvidia.com/gpu), which is how a sharing config that never applied "
    "shows up.",
    source="NVIDIA/k8s-device-plugin v0.19.1 internal/lm/resource.go (replicas, sharing-strategy, product), "
    "cmd/config-manager",
    check=check,
    applies_to=LIVE_NODE,
)
