"""DRA extended resources (KEP-5004): what the DeviceClasses of a run map, and what its pods ask for by name."""

from gengpu.checking.podspecs import text
from gengpu.checking.subjects import group_version

# Every DeviceClass also answers to this prefix plus its name (k8s.io/api resource/v1 ResourceDeviceClassPrefix).
IMPLICIT = "deviceclass.resource.kubernetes.io/"


def device_classes(overlay) -> dict[str, dict]:
    """DeviceClass name -> its object, for every resource.k8s.io DeviceClass among the run's objects."""
    out = {}
    for doc in overlay.docs:
        data = doc.data if isinstance(doc.data, dict) else {}
        if data.get("kind") == "DeviceClass" and group_version(data)[0] == "resource.k8s.io":
            name = text(data, "metadata", "name")
            if name is not None:
                out[name] = data
    return out


def mapped(classes: dict[str, dict]) -> dict[str, str]:
    """extendedResourceName -> the DeviceClass that maps it."""
    out = {}
    for name, data in sorted(classes.items()):
        spec = data.get("spec") if isinstance(data.get("spec"), dict) else {}
        if isinstance(spec.get("extendedResourceName"), str):
            out[spec["extendedResourceName"]] = name
    return out


def requests(subject):
    """(path, resource name) of every extended resource a workload's containers ask for, limits before requests."""
    for path, container in subject.containers:
        resources = container.get("resources") if isinstance(container.get("resources"), dict) else {}
        seen = set()
        for section in ("limits", "requests"):
            asked = resources.get(section)
            for name in asked if isinstance(asked, dict) else ():
                if isinstance(name, str) and "/" in name and name not in seen:
                    seen.add(name)
                    yield path + ("resources", section, name), name
