from gengpu.checking.rules._live import at_item
from gengpu.checking.rules.base import LIVE_CLUSTER, Rule

BLOCKING = ("NoSchedule", "NoExecute")


def _effect(effect: str) -> str:
    return "no new claim is allocated them" + (" and pods using them are evicted" if effect == "NoExecute" else "")


def check(cluster, ctx=None):
    snap = cluster.snapshot
    for rule in snap.devicetaintrules:
        taint = rule.mapping("spec", "taint")
        effect = str(taint.get("effect") or "")
        if effect not in BLOCKING:
            continue
        selector = rule.mapping("spec", "deviceSelector")
        chosen = ", ".join(f"{k} {v}" for k, v in selector.items() if isinstance(v, str)) or "every device"
        key = f"{taint.get('key')}={taint.get('value')}" if taint.get("value") else str(taint.get("key") or "?")
        yield at_item(rule, f"DeviceTaintRule {rule.name} taints the devices of {chosen} with {key}:{effect}: "
                      f"{_effect(effect)}", "spec", "taint")
    for s in snap.resourceslices:
        for i, device in enumerate(s.sequence("spec", "devices")):
            if not isinstance(device, dict):
                continue
            for j, taint in enumerate(device.get("taints") or []):
                effect = str(taint.get("effect") or "") if isinstance(taint, dict) else ""
                if effect in BLOCKING:
                    node = s.text("spec", "nodeName") or ""
                    yield at_item(s, f"device {device.get('name')} of {s.text('spec', 'driver')}"
                                  + (f" on node {node}" if node else "") + f" is tainted {taint.get('key')}"
                                  + (f"={taint.get('value')}" if taint.get("value") else "") + f":{effect}: "
                                  f"{_effect(effect)}", "spec", "devices", i, "taints", j, node=node)


RULE = Rule(
    id="dra-device-tainted",
    severity="warning",
    summary="DRA devices carry a NoSchedule or NoExecute taint (a DeviceTaintRule, or a driver's health check): "
    "they are out of service.",
    fix="If the taint marks a fault (NVIDIA's DRA driver taints a device gpu.nvidia.com/xid on a critical Xid), "
    "drain and repair the GPU; if it was maintenance, delete the DeviceTaintRule once done. Pods that must run "
    "anyway tolerate the taint in their claim's request.",
    explanation="Device taints (Kubernetes 1.33+, DRADeviceTaints) keep new claims off a device (NoSchedule) and "
    "also evict the pods using it (NoExecute). A taint with effect None only informs. A cluster that looks healthy "
    "by its nodes can have no allocatable GPU for this reason.",
    source="Kubernetes Dynamic Resource Allocation, device taints and tolerations (kubernetes.io/docs/concepts/"
    "scheduling-eviction/dynamic-resource-allocation/#device-taints-and-tolerations); NVIDIA DRA driver health checks",
    check=check,
    applies_to=LIVE_CLUSTER,
)
