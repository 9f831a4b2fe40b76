from gengpu.checking.rules.base import CLUSTER_POLICY, Hit, Rule


def check(subject, ctx=None):
    spec = subject.data.get("spec") if isinstance(subject.data.get("spec"), dict) else {}
    config = ((spec.get("devicePlugin") or {}).get("config") or {})
    if isinstance(config, dict) and config.get("name") and not config.get("default"):
        yield Hit(("spec", "devicePlugin", "config"), f"{subject.label}: spec.devicePlugin.config names ConfigMap "
                  f"{config['name']} but no default key: unlabelled nodes run with an empty config", key=True)


RULE = Rule(
    id="clusterpolicy-config-without-default",
    severity="warning",
    summary="A device-plugin ConfigMap without a default key.",
    fix="Set spec.devicePlugin.config.default (gengpu writes a key named default with no sharing).",
    explanation="The operator starts config-manager with FALLBACK_STRATEGIES=empty: a node without the "
    "nvidia.com/device-plugin.config label gets an empty config, not the one you expect, and new nodes come up "
    "unshared until someone labels them.",
    source="NVIDIA/gpu-operator controllers/object_controls.go (transformConfigManager...)",
    check=check,
    applies_to=CLUSTER_POLICY,
)
