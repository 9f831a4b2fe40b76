from gengpu.checking.rules.base import CLUSTER_POLICY, HELM_VALUES, NVIDIA_DRIVER, OVERLAY, Hit, Rule
from gengpu.checking.podspecs import dig


def _delegates(subject) -> bool | None:
    """Whether a ClusterPolicy (driver.useNvidiaDriverCRD) or gpu-operator values (driver.nvidiaDriverCRD.enabled)
    hand the driver to NVIDIADriver resources; None for anything else."""
    if subject.kind == CLUSTER_POLICY:
        return dig(subject.data, "spec", "driver", "useNvidiaDriverCRD") is True
    if subject.kind == HELM_VALUES and subject.chart == "gpu-operator":
        return dig(subject.data, "driver", "nvidiaDriverCRD", "enabled") is True
    return None


def check(overlay, ctx=None):
    drivers = [s for s in overlay.subjects if s.kind == NVIDIA_DRIVER]
    owners = [s for s in overlay.subjects if _delegates(s) is False]
    if drivers and owners and not any(_delegates(s) for s in overlay.subjects):
        owner = owners[0]
        field = "spec.driver.useNvidiaDriverCRD" if owner.kind == CLUSTER_POLICY else "driver.nvidiaDriverCRD.enabled"
        for s in drivers:
            yield Hit((), f"{s.label} is never reconciled: {owner.label} does not hand the driver to NVIDIADriver "
                      f"resources ({field} is not true), so the operator sets it Disabled and installs its own driver",
                      doc=s.doc)
    # with a profile: the driver is the node image's, and an NVIDIADriver would install another one over it
    profile = getattr(ctx, "profile", None)
    if profile is not None and not profile.owns("driver"):
        for s in drivers:
            yield Hit((), f"{s.label} installs a driver, but profile {profile.name} leaves the driver to the node "
                      f"image ({profile.platform}: spec.operator.driver is {profile.operator.driver})", doc=s.doc)


RULE = Rule(
    id="nvidiadriver-not-enabled",
    severity="error",
    summary="An NVIDIADriver that the cluster will not use: the ClusterPolicy keeps the driver, or the node image "
    "has one.",
    fix="Set driver.nvidiaDriverCRD.enabled: true in the gpu-operator values (ClusterPolicy "
    "spec.driver.useNvidiaDriverCRD: true), or remove the NVIDIADriver; where the node image ships the driver "
    "(EKS NVIDIA AMIs, AKS, GKE), remove it.",
    explanation="The GPU Operator installs the driver one way per cluster. Unless the ClusterPolicy hands the "
    "driver over (useNvidiaDriverCRD, set from the chart's driver.nvidiaDriverCRD.enabled), its NVIDIADriver "
    "controller skips every NVIDIADriver ('useNvidiaDriverCRD is not enabled in ClusterPolicy', state Disabled) and "
    "the ClusterPolicy's own driver DaemonSet runs with its settings, not the resource's. Where the profile leaves "
    "the driver to the node image, an NVIDIADriver installs a second driver over it.",
    source="NVIDIA/gpu-operator v26.7.0 controllers/nvidiadriver_controller.go; deployments/gpu-operator/templates/"
    "clusterpolicy.yaml (useNvidiaDriverCRD)",
    check=check,
    applies_to=OVERLAY,
)
