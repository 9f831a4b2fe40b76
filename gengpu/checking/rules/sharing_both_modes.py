from gengpu.checking.rules.base import DEVICE_PLUGIN_CONFIG, Hit, Rule


def check(subject, ctx=None):
    sharing = subject.data.get("sharing")
    if isinstance(sharing, dict) and "timeSlicing" in sharing and "mps" in sharing:
        yield Hit(("sharing", "mps"), f"{subject.label}: sharing has both timeSlicing and mps; the plugin uses mps "
                                      "and ignores timeSlicing", key=True)


RULE = Rule(
    id="sharing-both-modes",
    severity="error",
    summary="A device-plugin config asks for time-slicing and MPS at once.",
    fix="Keep one of sharing.timeSlicing and sharing.mps.",
    explanation="Time-slicing and MPS are mutually exclusive on a node. When both blocks are present the plugin "
    "silently uses MPS (Sharing.ReplicatedResources returns MPS whenever it is set), so the time-slicing settings "
    "never apply.",
    source="NVIDIA/k8s-device-plugin api/config/v1/sharing.go; README 'Shared Access to GPUs'",
    check=check,
    applies_to=DEVICE_PLUGIN_CONFIG,
)
