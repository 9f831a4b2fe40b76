"""Walk the containers of a workload and read their GPU resources."""

import re


_WHOLE = re.compile(r"^[+-]?[0-9]+$")


def containers(subject):
    """(path to the container, container) for every init and regular container of a workload."""
    return subject.containers


def gpu_resources(container, section, vendors: bool = True):
    """GPU resources of a container's limits or requests: NVIDIA's (and with vendors, every GPU resource)."""
    from gengpu.checking.podspecs import GPU_RESOURCE

    res = container.get("resources") if isinstance(container.get("resources"), dict) else {}
    res = res.get(section) or {}
    if not isinstance(res, dict):
        return {}
    return {k: v for k, v in res.items() if (GPU_RESOURCE if vendors else _NVIDIA).match(str(k))}


_NVIDIA = re.compile(r"^nvidia\.com/")


def whole(quantity) -> int | None:
    """The quantity as a whole number, or None when it is not one."""
    if isinstance(quantity, bool):
        return None
    if isinstance(quantity, int):
        return quantity
    if isinstance(quantity, str) and _WHOLE.match(quantity):
        return int(quantity)
    return None


def tolerates(tolerations, taint) -> bool:
    for t in tolerations or []:
        if not isinstance(t, dict):
            continue
        if t.get("effect") and t["effect"] != taint.effect:
            continue
        op = t.get("operator", "Equal")
        if op == "Exists" and (not t.get("key") or t["key"] == taint.key):
            return True
        if op == "Equal" and t.get("key") == taint.key and str(t.get("value", "")) == str(taint.value or ""):
            return True
    return False


def pod_tolerations(spec: dict) -> list:
    tolerations = spec.get("tolerations")
    return tolerations if isinstance(tolerations, list) else []
