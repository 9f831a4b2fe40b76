from itertools import groupby

from gengpu.checking.rules._gpu_client import label, never_set, old_managers, selections
from gengpu.checking.rules.base import OVERLAY, Hit, Rule


def check(overlay, ctx=None):
    key = label()
    chosen = list(selections(overlay))
    if not chosen or never_set(overlay, ctx):
        return  # gpu-client-label-unset: no node carries the label, so nothing runs to be stopped
    for _, sels in groupby(chosen, key=lambda sel: id(sel.subject)):  # selections() yields each subject's together
        sels = list(sels)
        s = sels[0].subject
        usable = [sel for sel in sels if sel.takes_true]
        if not usable:
            continue  # gpu-client-label-unset: it runs nowhere
        if s.data.get("kind") != "DaemonSet":
            yield Hit(usable[0].path, f"{s.label} selects {key}, but the GPU Operator stops only DaemonSet pods: "
                      f"a {s.data.get('kind')}'s pod keeps holding the GPU while the driver is reloaded or the MIG "
                      "layout changes", doc=s.doc)
        elif not any(sel.how == "nodeSelector" for sel in usable):
            sel = usable[0]
            what = "never leaves" if sel.operator == "Exists" else "is not waited for"
            yield Hit(sel.path, f"{s.label} selects {key} through node affinity ({sel.operator}), not nodeSelector: "
                      f"its pod {what} when the driver or MIG manager pauses GPU clients (they wait only for "
                      "DaemonSet pods whose nodeSelector has the key)", doc=s.doc)
    if any(sel.takes_true for sel in chosen):
        for subject, path, manager, version in old_managers(overlay):
            yield Hit(path, f"{subject.label}: {manager['image']} {version} predates {manager['since']} and does not "
                      f"pause {key} clients when it {manager['does']}", doc=subject.doc)


RULE = Rule(
    id="gpu-client-not-restarted",
    severity="warning",
    summary="A GPU client of your own that the GPU Operator will not stop before it reloads the driver or changes "
    "MIG.",
    fix="Make the client a DaemonSet and put nvidia.com/gpu.deploy.client: \"true\" in its pod template's "
    "nodeSelector (not in node affinity); leave driver.manager.version and migManager.version at the chart's "
    "defaults (k8s-driver-manager v0.12.0, k8s-mig-manager v0.15.0 or later).",
    explanation="The driver manager and the MIG manager stop GPU clients by changing nvidia.com/gpu.deploy.client to "
    "paused-for-driver-upgrade, so that the DaemonSet controller deletes their pods, and then wait until no "
    "DaemonSet pod on the node has the key in its nodeSelector. A Deployment's or Job's pod is never removed by a "
    "label change (the scheduler does not look again at a running pod); a DaemonSet that selects the label through "
    "node affinity is not waited for (with Exists it is not even removed); and managers older than k8s-driver-manager "
    "v0.12.0 or k8s-mig-manager v0.15.0 do not know the label. In each case the client still holds the GPU when the "
    "driver is unloaded or the GPU is repartitioned, and that step fails or breaks the client.",
    source="NVIDIA/k8s-driver-manager v0.12.0 cmd/driver-manager/main.go (nvidiaGPUClientDeployLabel), "
    "internal/kubernetes/client.go (WaitForPodsWithNodeSelector); NVIDIA/mig-parted v0.15.0 "
    "pkg/mig/reconfigure/reconfigure.go (gpuClientDeployLabel, commit 4224297a); NVIDIA/gpu-operator v26.7.0 "
    "deployments/gpu-operator/values.yaml (driver.manager.version, migManager.version)",
    check=check,
    applies_to=OVERLAY,
)
