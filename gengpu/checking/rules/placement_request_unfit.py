from gengpu.checking.rules._placed import placed_pool, pod_requests
from gengpu.checking.rules._pods import gpu_resources, whole
from gengpu.checking.rules.base import WORKLOAD, Hit, Rule
from gengpu.checking.podspecs import containers_of


def check(subject, ctx=None):
    placed = placed_pool(subject, ctx)
    if placed is None:
        return
    pool = placed.pool.name
    offered = ", ".join(o.resource for o in placed.offers)
    elsewhere: dict[str, list] = {}  # resource -> every pool's offer of it
    for o in (o for p in ctx.offers for o in p.offers):
        elsewhere.setdefault(o.resource, []).append(o)
    for path, spec in subject.pods:
        for rel, c in containers_of(spec):
            for name, value in gpu_resources(c, "limits", vendors=False).items():
                offer = placed.offer(name)
                where = path + rel + ("resources", "limits", name)
                # no pool offers it, or none takes more than one: gpu-resource-not-advertised or
                # shared-gpu-request-over-one says so for the whole cluster
                if offer is None and name in elsewhere:
                    yield Hit(where, f"{subject.label}: container {c.get('name', '?')} asks for {name}, but it is "
                              f"placed on pool {pool}, which advertises {offered}", key=True)
                elif offer and offer.max_per_container == 1 and (whole(value) or 0) > 1 and \
                        any(o.max_per_container != 1 for o in elsewhere[name]):
                    yield Hit(where, f"{subject.label}: container {c.get('name', '?')} asks for {value} {name} on "
                              f"pool {pool}, whose plugin rejects more than 1 per container "
                              "(failRequestsGreaterThanOne)")
        for name, n in pod_requests(spec).items():
            offer = placed.offer(name)
            if offer and offer.per_node and n > offer.per_node:
                yield Hit(path, f"{subject.label}: one pod asks for {n} {name}, but a node of pool {pool} "
                          f"advertises at most {offer.per_node}; the pod can never be scheduled")


RULE = Rule(
    id="placement-request-unfit",
    severity="error",
    summary="A workload placed on a pool asks for GPUs that pool's nodes cannot give it.",
    fix="Ask for a resource the pool advertises, at most as many as one node has (see `gengpu catalog` and the "
    "pool's placement component), or place the workload on another pool.",
    explanation="A placement component pins a workload to one pool's nodes. If a pod asks for a resource those "
    "nodes do not advertise (a MIG profile the pool's layout lacks, nvidia.com/gpu on a renamed shared pool), for "
    "more than one node has (GPUs per node x replicas or MIG instances), or for more than one shared GPU where the "
    "plugin enforces failRequestsGreaterThanOne, it stays Pending or fails admission on the node. Checked with "
    "`gengpu validate --profile` on the rendered application.",
    source="Kubernetes extended resources (a pod's request must fit one node); NVIDIA/k8s-device-plugin "
    "internal/rm/rm.go (ValidateRequest)",
    check=check,
    applies_to=WORKLOAD,
)
