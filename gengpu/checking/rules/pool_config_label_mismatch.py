from gengpu.checking.rules.base import Hit, Rule, pool_path

LABELS = ("nvidia.com/device-plugin.config", "nvidia.com/mig.config")


def check(profile, ctx=None):
    for pool in profile.node_pools:
        for label in LABELS:
            value = pool.labels.get(label)
            if value is not None and value != pool.name:
                yield Hit(pool_path(pool, "labels", label),
                          f"nodePools[{pool.index}].labels sets {label}={value}, but gengpu writes the pool's config "
                          f"under the key {pool.name}")


RULE = Rule(
    id="pool-config-label-mismatch",
    severity="error",
    summary="A pool label selects a config key that gengpu does not write.",
    fix="Remove the label: gengpu sets nvidia.com/device-plugin.config and nvidia.com/mig.config to the pool name.",
    explanation="The device plugin's config-manager picks the ConfigMap key named by nvidia.com/device-plugin.config "
    "and exits with 'specified config does not exist' when it is missing; mig-manager does the same with "
    "nvidia.com/mig.config.",
    source="NVIDIA/k8s-device-plugin cmd/config-manager; NVIDIA/mig-parted cmd/nvidia-mig-manager",
    check=check,
)
