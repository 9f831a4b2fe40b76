from gengpu.checking.rules._pods import gpu_resources, pod_tolerations, tolerates
from gengpu.checking.rules.base import WORKLOAD, Hit, Rule
from gengpu.checking.podspecs import containers_of


def check(subject, ctx=None):
    if ctx is None:
        return
    for path, spec in subject.pods:
        wanted = {name for _, c in containers_of(spec) for name in gpu_resources(c, "limits", vendors=False)}
        pools = [p for p in ctx.offers if wanted and all(p.offer(n) for n in wanted)]
        if not pools:
            continue  # gpu-resource-not-advertised says why
        tolerations = pod_tolerations(spec)
        blocking = {p.pool.name: [t for t in p.taints if t.effect in ("NoSchedule", "NoExecute") and not tolerates(
            tolerations, t)] for p in pools}
        if all(blocking.values()):
            pool, taints = next(iter(blocking.items()))
            shown = ", ".join(f"{t.key}{'=' + t.value if t.value else ''}:{t.effect}" for t in taints)
            yield Hit(path + ("tolerations",) if "tolerations" in spec else path,
                      f"{subject.label} does not tolerate {shown} of pool {pool}, the pool that advertises "
                      f"{', '.join(sorted(wanted))}")


RULE = Rule(
    id="gpu-taint-not-tolerated",
    severity="error",
    summary="The workload cannot run on any pool that has its GPUs: it does not tolerate their taints.",
    fix="Add the pool's tolerations (include the pool's placement component), or untaint the pool.",
    explanation="GPU pools are tainted so only GPU pods land there. A GPU pod without the matching toleration is "
    "Pending for ever; an Equal toleration with another value does not match.",
    source="Kubernetes 'Taints and Tolerations'; pain point OP-07",
    check=check,
    applies_to=WORKLOAD,
)
