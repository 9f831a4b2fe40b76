from gengpu.checking.rules.base import NVIDIA_DRIVER, OVERLAY, Hit, Rule
from gengpu.checking.podspecs import dig

GPU_NODES = {"nvidia.com/gpu.present": "true"}  # the operator's selector for an NVIDIADriver without one
OWNER_LABEL = "nvidia.com/gpu-operator.driver.owner"  # the operator routes nodes to drivers with it


def _selector(data) -> dict:
    ns = dig(data, "spec", "nodeSelector")
    return {str(k): str(v) for k, v in ns.items()} if isinstance(ns, dict) else dict(GPU_NODES)


def _show(data) -> str:
    return ", ".join(f"{k}={v}" for k, v in sorted(_selector(data).items())) + \
        ("" if isinstance(dig(data, "spec", "nodeSelector"), dict) else ", no nodeSelector")


def _overlap(a: dict, b: dict) -> bool:
    """Two equality selectors can match one node unless they want different values of one label."""
    return all(a[k] == b[k] for k in a.keys() & b.keys())


def check(overlay, ctx=None):
    drivers = [s for s in overlay.subjects if s.kind == NVIDIA_DRIVER]
    defaults = [s for s in drivers if dig(s.data, "spec", "default") is True]
    # a default driver with a nodeSelector is the CRD's own CEL rule (object-cel)
    if len(defaults) > 1:
        names = ", ".join(s.label for s in defaults)
        for s in defaults[1:]:
            yield Hit(("spec", "default"), f"{s.label}: more than one default NVIDIADriver ({names}); the operator "
                      "reconciles none of them", doc=s.doc)
    for s in drivers:
        if OWNER_LABEL in _selector(s.data) and isinstance(dig(s.data, "spec", "nodeSelector"), dict):
            yield Hit(("spec", "nodeSelector", OWNER_LABEL), f"{s.label}: nodeSelector uses {OWNER_LABEL}, which "
                      "the operator reserves for routing nodes to drivers", key=True, doc=s.doc)
    others = [s for s in drivers if dig(s.data, "spec", "default") is not True]
    for i, s in enumerate(others):
        for earlier in others[:i]:
            if _overlap(_selector(s.data), _selector(earlier.data)):
                where = "nodeSelector" if isinstance(dig(s.data, "spec", "nodeSelector"), dict) else "spec"
                yield Hit(("spec", where) if where == "nodeSelector" else ("spec",),
                          f"{s.label} ({_show(s.data)}) and {earlier.label} ({_show(earlier.data)}) can select the "
                          "same node: the operator stops with 'multiple NVIDIADrivers match the same node'",
                          key=True, doc=s.doc)


RULE = Rule(
    id="nvidiadriver-selectors-overlap",
    severity="error",
    summary="NVIDIADriver resources whose node selectors can pick the same node, or several default drivers.",
    fix="Give every NVIDIADriver a nodeSelector that no other one matches (a label per node pool, with different "
    "values), leave the nodeSelector off only one of them, mark at most one as spec.default: true, and leave nvidia.com/gpu-operator.driver.owner to the operator.",
    explanation="The GPU Operator deploys one driver per GPU node. Before it reconciles an NVIDIADriver it lists the "
    "nodes every non-default NVIDIADriver selects; a node two of them select stops the reconcile with 'multiple "
    "NVIDIADrivers match the same node' (state NotReady, ConflictingNodeSelector), and so do two default drivers. "
    "An NVIDIADriver without a nodeSelector selects every GPU node (nvidia.com/gpu.present=true), so two of those "
    "always conflict. Selectors are compared as written: gengpu cannot see which nodes carry which labels, so "
    "selectors that could meet on one node are reported.",
    source="NVIDIA/gpu-operator v26.7.0 internal/validator/validator.go (nodeSelectorValidator), "
    "api/nvidia/v1alpha1/nvidiadriver_types.go (GetNodeSelector, ValidateNodeSelector)",
    check=check,
    applies_to=OVERLAY,
)
