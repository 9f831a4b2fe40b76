from gengpu.checking.rules._engines import engines
from gengpu.checking.rules.base import WORKLOAD, Hit, Rule


def check(subject, ctx=None):
    for _, container, engine in engines(subject):
        setting = engine.settings.get("memory")
        if setting is None or "$" in setting.value:
            continue
        try:
            value = float(setting.value)
        except ValueError:
            value = float("nan")
        if not 0 < value <= 1:  # also NaN
            flag = "--gpu-memory-utilization" if engine.name == "vllm" else "--mem-fraction-static"
            yield Hit(setting.path, f"{subject.label}: {engine.name} {flag} {setting.value} is not a fraction of "
                                    "the GPU's memory between 0 and 1")


RULE = Rule(
    id="serving-memory-fraction-invalid",
    severity="error",
    summary="An LLM serving engine's GPU memory fraction outside (0, 1].",
    fix="Give the fraction of each GPU's memory the engine may take, e.g. 0.9 (not a percentage, not GiB).",
    explanation="vLLM's --gpu-memory-utilization and SGLang's --mem-fraction-static are fractions of one GPU's "
    "memory. 90 or 1.5 is refused at start; 0 leaves no room for the KV cache.",
    source="vLLM engine/arg_utils.py (gpu_memory_utilization, 0 < x <= 1); SGLang server_args mem_fraction_static",
    check=check,
    applies_to=WORKLOAD,
)
