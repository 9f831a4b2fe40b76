from gengpu.checking.rules._pods import containers, gpu_resources
from gengpu.checking.rules.base import WORKLOAD, Hit, Rule


def check(subject, ctx=None):
    for path, c in containers(subject):
        limits = gpu_resources(c, "limits")
        for name in gpu_resources(c, "requests"):
            if name not in limits:
                yield Hit(path + ("resources", "requests", name),
                          f"{subject.label}: container {c.get('name', '?')} requests {name} without a limit", key=True)


RULE = Rule(
    id="gpu-in-requests-only",
    severity="error",
    summary="A GPU resource in requests but not in limits.",
    fix="Put the GPU count under resources.limits (requests may repeat it, with the same value).",
    explanation="Extended resources are consumed through limits: 'include the resource name as a key in the "
    "spec.containers[].resources.limits map'. The API server rejects a request without a matching limit.",
    source="Kubernetes docs 'Resource Management for Pods and Containers' (extended resources)",
    check=check,
    applies_to=WORKLOAD,
)
