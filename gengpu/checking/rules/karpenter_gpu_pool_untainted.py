from gengpu.checking.rules._karpenter import launches_gpus
from gengpu.checking.rules.base import KARPENTER_NODEPOOL, Hit, Rule
from gengpu.checking.podspecs import dig


def check(subject, ctx=None):
    taints = dig(subject.data, "spec", "template", "spec", "taints")
    hard = [t for t in (taints if isinstance(taints, list) else []) if isinstance(t, dict)
            and t.get("effect") in ("NoSchedule", "NoExecute")]
    if launches_gpus(subject.data) and not hard:
        yield Hit(("spec", "template", "spec"), f"{subject.label} launches only GPU instances but taints them with "
                  "nothing: ordinary pods land on them and keep them from being consolidated")


RULE = Rule(
    id="karpenter-gpu-pool-untainted",
    severity="warning",
    summary="A Karpenter NodePool of GPU instances without a NoSchedule taint.",
    fix="Add taints: [{key: nvidia.com/gpu, effect: NoSchedule}] to spec.template.spec, and the toleration to GPU "
    "pods (the GPU Operator's DaemonSets tolerate it already).",
    explanation="Karpenter packs any pending pod onto any node that fits. Without a taint, CPU-only pods fill the "
    "expensive GPU nodes, which then can neither be consolidated nor free their GPUs for GPU pods.",
    source="Karpenter docs 'Scheduling' (taints for specialised hardware); pain point KP-04",
    check=check,
    applies_to=KARPENTER_NODEPOOL,
)
