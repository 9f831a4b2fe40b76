from gengpu.checking.consequences import UNLESS_LIMITED
from gengpu.checking.rules._pods import containers, gpu_resources
from gengpu.checking.rules._trainer import is_trainjob, runtime_of
from gengpu.checking.rules.base import WORKLOAD, Hit, Rule


def check(subject, ctx=None):
    trainjob = is_trainjob(subject.data)
    for path, c in containers(subject):
        limits = gpu_resources(c, "limits")
        for name in gpu_resources(c, "requests"):
            if name in limits:
                continue
            if trainjob and path == ("spec", "trainer"):
                # Trainer merges resourcesPerNode into its runtime's node container: moot where that runtime, in the
                # files, limits the GPU (checking/consequences.py)
                runtime = runtime_of(subject.data)
                yield Hit(path + ("resources", "requests", name), f"{subject.label}: trainer.resourcesPerNode "
                          f"requests {name} without a limit, and Trainer merges it into {runtime}'s node container as "
                          "written: the API server refuses the node pods unless that runtime limits it", key=True,
                          needs=f"{UNLESS_LIMITED}{runtime}:{name}")
                continue
            yield Hit(path + ("resources", "requests", name),
                      f"{subject.label}: container {c.get('name', '?')} requests {name} without a limit", key=True)


RULE = Rule(
    id="gpu-in-requests-only",
    severity="error",
    summary="A GPU resource in requests but not in limits.",
    fix="Put the GPU count under resources.limits (requests may repeat it, with the same value).",
    explanation="Extended resources are consumed through limits: 'include the resource name as a key in the "
    "spec.containers[].resources.limits map'. The API server rejects a request without a matching limit. A Kubeflow "
    "TrainJob's trainer.resourcesPerNode is merged into its runtime's node container key by key (Trainer v2.3.0; "
    "before, it replaced the container's resources): a GPU it only requests is fine where the runtime, checked in the "
    "same run, limits it.",
    source="Kubernetes docs 'Resource Management for Pods and Containers' (extended resources); kubeflow/trainer "
    "v2.3.0 pkg/runtime/core/trainingruntime.go (resourcesPerNode merged into the node container), issue 2363",
    check=check,
    applies_to=WORKLOAD,
)
