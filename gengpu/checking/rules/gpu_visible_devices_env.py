from gengpu.checking.rules._pods import containers, gpu_resources
from gengpu.checking.rules.base import WORKLOAD, Hit, Rule


def check(subject, ctx=None):
    from gengpu.checking.subjects import component_of

    for path, c in containers(subject):
        if component_of(str(c.get("image", ""))):
            continue  # NVIDIA's own daemons (device plugin, dcgm-exporter ...) see every GPU on purpose
        for i, env in enumerate(c.get("env") or []):
            if isinstance(env, dict) and env.get("name") == "NVIDIA_VISIBLE_DEVICES" and \
                    str(env.get("value", "")) not in ("void", "none", "") and not gpu_resources(c, "limits"):
                yield Hit(path + ("env", i), f"{subject.label}: container {c.get('name', '?')} sets "
                                             "NVIDIA_VISIBLE_DEVICES instead of asking for a GPU in limits")


RULE = Rule(
    id="gpu-visible-devices-env",
    severity="warning",
    summary="GPUs taken through NVIDIA_VISIBLE_DEVICES instead of a resource limit.",
    fix="Ask for nvidia.com/gpu in resources.limits and drop the variable.",
    explanation="NVIDIA_VISIBLE_DEVICES=all exposes every GPU of the node to a container the scheduler did not "
    "count, so it competes with the pods that were given those GPUs.",
    source="NVIDIA/k8s-device-plugin issues on NVIDIA_VISIBLE_DEVICES (pain point WL-03)",
    check=check,
    applies_to=WORKLOAD,
)
