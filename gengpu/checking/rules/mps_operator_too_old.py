from gengpu import catalog
from gengpu.checking.rules.base import Hit, Rule


def check(profile, ctx=None):
    minimum = catalog.operator()["minFor"]["mps"]
    if not profile.operator.enabled:
        return
    if catalog.version_tuple(profile.operator.version) >= catalog.version_tuple(minimum):
        return
    for pool in profile.node_pools:
        if pool.sharing.mode == "mps":
            yield Hit(("spec", "operator", "version"),
                      f"spec.operator.version {profile.operator.version} cannot run MPS (pool {pool.name}); "
                      f"MPS needs {minimum} or newer")
            return


RULE = Rule(
    id="mps-operator-too-old",
    severity="error",
    summary="The GPU Operator version predates MPS support.",
    fix="Raise spec.operator.version to v24.3.0 or newer.",
    explanation="MPS sharing in the device plugin arrived with plugin v0.15.0, first shipped by GPU Operator v24.3.0. "
    "Older operators ignore the mps block and the pool is not shared.",
    source="NVIDIA/gpu-operator commit cb97f388c (first tag v24.3.0)",
    check=check,
)
