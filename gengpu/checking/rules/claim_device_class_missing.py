import re

from gengpu.checking.rules._dra import request_classes
from gengpu.checking.rules._live import at_item
from gengpu.checking.rules.base import LIVE_CLUSTER, Rule

DRIVER = re.compile(r"device\.driver\s*==\s*['\"]([^'\"]+)['\"]")


def _classes(claim) -> list[tuple[tuple, str]]:
    return [(("spec", "devices", "requests", *path), name)
            for path, name in request_classes(claim.sequence("spec", "devices", "requests"))]


# the scheduler's own words (kubernetes pkg/scheduler/framework/plugins/dynamicresources): "request gpu: device
# class gpu.nvidia.com does not exist"
SCHEDULER = re.compile(r"(?:request (\S+): )?device class (\S+?) does not exist")


def check(cluster, ctx=None):
    snap = cluster.snapshot
    for event in snap.events:
        said = SCHEDULER.search(str(event.get("message") or event.get("note") or ""))
        if said and event.text("reason") in ("FailedScheduling", None, ""):
            about = event.mapping("involvedObject") or event.mapping("regarding")
            ns, name = str(about.get("namespace") or ""), str(about.get("name") or "")
            pod = f"pod {ns + '/' if ns else ''}{name}" if name else "a pod (the snapshot does not name it)"
            yield at_item(event, f"{pod} is unschedulable: its claim's request {said.group(1) or '?'} asks for "
                          f"DeviceClass {said.group(2)}, which the cluster does not have (as the scheduler says)",
                          subject=f"Pod/{ns + '/' if ns else ''}{name}" if name else f"DeviceClass/{said.group(2)}")
    if "deviceclasses" not in snap.captured and not snap.deviceclasses:
        return  # not looked at: nothing more to say
    classes = {c.name: c for c in snap.deviceclasses}
    drivers = {s.text("spec", "driver") for s in snap.resourceslices if s.sequence("spec", "devices")}
    for claim in snap.resourceclaims:
        if claim.get("status", "allocation") is not None:
            continue  # allocated: its class existed when it was
        ns = claim.text("metadata", "namespace") or "default"
        for path, name in _classes(claim):
            if name not in classes:
                yield at_item(claim, f"ResourceClaim {ns}/{claim.name} asks for DeviceClass {name}, which the "
                              f"cluster does not have ({', '.join(sorted(classes)) or 'no DeviceClass'}): it stays "
                              "pending", *path)
                continue
            wanted = {m.group(1) for s in classes[name].sequence("spec", "selectors") if isinstance(s, dict)
                      for m in [DRIVER.search(str((s.get("cel") or {}).get("expression", "")))] if m}
            if "resourceslices" in snap.captured and wanted and not wanted & drivers:
                yield at_item(claim, f"ResourceClaim {ns}/{claim.name} asks for DeviceClass {name} (driver "
                              f"{', '.join(sorted(wanted))}), and no ResourceSlice offers a device of that driver: "
                              "its kubelet plugin runs on no node, so the claim stays pending", *path)


RULE = Rule(
    id="claim-device-class-missing",
    severity="error",
    summary="An unallocated ResourceClaim asks for a DeviceClass the cluster does not have, or one whose driver no "
    "ResourceSlice offers devices of.",
    fix="Install the DRA driver that provides the class (NVIDIA's: gpu.nvidia.com, mig.nvidia.com) and check that "
    "its kubelet plugin runs on the GPU nodes (kubectl get resourceslices); or ask for a class the cluster has "
    "(kubectl get deviceclasses).",
    explanation="The scheduler allocates a claim from the devices ResourceSlices publish that match its DeviceClass's "
    "selectors. A class that does not exist, or a driver whose kubelet plugin publishes nothing, leaves every pod of "
    "the claim Pending with no event that names the cause plainly.",
    source="Kubernetes Dynamic Resource Allocation (resource.k8s.io/v1 ResourceClaim, DeviceClass, ResourceSlice); "
    "kubernetes-sigs/dra-driver-nvidia-gpu #438 (no GPU DeviceClass, no ResourceSlice)",
    check=check,
    applies_to=LIVE_CLUSTER,
)
