from gengpu import catalog
from gengpu.checking.rules.base import Hit, Rule, pool_path


def check(profile, ctx=None):
    first = catalog.software()["draDriver"]["minKubernetes"]
    if catalog.version_tuple(profile.kubernetes_version) >= catalog.version_tuple(first):
        return
    for pool in profile.dra_pools:
        yield Hit(pool_path(pool, "allocation"), f"nodePools[{pool.index}] uses DRA, but the cluster runs Kubernetes "
                  f"{profile.kubernetes_version}: resource.k8s.io/v1, the API gengpu's claims use, is served and on "
                  f"by default from {first}")


RULE = Rule(
    id="dra-kubernetes-too-old",
    severity="error",
    summary="A DRA pool on a Kubernetes version without the resource.k8s.io/v1 API.",
    fix="Set spec.kubernetesVersion to 1.34 or later (and upgrade the cluster), or use allocation: device-plugin.",
    explanation="Dynamic Resource Allocation went GA in Kubernetes 1.34: resource.k8s.io/v1 is served and the "
    "DynamicResourceAllocation gate is on by default. Before that the API is beta and off by default (1.32, 1.33) or "
    "alpha, so the ResourceClaimTemplates gengpu writes are refused and the DRA driver's chart finds no API to use.",
    source="kubernetes/website feature-gates/DynamicResourceAllocation.md; NVIDIA/k8s-dra-driver-gpu v25.12.0 "
    "templates/validation.yaml",
    check=check,
)
