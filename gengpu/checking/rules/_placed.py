"""Which pool a workload was placed on (by a gengpu placement component), and what one pod of it asks for."""

from gengpu.checking.rules._pods import gpu_resources, whole
from gengpu.checking.podspecs import containers_of, dig

POOL = "gengpu.dev/pool"


def placed_pool(subject, ctx):
    """The PoolOffers of the pool the workload's placement names, or None."""
    if ctx is None:
        return None
    name = dig(subject.data, "metadata", "annotations", POOL)
    if not name:
        for _, spec in subject.pods:
            selector = spec.get("nodeSelector")
            if isinstance(selector, dict) and selector.get(POOL):
                name = selector[POOL]
                break
    return next((p for p in ctx.offers if p.pool.name == str(name)), None) if name else None


def pod_requests(spec: dict) -> dict:
    """resource -> GPUs one pod holds: the sum over its containers, or the largest init container if more."""
    regular: dict = {}
    init: dict = {}
    for (group, _), c in containers_of(spec):
        for name, value in gpu_resources(c, "limits", vendors=False).items():
            n = whole(value)
            if n is None:
                continue
            if group == "initContainers":
                init[name] = max(init.get(name, 0), n)
            else:
                regular[name] = regular.get(name, 0) + n
    return {k: max(regular.get(k, 0), init.get(k, 0)) for k in sorted({*regular, *init})}
