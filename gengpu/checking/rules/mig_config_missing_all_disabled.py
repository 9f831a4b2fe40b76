from gengpu.checking.rules.base import MIG_PARTED_CONFIG, Hit, Rule


def check(subject, ctx=None):
    if subject.host is None:
        return  # a file for mig-parted itself (systemd, a DGX Station): all-disabled is the operator's need
    configs = subject.data.get("mig-configs")
    if isinstance(configs, dict) and configs and "all-disabled" not in configs:
        yield Hit(("mig-configs",), f"{subject.label}: mig-configs has no all-disabled config", key=True)


RULE = Rule(
    id="mig-config-missing-all-disabled",
    severity="error",
    summary="A custom MIG config for the GPU Operator (a ConfigMap, Helm values) without all-disabled.",
    fix="Add all-disabled: [{devices: all, mig-enabled: false}].",
    explanation="The GPU Operator labels every MIG-capable node nvidia.com/mig.config=all-disabled until told "
    "otherwise (migManager.config.default). With a custom ConfigMap that lacks the key, mig-manager fails on those "
    "nodes ('selected mig-config not present') and their state label stays failed.",
    source="NVIDIA/gpu-operator controllers/nodelabeling_controller.go; mig-parted apply",
    check=check,
    applies_to=MIG_PARTED_CONFIG,
)
