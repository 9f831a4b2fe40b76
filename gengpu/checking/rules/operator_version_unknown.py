from gengpu import catalog
from gengpu.checking.rules.base import Hit, Rule


def check(profile, ctx=None):
    if profile.operator.enabled and profile.operator.version not in catalog.operator()["releases"]:
        known = ", ".join(catalog.operator()["releases"])
        yield Hit(("spec", "operator", "version"),
                  f"spec.operator.version {profile.operator.version} is not a GPU Operator release gengpu knows "
                  f"({known}); its driver and features cannot be checked")


RULE = Rule(
    id="operator-version-unknown",
    severity="warning",
    summary="The GPU Operator version is not in gengpu's release table.",
    fix="Use a release from `gengpu catalog operator`, or suppress the rule for a release newer than the table.",
    explanation="The release table gives the driver, device plugin and mig-manager each chart version installs; "
    "the driver and MPS checks depend on it.",
    source="gengpu/data/operator.yaml (NVIDIA/gpu-operator values.yaml per tag)",
    check=check,
)
