from gengpu.checking.rules._placed import placed_pool
from gengpu.checking.rules._pods import gpu_resources
from gengpu.checking.rules.base import WORKLOAD, Hit, Rule
from gengpu.checking.podspecs import containers_of


def check(subject, ctx=None):
    placed = placed_pool(subject, ctx)
    if placed is None:
        return
    offered = [o.resource for o in placed.offers] or ["nvidia.com/gpu"]
    for path, spec in subject.pods:
        if not spec.get("containers"):
            continue  # a patch (a placement component's own), not a pod
        if placed.pool.dra:
            if not any(isinstance(c.get("resources"), dict) and c["resources"].get("claims")
                       for _, c in containers_of(spec)):
                yield Hit(path + ("containers",), f"{subject.label} is placed on DRA pool {placed.pool.name}, but no "
                          "container uses the pod's claim: add `resources: {claims: [{name: gpu}]}` to the container "
                          "that needs the GPU")
            continue
        if not any(gpu_resources(c, "limits", vendors=False) for _, c in containers_of(spec)) and \
                not spec.get("resourceClaims"):
            what = f"`{offered[0]}: 1`" if len(offered) == 1 else f"one of {', '.join(offered)}"
            yield Hit(path + ("containers",), f"{subject.label} is placed on GPU pool {placed.pool.name}, but no "
                      f"container asks for a GPU: add {what} to the limits of the container that needs it")


RULE = Rule(
    id="placement-without-gpu-request",
    severity="error",
    summary="A workload placed on a GPU pool asks for no GPU.",
    fix="Add the pool's resource to the limits of the container that uses the GPU (for example "
    "`nvidia.com/gpu: 1`), or on a DRA pool `resources: {claims: [{name: gpu}]}`; the placement component adds only "
    "node selection, tolerations and (DRA) the pod's claim.",
    explanation="Placement components keep every container's own resources. A pod on a GPU node that asks for no "
    "GPU gets none (the device plugin hands devices only to containers that request them), holds a GPU node's CPU "
    "and memory, and on GKE Autopilot is rejected outright. On a DRA pool the device goes only to containers that list the pod's "
    "claim.",
    source="Kubernetes 'Schedule GPUs'; GKE 'Deploy GPU workloads in Autopilot'",
    check=check,
    applies_to=WORKLOAD,
)
