from gengpu.checking.rules.base import DEVICE_PLUGIN_CONFIG, Hit, Rule


def check(subject, ctx=None):
    data = subject.data
    sharing = data.get("sharing") if isinstance(data.get("sharing"), dict) else {}
    flags = data.get("flags") if isinstance(data.get("flags"), dict) else {}
    if "mps" in sharing and flags.get("migStrategy") == "mixed":
        yield Hit(("flags", "migStrategy"), f"{subject.label}: MPS sharing with migStrategy mixed; the plugin stops "
                                            "at start-up")


RULE = Rule(
    id="mps-with-mig-strategy",
    severity="error",
    summary="MPS sharing in a config whose MIG strategy is mixed.",
    fix="Use migStrategy none or single with MPS, or time-slicing with mixed.",
    explanation="validateFlags refuses MPS with the mixed strategy ('using --mig-strategy=mixed is not supported "
    "with MPS'); the plugin exits and the node advertises no GPUs.",
    source="NVIDIA/k8s-device-plugin cmd/nvidia-device-plugin/main.go (validateFlags)",
    check=check,
    applies_to=DEVICE_PLUGIN_CONFIG,
)
