from gengpu.checking.rules.base import DEVICE_PLUGIN_CONFIG, MIG_PARTED_CONFIG, OVERLAY, Hit, Rule
from gengpu.checking.podspecs import dig

LABELS = {"nvidia.com/device-plugin.config": DEVICE_PLUGIN_CONFIG, "nvidia.com/mig.config": MIG_PARTED_CONFIG}
# Where node labels are written: a Node, a Karpenter NodePool's template, an AKS/GKE node pool object.
LABEL_PATHS = (("metadata", "labels"), ("spec", "template", "metadata", "labels"),
               ("spec", "nodePoolConfig", "nodeLabels"))


def _labels(doc):
    data = doc.data
    if not isinstance(data, dict) or data.get("kind") not in ("Node", "NodePool", "ComputeClass", "NodeClaim"):
        return
    for path in LABEL_PATHS:
        node = dig(data, *path)
        if isinstance(node, dict):
            for label, kind in LABELS.items():
                if label in node:
                    yield path + (label,), label, kind, str(node[label])


def check(overlay, ctx=None):
    keys = {DEVICE_PLUGIN_CONFIG: set(), MIG_PARTED_CONFIG: set()}
    seen = {DEVICE_PLUGIN_CONFIG: False, MIG_PARTED_CONFIG: False}
    for s in overlay.subjects:
        if s.kind == DEVICE_PLUGIN_CONFIG and s.key is not None:
            seen[s.kind] = True
            keys[s.kind].add(s.key)
        elif s.kind == MIG_PARTED_CONFIG and isinstance(s.data.get("mig-configs"), dict):
            seen[s.kind] = True
            keys[s.kind].update(s.data["mig-configs"])
    for doc in overlay.docs:
        for path, label, kind, value in _labels(doc):
            if seen[kind] and value not in keys[kind]:
                yield Hit(path, f"{doc.data['kind']} {doc.data.get('metadata', {}).get('name', '?')} sets "
                                f"{label}={value}, but no config of that name exists (there are "
                                f"{', '.join(sorted(keys[kind]))})", doc=doc)


RULE = Rule(
    id="config-label-unknown",
    severity="error",
    summary="A node label selects a sharing or MIG config that does not exist.",
    fix="Make the label value one of the config names (the ConfigMap keys, or the mig-configs names).",
    explanation="The device plugin's config-manager exits with 'specified config does not exist' when "
    "nvidia.com/device-plugin.config names a missing key, and mig-manager fails with 'selected mig-config not "
    "present' for nvidia.com/mig.config: the nodes come up without GPUs.",
    source="NVIDIA/k8s-device-plugin cmd/config-manager/main.go; NVIDIA/mig-parted cmd/nvidia-mig-manager",
    check=check,
    applies_to=OVERLAY,
)
