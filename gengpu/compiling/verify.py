"""A verification workload per pool: fill one node's GPU slices with CUDA vector-add pods.

All replicas must run at once on one node; if some stay Pending, the pool does
not share the way its profile says.
"""

from __future__ import annotations

from gengpu.cluster import gpu_counts, mig_layout, mig_per_node
from gengpu.compiling import dra
from gengpu.compiling.placement import component_names, gpu_count, node_selector, tolerations
from gengpu.model import NodePool, Profile

NAMESPACE = "gengpu-verify"


def slices_per_node(profile: Profile, pool: NodePool) -> int:
    gpus = min(gpu_counts(profile, pool) or [1])
    s = pool.sharing
    if pool.dra and s.mode in ("time-slicing", "mps"):
        return gpus  # one pod per GPU; its containers share the GPU's one claim
    if s.mode in ("time-slicing", "mps"):
        return gpus * s.replicas
    if s.mode == "mig":
        layout = mig_layout(pool)
        if s.mig.strategy == "single":
            return gpus * sum(layout.values()) * s.mig_replicas
        devices, _ = mig_per_node(pool, gpus)  # (the component's resource: the layout's first profile)
        return next(iter(devices.values()), gpus) * s.mig_replicas
    return gpus


def namespace() -> dict:
    """Verification pods need no privilege: their namespace enforces Pod Security 'restricted'."""
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE, "labels": {
        "pod-security.kubernetes.io/enforce": "restricted", "pod-security.kubernetes.io/enforce-version": "latest"}}}


def files(profile: Profile, pool: NodePool) -> dict[str, dict]:
    names = component_names(profile, pool)
    if not names:
        return {}  # the pool advertises nothing gengpu knows (a MIG layout of an unknown GPU): nothing to verify
    component, resource = names[0]
    name = f"verify-{pool.name}"
    if pool.dra:
        # One claim per pod from the component's template; with sharing, several containers use it at once.
        claims = {"claims": [{"name": dra.CLAIM}]}
        gpu_limit: dict = {}
        sharers = pool.sharing.replicas if pool.sharing.mode in ("time-slicing", "mps") else 1
    else:
        claims, gpu_limit, sharers = {}, {resource: gpu_count(profile, pool)}, 1
    container = {
        "name": "vectoradd",
        "image": profile.verify_image,
        "command": ["/bin/bash", "-c", "--"],
        "args": ["while true; do /cuda-samples/vectorAdd; sleep 10; done"],
        "resources": {"requests": {"cpu": "50m", "memory": "64Mi"},
                      "limits": {"cpu": "500m", "memory": "256Mi", **gpu_limit}, **claims},
        "securityContext": {"allowPrivilegeEscalation": False, "readOnlyRootFilesystem": True,
                            "capabilities": {"drop": ["ALL"]}},
    }
    containers = [container] if sharers == 1 else \
        [{**container, "name": f"vectoradd-{i}"} for i in range(sharers)]
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": NAMESPACE, "labels": {"app": name}},
        "spec": {
            "replicas": slices_per_node(profile, pool),
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {
                    # What the component adds, written out too: the rules read this file as it is.
                    "nodeSelector": node_selector(profile, pool, resource),
                    **({"tolerations": tolerated} if (tolerated := tolerations(profile, pool)) else {}),
                    **({"resourceClaims": [{"name": dra.CLAIM, "resourceClaimTemplateName": component}]}
                       if pool.dra else {}),
                    # The NVIDIA container toolkit opens the GPU device nodes to the container's user.
                    "securityContext": {"runAsNonRoot": True, "runAsUser": 65534, "runAsGroup": 65534,
                                        "seccompProfile": {"type": "RuntimeDefault"}},
                    "containers": containers,
                },
            },
        },
    }
    kustomization = {
        "apiVersion": "kustomize.config.k8s.io/v1beta1",
        "kind": "Kustomization",
        # The component's ResourceClaimTemplate (DRA pools) must sit in the pods' namespace.
        "namespace": NAMESPACE,
        "resources": ["namespace.yaml", "deployment.yaml"],
        "components": [f"../../components/{component}"],
    }
    return {f"verify/{pool.name}/kustomization.yaml": kustomization, f"verify/{pool.name}/deployment.yaml": deployment,
            f"verify/{pool.name}/namespace.yaml": namespace()}
