from gengpu import catalog
from gengpu.checking.podspecs import dig
from gengpu.checking.rules.base import HELM_VALUES, Hit, Rule


def check(subject, ctx=None):
    if subject.chart != "gpu-operator":
        return
    data, operator = subject.data, catalog.operator()
    for entry in operator.get("ignoredValues", []):
        path = tuple(entry["key"].split("."))
        if catalog.chart_has(subject.chart_version, entry["since"]) and dig(data, *path) not in (None, {}, [], ""):
            yield Hit(path, f"{subject.label}: {entry['key']} is ignored from gpu-operator {entry['since']}: "
                      f"{entry['why']}")
    crd = dig(data, "driver", "nvidiaDriverCRD") or {}
    if catalog.chart_has(subject.chart_version, operator["minFor"]["perDriverUpgradePolicy"]) and \
            crd.get("enabled") is True and crd.get("deployDefaultCR") is False and \
            dig(data, "driver", "upgradePolicy") not in (None, {}):
        yield Hit(("driver", "upgradePolicy"), f"{subject.label}: driver.upgradePolicy is read by nothing: on the "
                  "NVIDIADriver path each NVIDIADriver's own spec.upgradePolicy applies (unset: autoUpgrade true, "
                  "maxParallelUpgrades 1, maxUnavailable 25%, no drain), and with deployDefaultCR false the chart "
                  "copies it into no NVIDIADriver")


RULE = Rule(
    id="operator-value-ignored",
    severity="warning",
    summary="GPU Operator values the chart of that version no longer reads.",
    fix="Drop the key, and put the setting where the release reads it: a nodeSelector on an NVIDIADriver of your "
    "own (not the default one), the upgrade policy in each NVIDIADriver's spec.upgradePolicy.",
    explanation="GPU Operator v26.7.0 moved driver settings onto NVIDIADriver objects. The chart still lists "
    "driver.nvidiaDriverCRD.nodeSelector but no template renders it: the default NVIDIADriver takes every GPU node "
    "that no other NVIDIADriver selects. With the NVIDIADriver CRD on, the upgrade controller reads each "
    "NVIDIADriver's spec.upgradePolicy (new in v26.7.0) and never the ClusterPolicy's, so driver.upgradePolicy "
    "reaches only the chart's default NVIDIADriver; without that one (deployDefaultCR: false) it reaches nothing, "
    "and NVIDIADrivers without a policy of their own upgrade automatically. Values that do nothing hide the real "
    "behaviour from whoever reads them.",
    source="NVIDIA/gpu-operator v26.7.0 (10ee5b36) deployments/gpu-operator/values.yaml, templates/nvidiadriver.yaml, "
    "api/nvidia/v1alpha1/nvidiadriver_types.go (GetUpgradePolicyWithDefaults), controllers/upgrade_controller.go",
    check=check,
    applies_to=HELM_VALUES,
)
