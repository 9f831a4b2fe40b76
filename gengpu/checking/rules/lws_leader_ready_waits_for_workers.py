from gengpu.checking.rules._engines import engines, group_size
from gengpu.checking.rules.base import WORKLOAD, Hit, Rule


def check(subject, ctx=None):
    spec = subject.data.get("spec") if isinstance(subject.data.get("spec"), dict) else {}
    if spec.get("startupPolicy") != "LeaderReady":
        return
    size = group_size(subject)
    if not size or size < 2:
        return
    for pod, container, engine in engines(subject):
        if pod.role != "leader" or not isinstance(container.get("readinessProbe"), dict):
            continue
        if engine.ray or (engine.number("nnodes", size) or 1) > 1:
            how = "a Ray cluster of the group's pods" if engine.ray else f"{engine.number('nnodes', size)} nodes"
            yield Hit(("spec", "startupPolicy"), f"{subject.label}: startupPolicy LeaderReady creates the workers only "
                      f"once the leader is ready, but the leader's {container.get('name', '?')} is ready when "
                      f"{engine.name} serves, and {engine.name} waits for {how}: the workers are never created and "
                      "the group never starts")
            return


RULE = Rule(
    id="lws-leader-ready-waits-for-workers",
    severity="error",
    summary="A LeaderWorkerSet that creates its workers when the leader is ready, whose leader is ready only once "
    "the workers have joined.",
    fix="Drop startupPolicy (LeaderCreated, the default, creates the workers with the leader), or give the leader a "
    "readiness probe that does not wait for the engine.",
    explanation="With startupPolicy LeaderReady the LeaderWorkerSet controller creates a group's worker StatefulSet "
    "only after the leader pod is Ready. A multi-node engine on the leader (vLLM or SGLang over a Ray cluster of the "
    "group, or --nnodes) starts serving only when every worker has joined; a readiness probe on its port stays "
    "failing until then. The leader waits for workers that wait for the leader: the pods sit at 0/1 Ready forever.",
    source="kubernetes-sigs/lws v0.10.0 api/leaderworkerset/v1/leaderworkerset_types.go (LeaderReady: \"creates the "
    "workers statefulset after the leader pod is ready\"), pkg/controllers/pod_controller.go; vLLM "
    "examples/online_serving/multi-node-serving.sh (the leader waits for --ray_cluster_size nodes)",
    check=check,
    applies_to=WORKLOAD,
)
