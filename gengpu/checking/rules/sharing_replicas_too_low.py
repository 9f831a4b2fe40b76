from gengpu.checking.rules._sharing import replicated
from gengpu.checking.rules.base import DEVICE_PLUGIN_CONFIG, Hit, Rule


def check(subject, ctx=None):
    for mode, _, i, res in replicated(subject.data):
        replicas = res.get("replicas")
        if isinstance(replicas, int) and not isinstance(replicas, bool) and replicas < 2:
            yield Hit(("sharing", mode, "resources", i, "replicas"),
                      f"{subject.label}: sharing.{mode}.resources[{i}].replicas is {replicas}; the plugin needs 2 or "
                      "more and refuses the whole config")


RULE = Rule(
    id="sharing-replicas-too-low",
    severity="error",
    summary="Shared replicas below 2.",
    fix="Use replicas: 2 or more; to turn sharing off, use a config without a sharing block.",
    explanation="replicas: 1 is a common way to 'turn sharing off', but the plugin rejects the file ('number of "
    "replicas must be >= 2') and the node gets no device plugin config at all.",
    source="NVIDIA/k8s-device-plugin api/config/v1/replicas.go (ReplicatedResource.UnmarshalJSON)",
    check=check,
    applies_to=DEVICE_PLUGIN_CONFIG,
)
