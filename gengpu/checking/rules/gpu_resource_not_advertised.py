from gengpu import catalog
from gengpu.checking.rules._pods import containers, gpu_resources
from gengpu.checking.rules.base import WORKLOAD, Hit, Rule


def check(subject, ctx=None):
    if ctx is None:
        return
    offered = {o.resource: p.pool.name for p in ctx.offers for o in p.offers}
    for path, c in containers(subject):
        for name in gpu_resources(c, "limits", vendors=False):
            if name not in offered and not catalog.gpu_resource_vendor(name) and not catalog.removed_gpu_resource(name):
                hint = ""
                if name.startswith("nvidia.com/mig-") and ctx.strategy != "mixed":
                    hint = f" (MIG strategy {ctx.strategy} advertises MIG devices as nvidia.com/gpu)"
                elif name == "nvidia.com/gpu.shared":
                    hint = " (only pools with renameByDefault: true advertise it)"
                elif name == "nvidia.com/gpu" and "nvidia.com/gpu.shared" in offered:
                    hint = " (pools with renameByDefault: true advertise nvidia.com/gpu.shared instead)"
                yield Hit(path + ("resources", "limits", name),
                          f"{subject.label}: container {c.get('name', '?')} asks for {name}, which no pool of "
                          f"{ctx.profile.name} advertises{hint}; pools offer {', '.join(sorted(offered))}", key=True)


RULE = Rule(
    id="gpu-resource-not-advertised",
    severity="error",
    summary="The workload asks for a GPU resource no pool of the cluster advertises.",
    fix="Ask for a resource a pool offers (see the pool's placement component), or change the pool's sharing.",
    explanation="Which resource a node advertises depends on sharing and MIG: nvidia.com/gpu.shared only with "
    "renameByDefault, nvidia.com/mig-<profile> only under the mixed strategy (single advertises nvidia.com/gpu). "
    "A pod asking for anything else stays Pending for ever.",
    source="NVIDIA/k8s-device-plugin README (sharing, MIG strategies); pain points TS-05, MIG-01",
    check=check,
    applies_to=WORKLOAD,
)
