from gengpu.checking.consequences import OPERATOR_CONFIG
from gengpu.checking.rules.base import DEVICE_PLUGIN_CONFIG, Hit, Rule

# Flags the GPU Operator's device-plugin DaemonSet sets as environment variables, which win over the file.
OVERRIDDEN = {
    ("failOnInitError",): "FAIL_ON_INIT_ERROR",
    ("mpsRoot",): "MPS_ROOT",
    ("plugin", "passDeviceSpecs"): "PASS_DEVICE_SPECS",
    ("plugin", "deviceListStrategy"): "DEVICE_LIST_STRATEGY",
    ("plugin", "deviceIDStrategy"): "DEVICE_ID_STRATEGY",
}


def check(subject, ctx=None):
    if not subject.in_configmap:
        return  # a standalone plugin reads the file as written
    flags = subject.data.get("flags")
    if not isinstance(flags, dict):
        return
    # The operator's: held in its values, or a ConfigMap in its namespace (gpu-operator, OpenShift's
    # nvidia-gpu-operator). Any other ConfigMap may feed a device plugin of its own: only the files can say.
    name = (subject.host or "").removeprefix("ConfigMap ")
    operators = "gpu-operator" in (subject.host or "") or "gpu-operator" in str(subject.namespace or "")
    for path, env in OVERRIDDEN.items():
        node = flags
        for part in path:
            node = node.get(part) if isinstance(node, dict) else None
        if node is not None:
            yield Hit(("flags",) + path, f"{subject.label}: flags.{'.'.join(path)} is overridden by the GPU Operator's "
                                         f"{env} environment variable", key=True,
                      needs="" if operators else OPERATOR_CONFIG + name)


RULE = Rule(
    id="flag-overridden-by-operator",
    severity="warning",
    summary="A device-plugin flag that the GPU Operator sets itself.",
    fix="Set it through the GPU Operator (ClusterPolicy or Helm values) instead, or drop it.",
    explanation="The operator's device-plugin DaemonSet sets PASS_DEVICE_SPECS, FAIL_ON_INIT_ERROR, "
    "DEVICE_LIST_STRATEGY, DEVICE_ID_STRATEGY and MPS_ROOT as environment variables, and the plugin ranks "
    "command line, then environment, then config file. The value in the ConfigMap never applies.",
    source="NVIDIA/gpu-operator assets/state-device-plugin/0500_daemonset.yaml; k8s-device-plugin README (precedence)",
    check=check,
    applies_to=DEVICE_PLUGIN_CONFIG,
)
