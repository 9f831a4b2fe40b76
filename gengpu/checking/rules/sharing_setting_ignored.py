from gengpu.checking.rules._sharing import replicated
from gengpu.checking.rules.base import DEVICE_PLUGIN_CONFIG, Hit, Rule


def check(subject, ctx=None):
    data = subject.data
    resources = data.get("resources")
    if isinstance(resources, dict) and resources:
        yield Hit(("resources",), f"{subject.label}: resources is ignored by the plugin (custom resource names are "
                                  "not supported)", key=True)
    for mode, block, i, res in replicated(data):
        if "rename" in res:
            yield Hit(("sharing", mode, "resources", i, "rename"),
                      f"{subject.label}: sharing.{mode}.resources[{i}].rename is ignored; use renameByDefault for "
                      "nvidia.com/gpu.shared", key=True)
        if "devices" in res and res["devices"] != "all":
            yield Hit(("sharing", mode, "resources", i, "devices"),
                      f"{subject.label}: sharing.{mode}.resources[{i}].devices is reset to all by the plugin; every "
                      "GPU of the node is shared", key=True)


RULE = Rule(
    id="sharing-setting-ignored",
    severity="warning",
    summary="A setting the device plugin parses and then silently drops.",
    fix="Remove the setting; share whole nodes by pool, and rename with renameByDefault.",
    explanation="At start the plugin clears resources.gpus and resources.mig, resets rename to the default, and "
    "resets devices to all, logging only a warning. The config looks customised but behaves as the defaults.",
    source="NVIDIA/k8s-device-plugin api/config/v1 (DisableResourceNamingInConfig, disableResoureRenaming)",
    check=check,
    applies_to=DEVICE_PLUGIN_CONFIG,
)
