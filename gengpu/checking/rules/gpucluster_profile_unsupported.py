from gengpu import catalog
from gengpu.checking.rules.base import Hit, Rule, pool_path

MODEL = ("spec", "operator", "model")


def check(profile, ctx=None):
    if profile.operator.model != "gpucluster":
        return
    if not profile.operator.enabled:
        yield Hit(MODEL, "operator.model is gpucluster but operator.enabled is false: no GPU Operator runs to make "
                  "the GPUCluster")
        return
    table = catalog.operator()
    since = table["minFor"]["gpuCluster"]
    if catalog.version_tuple(profile.operator.version) < catalog.version_tuple(since):
        yield Hit(MODEL, f"operator.model is gpucluster, but GPU Operator {profile.operator.version} has no "
                  f"GPUCluster: it is new in {since}")
        return
    for pool in profile.node_pools:
        if not pool.dra:
            yield Hit(pool_path(pool, "name"), f"nodePools[{pool.index}] ({pool.name}) hands out GPUs through the "
                      "device plugin, which a GPUCluster does not run: its pods would never get a GPU")
    runs = (table["releases"].get(profile.operator.version) or {}).get("draDriver")
    if profile.dra_driver_version and runs and profile.dra_driver_version != runs:
        yield Hit(("spec", "draDriver", "version"), f"draDriver.version is {profile.dra_driver_version}, but the "
                  f"GPUCluster of GPU Operator {profile.operator.version} runs NVIDIA's DRA driver {runs} itself and "
                  "no separate release is installed")


RULE = Rule(
    id="gpucluster-profile-unsupported",
    severity="error",
    summary="A profile asks for the GPU Operator's GPUCluster where it cannot run its pools.",
    fix="Use GPU Operator v26.7.0 or later, give every pool allocation: dra, and leave draDriver.version unset (the "
    "operator release picks the DRA driver); or keep operator.model: clusterpolicy.",
    explanation="GPU Operator v26.7.0 adds GPUCluster (nvidia.com/v1alpha1, technology preview): set "
    "clusterPolicy.deployCR false and gpuCluster.deployCR true and the chart renders the singleton GPUCluster "
    "gpu-cluster, which runs NVIDIA's DRA driver, DCGM and dcgm-exporter in place of the ClusterPolicy. It runs no "
    "device plugin, MIG manager or time-slicing ConfigMap, so every GPU is handed out through DRA claims, and the "
    "DRA driver's image is the operator's (draDriver.version v0.5.0 in v26.7.0); NVIDIA says not to install a "
    "separate DRA driver release beside it. Older charts have no such values and install a ClusterPolicy.",
    source="NVIDIA/gpu-operator v26.7.0 (10ee5b36) deployments/gpu-operator/values.yaml (clusterPolicy, gpuCluster, "
    "draDriver), templates/gpucluster.yaml, validations.yaml; NVIDIA/cloud-native-docs gpu-operator/"
    "dra-intro-install.rst and release-notes.rst (26.7.0)",
    check=check,
)
