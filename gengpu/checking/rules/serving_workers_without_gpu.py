from gengpu.checking.rules._engines import engines, gpus, group_size, groups
from gengpu.checking.rules.base import WORKLOAD, Hit, Rule


def check(subject, ctx=None):
    for group, members in groups(subject).items():
        size = group_size(subject, group)
        if not size or size < 2:
            continue
        leaders = [(c, e) for pod, c, e in engines(subject) if pod.group == group and pod.role == "leader" and gpus(c)]
        multi = [e for _, e in leaders if e.ray or (e.number("nnodes", size) or 1) > 1]
        if not multi:
            continue
        for pod in members:
            if pod.role != "worker":
                continue
            containers = [c for c in pod.spec.get("containers") or [] if isinstance(c, dict)]
            if containers and not any(gpus(c) for c in containers):
                yield Hit(pod.path + ("containers",), f"{subject.label}: the leader starts a {multi[0].name} engine "
                                                      f"across the group of {size} pods, but the workers ask for no GPU")


RULE = Rule(
    id="serving-workers-without-gpu",
    severity="error",
    summary="A multi-node LLM engine whose worker pods ask for no GPU.",
    fix="Give the workerTemplate's container the same nvidia.com/gpu limit as the leader's.",
    explanation="A LeaderWorkerSet group runs one engine over every pod's GPUs: the leader starts it (vLLM "
    "--nnodes, or Ray) and the workers join. A worker without a GPU limit is scheduled anywhere and sees no GPU, so "
    "the engine waits for ranks that never come or fails. (KServe's multi-node workerSpec is left alone: its "
    "controller adds the GPUs.)",
    source="kubernetes-sigs/lws docs/examples (vllm, sglang: workers request the leader's GPUs); KServe multi-node "
    "docs (the controller sets the worker's GPUs)",
    check=check,
    applies_to=WORKLOAD,
)
