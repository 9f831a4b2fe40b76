from gengpu.checking.rules.base import USAGE_POOL, Hit, Rule


def check(rec, ctx):
    if rec.idle:
        shown = ", ".join(rec.idle[:5]) + (f" and {len(rec.idle) - 5} more" if len(rec.idle) > 5 else "")
        yield Hit(("spec", "nodePools", rec.usage.pool.index),
                  f"pool {rec.pool}: {len(rec.idle)} GPU(s) held by pods did nothing over {rec.usage.hours:.1f} h "
                  f"(activity and memory below 1%): {shown}")


RULE = Rule(
    id="pool-gpus-idle",
    severity="warning",
    summary="GPUs allocated to pods that neither computed nor held memory over the whole window.",
    fix="Find the pods on those GPUs (the evidence names them) and scale them down or release their GPUs; a "
    "notebook or a stuck job holds a GPU no other pod can use.",
    explanation="A GPU a pod has been given is out of every other pod's reach, whether the pod uses it or not. "
    "dcgm-exporter names the pod on each GPU; one whose activity and memory stayed under 1% for the whole window is "
    "paid for and idle.",
    source="NVIDIA/dcgm-exporter internal/pkg/transformation/kubernetes.go (pod labels)",
    check=check,
    applies_to=USAGE_POOL,
)
