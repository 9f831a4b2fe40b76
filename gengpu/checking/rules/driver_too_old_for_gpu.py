from gengpu import catalog
from gengpu.checking.rules.base import Hit, Rule


def check(profile, ctx=None):
    driver = profile.driver_version()
    if not driver:
        return
    where = ("spec", "operator", "driverVersion") if profile.operator.driver_version else ("spec", "operator", "version")
    for pool in profile.node_pools:
        for gpu_id in filter(None, set(pool.gpu_ids)):
            mig = catalog.gpus()[gpu_id].get("mig")
            if pool.sharing.mode == "mig" and mig and catalog.version_tuple(driver) < catalog.version_tuple(mig["minDriver"]):
                yield Hit(where, f"driver {driver} is older than {mig['minDriver']}, the first driver with MIG on "
                                 f"{gpu_id} (pool {pool.name})")
            minimum = catalog.gpus()[gpu_id].get("minDriver")
            if minimum and catalog.version_tuple(driver) < catalog.version_tuple(minimum):
                yield Hit(where, f"driver {driver} is older than {minimum}, the first driver for {gpu_id} "
                                 f"(pool {pool.name})")


RULE = Rule(
    id="driver-too-old-for-gpu",
    severity="error",
    summary="The nodes' driver is older than the GPU (or its MIG mode) needs.",
    fix="Raise spec.operator.version (its default driver) or spec.operator.driverVersion.",
    explanation="MIG needs R450 on A100, R460 on A30, R525 on H100, R550 on H200, R570 on B200/GB200; Blackwell "
    "GPUs need an R570+ driver at all. An older driver does not see the GPU or cannot enable MIG.",
    source="NVIDIA MIG User Guide 'Deployment Considerations'; GPU Operator platform support",
    check=check,
)
