from gengpu.checking.rules._sharing import replicated
from gengpu.checking.rules.base import DEVICE_PLUGIN_CONFIG, Hit, Rule


def check(subject, ctx=None):
    for mode, _, i, res in replicated(subject.data):
        name = str(res.get("name", ""))
        if mode == "mps" and name.removeprefix("nvidia.com/").startswith("mig-"):
            yield Hit(("sharing", mode, "resources", i, "name"),
                      f"{subject.label}: sharing.mps.resources[{i}].name {name}: MPS cannot share MIG devices")


RULE = Rule(
    id="mps-on-mig-device",
    severity="error",
    summary="MPS sharing of MIG devices.",
    fix="Share MIG devices with time-slicing, or use MPS on whole GPUs (nvidia.com/gpu).",
    explanation="The plugin's MPS support covers full GPUs only: 'sharing using MPS is not supported for MIG devices'.",
    source="NVIDIA/k8s-device-plugin internal/plugin/mps.go",
    check=check,
    applies_to=DEVICE_PLUGIN_CONFIG,
)
