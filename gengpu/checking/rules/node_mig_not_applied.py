from gengpu import mig
from gengpu.checking.rules._live import at_pool
from gengpu.checking.rules.base import LIVE_NODE, Rule
from gengpu.cluster import mig_layout

CONFIG, STATE = "nvidia.com/mig.config", "nvidia.com/mig.config.state"
PRODUCT, CAPABLE = "nvidia.com/gpu.product", "nvidia.com/mig.capable"


def _layout(layout: dict) -> str:
    return ", ".join(f"{n} x {p}" for p, n in sorted(layout.items())) or "no MIG instance"


def check(node, cluster):
    pool = node.pool
    if pool is None or pool.sharing.mode != "mig" or pool.dra:
        return
    labels = node.item.labels
    config, state = labels.get(CONFIG), labels.get(STATE)
    product = labels.get(PRODUCT, "")
    if labels.get(CAPABLE) == "false":
        yield at_pool(node, f"GPU Feature Discovery reports {CAPABLE}=false: its GPUs cannot be partitioned, the pool "
                      "promises MIG devices", "sharing", "mig")
        return
    if product.endswith("-MIG-INVALID"):
        yield at_pool(node, f"GPU Feature Discovery labels it {PRODUCT}={product} and advertises no GPU: under the "
                      "single strategy every GPU must hold MIG devices of one profile (not several profiles, not an "
                      "empty MIG GPU, not GPUs with and without MIG)", "sharing", "mig")
    if state == "failed":
        yield at_pool(node, f"{STATE} is failed: the MIG manager could not apply {config or 'the layout'}", "sharing",
                      "mig")
        return
    others = {p.name: p for p in cluster.profile.node_pools if p is not pool}
    if config in others:
        yield at_pool(node, f"{CONFIG} is {config}, the layout gengpu generates for pool {config}: the node runs "
                      "another pool's MIG layout", "sharing", "mig")
        return
    gpu = pool.gpu_id
    stock = mig.preset_layout(gpu, config) if gpu and config and config.startswith("all-") else None
    wanted = mig_layout(pool)
    per_gpu = bool(pool.sharing.mig and pool.sharing.mig.layouts)  # (no stock config is a per-GPU layout)
    if config == "all-disabled" or (stock is not None and (per_gpu or stock != wanted)):
        runs = "MIG disabled" if config == "all-disabled" else _layout(stock)
        layout = "per GPU (sharing.mig.layouts)" if per_gpu else _layout(wanted)
        yield at_pool(node, f"{CONFIG} is {config} ({runs} per GPU), the pool's layout is {layout}: the MIG "
                      "manager applies another layout", "sharing", "mig")


RULE = Rule(
    id="node-mig-not-applied",
    severity="error",
    summary="A MIG pool's node does not run the pool's layout: the MIG manager failed, the node's config is another "
    "layout (another pool's, a stock one that differs, MIG disabled), or its GPUs cannot do MIG.",
    fix="Read the nvidia-mig-manager pod's log on the node; a failed state clears when the layout fits the GPU and "
    "no GPU client holds the GPUs (restart the node's GPU pods, or set the label again). Point nvidia.com/mig.config "
    "at a config that holds the pool's layout.",
    explanation="The MIG manager reads nvidia.com/mig.config and reports in nvidia.com/mig.config.state. gengpu "
    "judges the layout by what it is, not by its name: NVIDIA's stock configs (all-1g.10gb, all-balanced ...) are "
    "fine when they are the pool's layout, and a custom name is judged by the devices the node advertises "
    "(node-gpus-not-advertised). A failed state, another pool's config, a stock config with another layout, or "
    "all-disabled leave the node without the promised devices. Under the single strategy, GPU Feature Discovery "
    "labels a node whose MIG devices are not all of one profile <model>-MIG-INVALID, and the device plugin "
    "advertises nothing.",
    source="NVIDIA/mig-parted pkg/mig/reconfigure (states pending, rebooting, success, failed) and its stock "
    "configs (all-<profile>, all-balanced); NVIDIA/k8s-device-plugin internal/lm/mig-strategy.go (MIG-INVALID)",
    check=check,
    applies_to=LIVE_NODE,
)
