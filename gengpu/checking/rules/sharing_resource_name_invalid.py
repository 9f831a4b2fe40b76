import re

from gengpu.checking.rules._sharing import replicated
from gengpu.checking.rules.base import DEVICE_PLUGIN_CONFIG, Hit, Rule

PREFIX = "nvidia.com/"
_DNS = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


def problem(name: str) -> str | None:
    """Why the plugin's NewResourceName would refuse name, or None."""
    full = name if name.startswith(PREFIX) else PREFIX + name
    if len(full) > 63:
        return f"'{full}' is longer than 63 characters"
    short = full[len(PREFIX):]
    if len(short) > 253 or not _DNS.match(short):
        return f"'{short}' is not a DNS subdomain (lowercase letters, digits, '-' and '.')"
    return None


def check(subject, ctx=None):
    for mode, _, i, res in replicated(subject.data):
        for field in ("name", "rename"):
            value = res.get(field)
            if isinstance(value, str) and (why := problem(value)):
                yield Hit(("sharing", mode, "resources", i, field),
                          f"{subject.label}: sharing.{mode}.resources[{i}].{field}: {why}")


RULE = Rule(
    id="sharing-resource-name-invalid",
    severity="error",
    summary="A shared resource name is not a valid extended resource name.",
    fix="Use nvidia.com/gpu (or nvidia.com/mig-<profile> under the mixed strategy).",
    explanation="The plugin prefixes names with nvidia.com/, then requires at most 63 characters and a DNS "
    "subdomain after the prefix; anything else fails the whole config.",
    source="NVIDIA/k8s-device-plugin api/config/v1/resources.go (NewResourceName)",
    check=check,
    applies_to=DEVICE_PLUGIN_CONFIG,
)
