from gengpu.checking.rules._gpu_client import label, never_set, selections
from gengpu.checking.rules.base import OVERLAY, Hit, Rule


def check(overlay, ctx=None):
    key = label()
    why = never_set(overlay, ctx)
    for sel in selections(overlay):
        s = sel.subject
        if not sel.takes_true:
            asked = f"{key}={sel.values[0]}" if sel.how == "nodeSelector" else \
                f"{key} {sel.operator} {list(sel.values)}"
            yield Hit(sel.path, f"{s.label} selects {asked}, but the GPU Operator sets the label to \"true\" (and to "
                      "paused-for-driver-upgrade while it reloads the driver): its pods run on no node", doc=s.doc)
        elif why:
            yield Hit(sel.path, f"{s.label} selects {key}, but {why}; its pods run on no node", doc=s.doc)


RULE = Rule(
    id="gpu-client-label-unset",
    severity="error",
    summary="A workload that selects nvidia.com/gpu.deploy.client where no node carries the label with that value.",
    fix="Select nvidia.com/gpu.deploy.client: \"true\" in the DaemonSet's nodeSelector, on GPU Operator v26.7.0 or "
    "later with a ClusterPolicy. Under a GPUCluster, an older operator or no operator, select your GPU nodes by "
    "another label (nvidia.com/gpu.present: \"true\", or your pool's own) and stop the client yourself before a "
    "driver upgrade.",
    explanation="GPU Operator v26.7.0 added nvidia.com/gpu.deploy.client so that DaemonSets of your own that hold "
    "GPU device handles (a standalone DRA driver, a monitoring agent) are stopped while the operator reloads the "
    "driver or changes the MIG layout: the operator sets the label to \"true\" on every GPU node of a ClusterPolicy "
    "cluster, its driver and MIG managers set it to paused-for-driver-upgrade, wait for the DaemonSet's pods to go, "
    "and set it back. Only that value is ever \"true\"; releases before v26.7.0 never set the label; a GPUCluster "
    "deletes it (with the device plugin's other deploy labels) from its DRA nodes; and without the operator nobody "
    "sets it. In each case the DaemonSet schedules nowhere, and whatever it does for the GPUs is silently not done.",
    source="NVIDIA/gpu-operator v26.7.0 (10ee5b36) controllers/state_manager.go (gpuStateLabels, "
    "devicePluginOnlyStateLabelKeys), controllers/nodelabeling_controller_test.go (TestModeSweepDeleteSets); "
    "NVIDIA/cloud-native-docs gpu-operator/release-notes.rst v26.7.0 (PR 2607)",
    check=check,
    applies_to=OVERLAY,
)
