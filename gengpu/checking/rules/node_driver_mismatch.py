from gengpu import catalog
from gengpu.checking.rules._live import at_pool
from gengpu.checking.rules.base import LIVE_NODE, Rule

FULL = "nvidia.com/cuda.driver-version.full"
OLD = ("nvidia.com/cuda.driver.major", "nvidia.com/cuda.driver.minor", "nvidia.com/cuda.driver.rev")


def driver_version(labels: dict) -> str | None:
    """The node's driver version as GPU Feature Discovery labels it (the new label, else the deprecated ones)."""
    if labels.get(FULL):
        return labels[FULL]
    parts = [labels.get(k) for k in OLD]
    return ".".join(p for p in parts if p) if parts[0] else None


def check(node, cluster):
    pool = node.pool
    found = driver_version(node.item.labels)
    if pool is None or found is None:
        return
    wanted = cluster.profile.operator.driver_version  # declared in the profile: that is the promise
    if wanted and catalog.version_tuple(found)[:len(catalog.version_tuple(wanted))] != catalog.version_tuple(wanted):
        yield at_pool(node, f"runs NVIDIA driver {found}, the profile installs {wanted}: the upgrade has not reached "
                      "it, or another owner installs the driver")
    if pool.cuda_version:
        floor = catalog.software()["cuda"].get(str(pool.cuda_version).split(".")[0])
        if floor and catalog.version_tuple(found) < catalog.version_tuple(floor):
            yield at_pool(node, f"runs NVIDIA driver {found}, below {floor}, the oldest that runs CUDA "
                          f"{pool.cuda_version} (the pool's cudaVersion)", "cudaVersion")


RULE = Rule(
    id="node-driver-mismatch",
    severity="error",
    summary="A node's NVIDIA driver (as GPU Feature Discovery labels it) is not the profile's, or is too old for "
    "the pool's CUDA version.",
    fix="Let the driver's owner finish the upgrade (the GPU Operator's upgrade controller labels each node's "
    "nvidia.com/gpu-driver-upgrade-state), or move the node to an image with the right driver.",
    explanation="GPU Feature Discovery labels every GPU node with the driver it runs "
    "(nvidia.com/cuda.driver-version.full). A node whose driver is not the one the profile pins still runs the "
    "old one (an upgrade stuck on a node whose GPU pods could not be evicted), or got its driver from another "
    "owner; a driver below the CUDA floor fails every workload built for that CUDA with 'CUDA driver version is "
    "insufficient for CUDA runtime version'.",
    source="NVIDIA/k8s-device-plugin v0.19.1 internal/lm/nvml.go (newVersionLabeler); CUDA minor-version "
    "compatibility (gengpu/data/software.yaml)",
    check=check,
    applies_to=LIVE_NODE,
)
