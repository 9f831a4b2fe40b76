from gengpu.checking.rules._pods import containers, gpu_resources
from gengpu.checking.rules.base import WORKLOAD, Hit, Rule


def check(subject, ctx=None):
    for path, c in containers(subject):
        limits = gpu_resources(c, "limits")
        for name, value in gpu_resources(c, "requests").items():
            if name in limits and str(limits[name]) != str(value):
                yield Hit(path + ("resources", "requests", name),
                          f"{subject.label}: container {c.get('name', '?')} requests {value} {name} but limits "
                          f"{limits[name]}")


RULE = Rule(
    id="gpu-request-limit-differ",
    severity="error",
    summary="GPU request and limit differ.",
    fix="Give requests the same value as limits, or drop the request.",
    explanation="'Extended resources cannot be overcommitted, so request and limit must be equal if both are "
    "present in a container spec.' The API server rejects the pod.",
    source="Kubernetes docs 'Resource Management for Pods and Containers'",
    check=check,
    applies_to=WORKLOAD,
)
