"""Kubeflow Trainer v2: which runtime a TrainJob runs on, and what the runtime's node container already limits.

Trainer (v2.3.0 pkg/runtime/core/trainingruntime.go, util/trainingruntime MergeResources) merges a TrainJob's
trainer.resourcesPerNode into the container named `node` of the runtime's replicated job labelled
trainer.kubeflow.org/trainjob-ancestor-step: trainer, key by key: a GPU the TrainJob only requests is limited where
the runtime limits it, and refused by the API server where nothing does."""

from gengpu.checking.podspecs import GPU_RESOURCE, dig

GROUP = "trainer.kubeflow.org"
RUNTIMES = ("TrainingRuntime", "ClusterTrainingRuntime")
ANCESTOR = "trainer.kubeflow.org/trainjob-ancestor-step"


def runtime_of(trainjob: dict) -> str:
    """Kind/name of the runtime a TrainJob names (runtimeRef.kind defaults to ClusterTrainingRuntime)."""
    ref = dig(trainjob, "spec", "runtimeRef")
    ref = ref if isinstance(ref, dict) else {}
    return f"{ref.get('kind') or 'ClusterTrainingRuntime'}/{ref.get('name', '')}"


def node_limits(runtime: dict) -> set[str]:
    """GPU resources the runtime's node container limits."""
    out = set()
    jobs = dig(runtime, "spec", "template", "spec", "replicatedJobs")
    for job in jobs if isinstance(jobs, list) else []:
        labels = dig(job, "template", "metadata", "labels")
        if not isinstance(labels, dict) or labels.get(ANCESTOR) != "trainer":
            continue
        containers = dig(job, "template", "spec", "template", "spec", "containers")
        for c in containers if isinstance(containers, list) else []:
            limits = dig(c, "resources", "limits") if isinstance(c, dict) and c.get("name") == "node" else None
            out |= {str(k) for k in (limits if isinstance(limits, dict) else {}) if GPU_RESOURCE.match(str(k))}
    return out


def is_runtime(data: dict) -> bool:
    return data.get("kind") in RUNTIMES and str(data.get("apiVersion", "")).startswith(GROUP + "/")


def is_trainjob(data: dict) -> bool:
    return data.get("kind") == "TrainJob" and str(data.get("apiVersion", "")).startswith(GROUP + "/")
