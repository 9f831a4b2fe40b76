from gengpu.checking.rules._engines import engines, gpus, group_size, pods
from gengpu.checking.rules.base import WORKLOAD, Hit, Rule


def check(subject, ctx=None):
    # GPUs of each group's leader and worker pods, whatever their containers run (a Ray worker runs no engine)
    per_role = {}
    for pod in pods(subject):
        counts = [gpus(c) for c in pod.spec.get("containers") or [] if isinstance(c, dict)]
        per_role[pod.group, pod.role] = None if None in counts else sum(counts)
    for pod, container, engine in engines(subject):
        size = group_size(subject, pod.group)
        parallel = engine.parallel()
        have = gpus(container)
        if not parallel or not have:  # no GPU limit: gpu rules of its own; a variable: not judged
            continue
        nodes = engine.number("nnodes", size) if "nnodes" in engine.settings else 1
        if nodes is None:
            continue
        if nodes > 1 or engine.ray:
            if size is None or engine.ray and pod.role != "leader":
                continue  # GPUs of other pods gengpu cannot see (a Ray cluster, pods of another object)
            leader, workers = per_role.get((pod.group, "leader")), per_role.get((pod.group, "worker"), 0)
            if leader is None or workers is None:
                continue
            if engine.ray or nodes == size:  # one engine over the whole group: the leader's GPUs and every worker's
                group = leader + (size - 1) * workers  # (the group's size counts the leader)
                if parallel > group:
                    yield Hit(engine.parallel_path(), f"{subject.label}: {engine.name} shards the model over "
                              f"{parallel} GPU(s) (tensor x pipeline parallel) across the group, which has {group} "
                              f"GPU(s) ({_spread(leader, size - 1, workers)}); the engine stops at start")
            elif -(-parallel // nodes) > have:  # over fewer nodes than the group: each holds its share
                yield Hit(engine.parallel_path(), f"{subject.label}: {engine.name} shards the model over {parallel} "
                          f"GPU(s) on {nodes} nodes, {-(-parallel // nodes)} a pod, but container "
                          f"{container.get('name', '?')} is given {have}; the engine stops at start")
            continue
        if len(subject.pods) > 1 and size is None:
            continue  # an operator's roles (Dynamo ...): the engine may span pods gengpu cannot group
        if parallel > have:
            yield Hit(engine.parallel_path(),
                      f"{subject.label}: {engine.name} shards the model over {parallel} GPU(s) (tensor x pipeline "
                      f"parallel) but container {container.get('name', '?')} is given {have}; the engine stops at start "
                      "(world size larger than the GPUs it can see)")


def _spread(leader: int, count: int, workers: int) -> str:
    if not count:
        return f"{leader} on the leader, no workers"
    return f"{leader} on the leader, {workers} on each of {count} worker(s)"


RULE = Rule(
    id="serving-parallel-over-gpus",
    severity="error",
    summary="An LLM serving engine told to shard a model over more GPUs than its pod (or group) has.",
    fix="Make tensor-parallel x pipeline-parallel size equal the GPUs in resources.limits (per pod, or per group "
    "for a multi-node engine), or ask for more GPUs.",
    explanation="vLLM, SGLang and TGI start one worker per GPU of the model's shards: tensor-parallel x "
    "pipeline-parallel size for vLLM and SGLang, --num-shard / NUM_SHARD for TGI. A container that is given fewer "
    "GPUs cannot see the rest, and the engine stops at start (vLLM: 'Tensor parallel size (2) cannot be larger "
    "than the number of available GPUs (1)'). A multi-node engine (--nnodes, a LeaderWorkerSet group, Ray) counts "
    "the GPUs of every pod in the group; gengpu adds them up where the group is one object.",
    source="vLLM docs 'Distributed inference and serving' and engine/arg_utils.py; SGLang server arguments; TGI "
    "launcher --num-shard; LeaderWorkerSet leaderWorkerTemplate.size (tests/corpus/serving, FACTS of round 3)",
    check=check,
    applies_to=WORKLOAD,
)
