from gengpu import mig
from gengpu.checking.rules._mig import entries
from gengpu.checking.rules.base import MIG_PARTED_CONFIG, Hit, Rule


def check(subject, ctx=None):
    for name, i, entry in entries(subject.data):
        if entry.get("mig-enabled") is not True:
            continue  # nothing to place: the filter only says which GPUs keep MIG off
        _, unknown = mig.gpus_for_device_filter(entry.get("device-filter"))
        if unknown:
            yield Hit(("mig-configs", name, i, "device-filter"),
                      f"{subject.label}: mig-configs.{name}[{i}].device-filter {', '.join(unknown)} is not a GPU "
                      "gengpu knows; its layout is not checked", key=True)


RULE = Rule(
    id="mig-device-filter-unknown",
    severity="warning",
    summary="A device-filter for a GPU gengpu cannot identify.",
    fix="Write filters as 0xDDDD10DE (PCI device id, NVIDIA vendor 10DE) of a GPU in `gengpu catalog gpus`.",
    explanation="A filter that matches no GPU of the node makes the entry a no-op; mig-parted assert then reports "
    "'not all GPUs match the specified config'. An unknown id may also be a GPU newer than gengpu's table.",
    source="NVIDIA/mig-parted api/spec/v1 (device-filter); gengpu/data/gpus.yaml pciDeviceIds",
    check=check,
    applies_to=MIG_PARTED_CONFIG,
)
