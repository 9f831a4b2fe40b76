import re

from gengpu.checking.rules.base import HELM_VALUES, Hit, Rule

_FLAG = re.compile(r"^--?(tensor[-_]parallel[-_]size|tp|pipeline[-_]parallel[-_]size|pp)(=(.*))?$")


def check(subject, ctx=None):
    if subject.chart != "vllm-stack":
        return
    specs = (subject.data.get("servingEngineSpec") or {}).get("modelSpec") if isinstance(
        subject.data.get("servingEngineSpec"), dict) else None
    for i, spec in enumerate(specs if isinstance(specs, list) else []):
        config = spec.get("vllmConfig") if isinstance(spec, dict) else None
        if not isinstance(config, dict) or "tensorParallelSize" in config:
            continue
        args = config.get("extraArgs") if isinstance(config.get("extraArgs"), list) else []
        for j, arg in enumerate(args):
            found = _FLAG.match(str(arg))
            if not found:
                continue
            value = found.group(3) if found.group(2) else (str(args[j + 1]) if j + 1 < len(args) else "")
            if value.isdecimal() and int(value) > 1:
                yield Hit(("servingEngineSpec", "modelSpec", i, "vllmConfig", "extraArgs", j),
                          f"{subject.label}: modelSpec {spec.get('name', i)} passes {arg} {'' if found.group(2) else value}"
                          .rstrip() + " through extraArgs; the chart mounts a memory-backed /dev/shm only when "
                          "vllmConfig.tensorParallelSize is set, so NCCL gets 64 MiB and shmSize is ignored")


RULE = Rule(
    id="vllm-stack-parallel-without-shm",
    severity="error",
    summary="vLLM production-stack values that pass tensor or pipeline parallelism through extraArgs.",
    fix="Set vllmConfig.tensorParallelSize (and pipelineParallelSize) instead of the flag in extraArgs.",
    explanation="The vllm-stack chart renders --tensor-parallel-size from vllmConfig.tensorParallelSize, and only "
    "then mounts an emptyDir of medium Memory (shmSize) at /dev/shm. The same flag given in extraArgs reaches vLLM "
    "but not the template's condition: the pod keeps the runtime's 64 MiB /dev/shm and NCCL fails ('Error while "
    "creating shared memory segment'), as in production-stack issues #95 and #276.",
    source="vllm-project/production-stack helm/templates/deployment-vllm-multi.yaml (the /dev/shm volume inside "
    "`if hasKey $modelSpec.vllmConfig \"tensorParallelSize\"`); issues #95, #97, #276",
    check=check,
    applies_to=HELM_VALUES,
)
