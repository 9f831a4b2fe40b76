from gengpu import catalog
from gengpu.checking.rules.base import Hit, Rule, pool_path


def check(profile, ctx=None):
    driver = profile.driver_version()
    floors = catalog.software()["cuda"]
    for pool in profile.node_pools:
        if not pool.cuda_version:
            continue
        major = pool.cuda_version.split(".")[0]
        floor = floors.get(major)
        if floor is None:
            yield Hit(pool_path(pool, "cudaVersion"), f"nodePools[{pool.index}].cudaVersion {pool.cuda_version}: "
                      f"gengpu knows CUDA {', '.join(sorted(floors))} only")
        elif driver and catalog.version_tuple(driver) < catalog.version_tuple(floor):
            yield Hit(pool_path(pool, "cudaVersion"),
                      f"nodePools[{pool.index}].cudaVersion {pool.cuda_version} needs driver {floor} or newer; "
                      f"the nodes run {driver}")


RULE = Rule(
    id="cuda-needs-newer-driver",
    severity="error",
    summary="The pool's CUDA version needs a newer driver than its nodes run.",
    fix="Raise the driver (spec.operator.version or spec.operator.driverVersion), or build the workloads for an "
    "older CUDA.",
    explanation="Under CUDA minor-version compatibility, CUDA 11.x needs driver 450.80.02 or newer, 12.x needs "
    "525.60.13, 13.x needs 580.65.06. An older driver fails with 'CUDA driver version is insufficient for CUDA "
    "runtime version'.",
    source="docs.nvidia.com/deploy/cuda-compatibility (Minor Version Compatibility)",
    check=check,
)
