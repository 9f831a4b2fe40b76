from gengpu.checking.rules.base import CLUSTER_POLICY, HELM_VALUES, NVIDIA_DRIVER, OVERLAY, Hit, Rule
from gengpu.checking.podspecs import dig


def _driver(subject) -> tuple | None:
    """Where the operator-installed driver's settings live in this subject, or None."""
    if subject.kind == CLUSTER_POLICY:
        return ("spec", "driver")
    if subject.kind == HELM_VALUES and subject.chart == "gpu-operator":
        return ("driver",)
    if subject.kind == NVIDIA_DRIVER:
        return ("spec",)
    return None


def _env(items) -> dict:
    return {str(e.get("name")): str(e.get("value")).lower() for e in (items if isinstance(items, list) else [])
            if isinstance(e, dict)}


def check(overlay, ctx=None):
    for subject in overlay.subjects:
        base = _driver(subject)
        driver = dig(subject.data, *base) if base else None
        if not isinstance(driver, dict) or (base != ("spec",) and driver.get("enabled") is False):
            continue
        policy = driver.get("upgradePolicy") if isinstance(driver.get("upgradePolicy"), dict) else {}
        env = _env(dig(driver, "manager", "env"))
        if policy.get("autoUpgrade") is False and env.get("ENABLE_GPU_POD_EVICTION") == "false" and \
                env.get("ENABLE_AUTO_DRAIN") != "true":
            yield Hit(base + ("upgradePolicy", "autoUpgrade"), f"{subject.label}: the upgrade controller is off "
                      "and the driver manager neither evicts GPU pods (ENABLE_GPU_POD_EVICTION=false) nor drains the "
                      "node: a new driver pod unloads the kernel modules under running GPU workloads", doc=subject.doc)
        if policy.get("autoUpgrade") is not False:
            if policy.get("maxParallelUpgrades") == 0:
                yield Hit(base + ("upgradePolicy", "maxParallelUpgrades"), f"{subject.label}: maxParallelUpgrades "
                          "0 means no limit: a driver change reloads the driver on every GPU node at once",
                          doc=subject.doc)
            if str(policy.get("maxUnavailable", "")).strip() == "100%":
                yield Hit(base + ("upgradePolicy", "maxUnavailable"), f"{subject.label}: maxUnavailable 100% lets "
                          "the upgrade take every GPU node out of service at once", doc=subject.doc)


RULE = Rule(
    id="driver-upgrade-without-eviction",
    severity="warning",
    summary="A driver upgrade that reloads the driver under running GPU pods, or on every GPU node at once.",
    fix="Keep driver.upgradePolicy.autoUpgrade: true (or leave the driver manager's ENABLE_GPU_POD_EVICTION at its "
    "default, true), and bound the rollout: maxParallelUpgrades 1 or more, maxUnavailable below 100%.",
    explanation="Reloading the NVIDIA driver means unloading its kernel modules, which fails or kills what runs on "
    "the GPUs unless their pods are gone first. The operator's upgrade controller (autoUpgrade, on by default) "
    "cordons each node, deletes its GPU pods (and drains it if asked) and upgrades maxParallelUpgrades nodes at a "
    "time, keeping at most maxUnavailable nodes out. With the controller off, the driver DaemonSet's pods are "
    "replaced one by one and only the driver manager's own eviction (ENABLE_GPU_POD_EVICTION) protects the "
    "workloads; turned off too, the upgrade runs under them. maxParallelUpgrades 0 means no limit.",
    source="NVIDIA GPU Operator docs 'GPU Driver Upgrades'; NVIDIA/gpu-operator v26.7.0 deployments/gpu-operator/"
    "values.yaml (driver.upgradePolicy), assets/state-driver/0500_daemonset.yaml (driver manager env)",
    check=check,
    applies_to=OVERLAY,
)
