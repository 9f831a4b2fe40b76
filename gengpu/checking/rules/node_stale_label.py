from gengpu.checking.rules._live import at_pool
from gengpu.checking.rules.base import LIVE_NODE, Rule
from gengpu.compiling import nodes


def check(node, cluster):
    pool = node.pool
    if pool is None:
        return
    labels = node.item.labels
    if pool.dra:
        gpus = node.allocatable("nvidia.com/gpu")
        if gpus:
            yield at_pool(node, f"advertises nvidia.com/gpu: {gpus} on a DRA pool: a device plugin still runs there "
                          "and hands out the GPUs the DRA driver claims", "allocation")
        if nodes.DEVICE_PLUGIN_LABEL in labels:
            yield at_pool(node, f"still carries {nodes.DEVICE_PLUGIN_LABEL}={labels[nodes.DEVICE_PLUGIN_LABEL]} "
                          "from before the move to DRA", "allocation")
    elif labels.get(nodes.OPERATOR_DEVICE_PLUGIN_LABEL) == "false":
        yield at_pool(node, f"carries {nodes.OPERATOR_DEVICE_PLUGIN_LABEL}=false, which keeps the GPU Operator's "
                      "device plugin off a pool that needs it", "allocation")
    if pool.sharing.mode != "mig" and labels.get(nodes.MIG_LABEL) not in (None, "all-disabled"):
        yield at_pool(node, f"carries {nodes.MIG_LABEL}={labels[nodes.MIG_LABEL]} on a pool without MIG: the MIG "
                      "manager keeps its GPUs partitioned", "sharing")


RULE = Rule(
    id="node-stale-label",
    severity="error",
    summary="A node carries labels of another setup: a device plugin on a DRA pool, a MIG layout on a pool without "
    "MIG, the device plugin switched off where it is needed.",
    fix="Remove the label from the node (kubectl label node NODE KEY-), or replace the node so it gets its pool's "
    "labels from the provisioner.",
    explanation="Labels set by hand or by an older setup stay on a node until something removes them. After a "
    "move to DRA, a node still labelled for the device plugin (or still advertising nvidia.com/gpu) hands out "
    "its GPUs twice; a mig.config label left from a MIG layout keeps the GPUs partitioned; "
    "nvidia.com/gpu.deploy.device-plugin=false keeps the operator's device plugin away.",
    source="NVIDIA GPU Operator node labels (nvidia.com/gpu.deploy.*, nvidia.com/mig.config); gengpu DRA pools",
    check=check,
    applies_to=LIVE_NODE,
)
