from gengpu.checking.rules._engines import engines, gpus, memory_backed_shm
from gengpu.checking.rules.base import WORKLOAD, Hit, Rule


def check(subject, ctx=None):
    for pod, container, engine in engines(subject):
        parallel = engine.parallel() or 1
        if max(parallel, gpus(container) or 0) < 2 or memory_backed_shm(pod.spec, container):
            continue
        yield Hit(engine.where, f"{subject.label}: {engine.name} in container {container.get('name', '?')} runs on "
                                f"{max(parallel, gpus(container) or 0)} GPUs with the container runtime's 64 MiB "
                                "/dev/shm; NCCL between the GPUs needs more")


RULE = Rule(
    id="serving-shm-missing",
    severity="warning",
    summary="A multi-GPU LLM serving container without a memory-backed /dev/shm.",
    fix="Mount an emptyDir with medium: Memory (sizeLimit a few GiB) at /dev/shm in the container.",
    explanation="Tensor and pipeline parallelism exchange data between GPU workers through NCCL and shared memory. "
    "A container's /dev/shm is 64 MiB unless a memory-backed volume is mounted there; vLLM then fails at start "
    "('Error while creating shared memory segment /dev/shm/nccl-...') or crashes later. vLLM's Kubernetes guide, "
    "llm-d and the vLLM production-stack chart mount one for every multi-GPU engine.",
    source="vLLM docs 'Using Kubernetes' (shared memory); vllm-project/production-stack #97; NVIDIA/nccl #525",
    check=check,
    applies_to=WORKLOAD,
)
