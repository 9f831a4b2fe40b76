from gengpu import catalog
from gengpu.checking.rules._karpenter import REQUIREMENTS, requirements
from gengpu.checking.rules.base import KARPENTER_NODEPOOL, Hit, Rule

TYPES = ("node.kubernetes.io/instance-type", "karpenter.k8s.aws/instance-family")
GPU_NAME = "karpenter.k8s.aws/instance-gpu-name"
GPU_COUNT = "karpenter.k8s.aws/instance-gpu-count"


def _values(req) -> list[str]:
    return [str(v) for v in req.get("values")] if isinstance(req.get("values"), list) else []


def check(subject, ctx=None):
    reqs = [(i, r) for i, r in requirements(subject.data) if r.get("operator") == "In" and _values(r)]
    names = {v for i, r in reqs if r.get("key") == GPU_NAME for v in _values(r)}
    counts = {int(v) for i, r in reqs if r.get("key") == GPU_COUNT for v in _values(r) if v.isdecimal()}
    for i, req in reqs:
        if req.get("key") not in TYPES:
            continue
        specs = {t: catalog.instance_type("eks", t) for t in _values(req)}
        known = {t: s for t, s in specs.items() if s}
        if not known or len(known) < len(specs):
            continue  # an instance type gengpu does not know may carry anything
        if names and not any(s["gpuName"] in names for s in known.values()):
            carried = sorted({s["gpuName"] for s in known.values()})
            yield Hit(REQUIREMENTS + (i, "values"), f"{subject.label}: {req['key']} {', '.join(known)} carry "
                      f"{', '.join(carried)}, but {GPU_NAME} asks for {', '.join(sorted(names))}: no instance type "
                      "satisfies both, so the NodePool never launches a node")
        elif counts:
            offered = {c for s in known.values() for c in (s.get("counts") or [s.get("gpus")])}
            if not offered & counts:
                yield Hit(REQUIREMENTS + (i, "values"), f"{subject.label}: {req['key']} {', '.join(known)} come with "
                          f"{', '.join(map(str, sorted(offered)))} GPUs, but {GPU_COUNT} asks for "
                          f"{', '.join(map(str, sorted(counts)))}: the NodePool never launches a node")


RULE = Rule(
    id="karpenter-gpu-requirements-conflict",
    severity="error",
    summary="A NodePool whose instance types and GPU requirements exclude each other.",
    fix="Make the instance families or types carry the GPU the requirements name (karpenter.k8s.aws/instance-gpu-name "
    "and instance-gpu-count), or drop one of the two.",
    explanation="Karpenter launches only instance types that meet every requirement. g5 (A10G) with "
    "instance-gpu-name l4, or g6.xlarge (1 GPU) with instance-gpu-count 4, leaves no candidate: pending GPU pods "
    "stay pending and Karpenter logs 'no instance type satisfied resources and requirements'.",
    source="Karpenter scheduling (requirements are intersected); AWS instance types "
    "(gengpu/data/clouds.yaml, from karpenter-provider-aws instance-types.md); pain point KP-02",
    check=check,
    applies_to=KARPENTER_NODEPOOL,
)
