from gengpu.checking.rules._live import at_pool
from gengpu.checking.rules.base import LIVE_NODE, Rule

CONFIG, STATE = "nvidia.com/mig.config", "nvidia.com/mig.config.state"
PRODUCT = "nvidia.com/gpu.product"


def check(node, cluster):
    pool = node.pool
    if pool is None or pool.sharing.mode != "mig" or not cluster.profile.operator.enabled:
        return
    config, state = node.item.labels.get(CONFIG), node.item.labels.get(STATE)
    product = node.item.labels.get(PRODUCT, "")
    if product.endswith("-MIG-INVALID"):
        yield at_pool(node, f"GPU Feature Discovery labels it {PRODUCT}={product} and advertises no GPU: under the "
                      "single strategy every GPU must hold MIG devices of one profile (not several profiles, not an "
                      "empty MIG GPU, not GPUs with and without MIG)", "sharing", "mig")
    if config != pool.name:
        yield at_pool(node, f"{CONFIG} is {config if config is not None else 'missing'}, not {pool.name}: the MIG "
                      "manager applies another layout, or none", "sharing", "mig")
    elif state != "success":
        what = {"failed": "failed", "pending": "has not finished (pending)", "rebooting": "is rebooting the node"}
        yield at_pool(node, f"{STATE} is {state or 'missing'}: the MIG layout {what.get(state, 'was never applied')}",
                      "sharing", "mig")


RULE = Rule(
    id="node-mig-not-applied",
    severity="error",
    summary="A MIG pool's node does not have the pool's layout: the MIG manager failed, is still at it, or applies "
    "another.",
    fix="Read the nvidia-mig-manager pod's log on the node; a failed state clears when the layout fits the GPU and "
    "no GPU client holds the GPUs (restart the node's GPU pods, or set the label again).",
    explanation="The MIG manager reads nvidia.com/mig.config and reports in nvidia.com/mig.config.state: pending "
    "while it works, rebooting when the cloud GPU needs a reboot to change MIG mode, success when done, failed "
    "when it gave up. Until success the node offers no MIG devices (or the whole GPUs), and a DRA kubelet plugin "
    "that starts early publishes the wrong devices. Under the single strategy, GPU Feature Discovery labels a node "
    "whose MIG devices are not all of one profile <model>-MIG-INVALID, and the device plugin advertises nothing.",
    source="NVIDIA/mig-parted pkg/mig/reconfigure/reconfigure.go (states pending, rebooting, success, failed); "
    "NVIDIA/k8s-device-plugin internal/lm/mig-strategy.go (the MIG-INVALID labels)",
    check=check,
    applies_to=LIVE_NODE,
)
