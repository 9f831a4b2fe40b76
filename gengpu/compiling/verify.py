"""A verification workload per pool: fill one node's GPU slices with CUDA vector-add pods.

All replicas must run at once on one node; if some stay Pending, the pool does
not share the way its profile says.
"""

from __future__ import annotations

from gengpu.cluster import mig_layout
from gengpu.compiling import nodes
from gengpu.compiling.placement import component_names
from gengpu.model import NodePool, Profile

IMAGE = "nvcr.io/nvidia/k8s/cuda-sample:vectoradd-cuda12.5.0"


def slices_per_node(profile: Profile, pool: NodePool) -> int:
    gpus = min(nodes.gpu_counts(profile, pool) or [1])
    s = pool.sharing
    if s.mode in ("time-slicing", "mps"):
        return gpus * s.replicas
    if s.mode == "mig":
        layout = mig_layout(pool)
        return gpus * (sum(layout.values()) if s.mig.strategy == "single" else next(iter(layout.values()), 1))
    return gpus


def files(profile: Profile, pool: NodePool) -> dict[str, dict]:
    component, _ = component_names(profile, pool)[0]
    name = f"verify-{pool.name}"
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "default", "labels": {"app": name}},
        "spec": {
            "replicas": slices_per_node(profile, pool),
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{
                    "name": "vectoradd",
                    "image": IMAGE,
                    "command": ["/bin/bash", "-c", "--"],
                    "args": ["while true; do /cuda-samples/vectorAdd; sleep 10; done"],
                }]},
            },
        },
    }
    kustomization = {
        "apiVersion": "kustomize.config.k8s.io/v1beta1",
        "kind": "Kustomization",
        "resources": ["deployment.yaml"],
        "components": [f"../../components/{component}"],
    }
    return {f"verify/{pool.name}/kustomization.yaml": kustomization, f"verify/{pool.name}/deployment.yaml": deployment}
