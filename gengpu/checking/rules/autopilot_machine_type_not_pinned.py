from gengpu import catalog
from gengpu.checking.rules.base import Hit, Rule, pool_path


def check(profile, ctx=None):
    if profile.platform != "gke-autopilot":
        return
    machines = catalog.clouds()["gke"]["machineTypes"]

    def shape(name):
        spec = machines.get(name) or {}
        gpu = catalog.resolve_gpu(spec.get("gpu", "")) if spec.get("gpu") else None
        return (spec.get("accelerator") or (catalog.gke_accelerator(gpu) if gpu else None), spec.get("gpus"))

    def series(name):
        return name.rsplit("-", 1)[0]

    for pool in profile.node_pools:
        for i, name in enumerate(pool.instance_types):
            if name not in machines or shape(name)[0] is None:
                continue
            # same GPUs in another machine series (a3-edgegpu vs a3-highgpu); sizes of one series (g2-standard-8,
            # -16) differ only in CPU and memory, which Autopilot sizes from the pod's requests
            twins = sorted(m for m in machines if series(m) != series(name) and shape(m) == shape(name))
            if twins:
                accelerator, count = shape(name)
                yield Hit(pool_path(pool, "instanceTypes", i),
                          f"nodePools[{pool.index}].instanceTypes[{i}] is {name}, but Autopilot chooses the machine "
                          f"for {count} x {accelerator} itself, and {', '.join(twins)} has the same GPUs: pods "
                          "select only the accelerator and its count, so they may land on either")


RULE = Rule(
    id="autopilot-machine-type-not-pinned",
    severity="warning",
    summary="On Autopilot, the pool's machine type is one of several with the same accelerator and count.",
    fix="Accept either machine type, or pin it with a custom ComputeClass whose priorities name the machineType "
    "(GKE 'Deploy GPU workloads in Autopilot', a3-edgegpu example) and select that class in the workloads.",
    explanation="Autopilot has no node pools of yours: a GPU pod selects cloud.google.com/gke-accelerator and, with "
    "gengpu's placement, cloud.google.com/gke-accelerator-count, and Autopilot picks a machine with those GPUs. "
    "Where two machine types carry the same GPUs (a3-highgpu-8g and a3-edgegpu-8g: 8 x H100 80GB), the profile's "
    "instanceTypes cannot choose between them; gengpu does not generate the ComputeClass that could.",
    source="GKE 'Deploy GPU workloads in Autopilot' (accelerator and count selectors; ComputeClass for a machine "
    "type)",
    check=check,
)
