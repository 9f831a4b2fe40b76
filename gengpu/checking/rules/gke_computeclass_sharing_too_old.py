from gengpu import catalog
from gengpu.checking.rules.base import Hit, Rule, pool_path


def check(profile, ctx=None):
    from gengpu.compiling.pool_scripts import gke_gpu_sharing

    since = catalog.clouds()["gke"]["gpuSharing"]["computeClassSince"]
    minor = ".".join(since.split(".")[:2])
    if profile.platform != "gke" or catalog.version_tuple(profile.kubernetes_version) >= catalog.version_tuple(minor):
        return
    for pool in profile.node_pools:
        if pool.provisioner == "node-auto-provisioning" and gke_gpu_sharing(profile, pool):
            yield Hit(pool_path(pool, "sharing", "mode"), f"nodePools[{pool.index}] shares its GPUs with GKE's own "
                      f"{pool.sharing.mode} through node auto-provisioning, whose ComputeClass field for it "
                      f"(priorities[].gpu.gpuSharing) GKE serves from {since}; the profile's kubernetesVersion is "
                      f"{profile.kubernetes_version}")


RULE = Rule(
    id="gke-computeclass-sharing-too-old",
    severity="error",
    summary="A node auto-provisioned GKE pool shares GPUs through a ComputeClass field its GKE version does not serve.",
    fix="Upgrade the cluster to GKE 1.35.2-gke.1485000 or later (kubernetesVersion 1.35+), or give the pool a node "
    "pool of its own (provisioner: managed) whose --accelerator flags set the sharing, or let the GPU Operator share "
    "the GPUs.",
    explanation="gengpu writes a node auto-provisioned pool as a ComputeClass; GKE's own time-sharing, MPS and MIG "
    "partition size go in its priorities[].gpu.gpuSharing, which GKE serves from 1.35.2-gke.1485000. An older "
    "cluster refuses the ComputeClass (unknown field), and no node is created for the pool. A 1.35 cluster before "
    "that patch refuses it too.",
    source="GKE ComputeClass reference (gpuSharing, GKE 1.35.2-gke.1485000 and later); gengpu/data/clouds.yaml "
    "gke.gpuSharing",
    check=check,
)
