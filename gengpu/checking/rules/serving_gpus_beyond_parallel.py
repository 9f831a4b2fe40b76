from gengpu.checking.rules._engines import engines, gpus
from gengpu.checking.rules.base import WORKLOAD, Hit, Rule


def check(subject, ctx=None):
    for pod, container, engine in engines(subject):
        if pod.role != "pod" or engine.ray or "nnodes" in engine.settings or "dp" in engine.settings:
            continue  # multi-node and data-parallel engines place their GPUs across pods and ranks
        if "tp" not in engine.settings and "pp" not in engine.settings:
            continue  # TGI without NUM_SHARD shards over every GPU it sees; vLLM without -tp over one
        parallel, have = engine.parallel(), gpus(container)
        if parallel and have and have > parallel:
            yield Hit(engine.parallel_path(),
                      f"{subject.label}: container {container.get('name', '?')} is given {have} GPU(s) but "
                      f"{engine.name} shards the model over {parallel} (tensor x pipeline parallel): {have - parallel} "
                      "GPU(s) stay idle")


RULE = Rule(
    id="serving-gpus-beyond-parallel",
    severity="warning",
    summary="An LLM serving engine given more GPUs than it shards the model over: the rest stay idle.",
    fix="Ask for as many GPUs as tensor-parallel x pipeline-parallel size (x data-parallel size), or raise the "
    "parallelism to use them.",
    explanation="A pod holds every GPU in its limits for as long as it runs. An engine told to shard over fewer "
    "(vLLM --tensor-parallel-size 2 in a pod with 4 GPUs) uses only those; the others are held and idle, and no "
    "other pod can have them. TGI without NUM_SHARD and data-parallel engines are left out: they use what they see.",
    source="vLLM docs 'Distributed inference and serving'; TGI launcher --num-shard (defaults to every visible GPU)",
    check=check,
    applies_to=WORKLOAD,
)
