import re

from gengpu.checking.rules._sharing import replicated
from gengpu.checking.rules.base import DEVICE_PLUGIN_CONFIG, Hit, Rule
from gengpu.checking.rules.sharing_resource_name_invalid import PREFIX, problem

_SHAREABLE = re.compile(r"^nvidia\.com/(gpu|mig-[0-9]+(c\.[0-9]+)?g\.[0-9]+gb([.-][a-z0-9.]+)*)$")


def check(subject, ctx=None):
    for mode, _, i, res in replicated(subject.data):
        name = res.get("name")
        if not isinstance(name, str) or problem(name):
            continue
        full = name if name.startswith(PREFIX) else PREFIX + name
        if not _SHAREABLE.match(full):
            yield Hit(("sharing", mode, "resources", i, "name"),
                      f"{subject.label}: sharing.{mode}.resources[{i}].name {full} is not a resource the plugin "
                      "advertises; nothing is shared")


RULE = Rule(
    id="sharing-resource-not-shareable",
    severity="error",
    summary="The shared resource is not one the device plugin advertises.",
    fix="Share nvidia.com/gpu, or nvidia.com/mig-<profile> resources under the mixed MIG strategy.",
    explanation="Replication is applied by resource name; a name that matches no advertised resource (a typo such "
    "as nvidia.com/gpus, or a made-up name) is skipped without an error and the GPUs stay unshared.",
    source="NVIDIA/k8s-device-plugin internal/rm/device_map.go (updateDeviceMapWithReplicas)",
    check=check,
    applies_to=DEVICE_PLUGIN_CONFIG,
)
