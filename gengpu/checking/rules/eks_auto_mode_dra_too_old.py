from gengpu import catalog
from gengpu.checking.rules._auto_mode import auto_pools, requires_auto
from gengpu.checking.rules.base import OBJECT, OVERLAY, Hit, Rule
from gengpu.checking.subjects import pod_specs


def check(overlay, ctx=None):
    first = catalog.software()["draDriver"]["eksAutoMode"]["minKubernetes"]
    pools = None
    for s in overlay.subjects:
        kube = s.kubernetes_version
        if s.kind != OBJECT or not isinstance(s.data, dict) or not kube or \
                catalog.version_tuple(kube) >= catalog.version_tuple(first):
            continue
        for path, spec in pod_specs(s.data):
            claims = [j for j, c in enumerate(spec.get("resourceClaims") or []) if isinstance(c, dict)]
            if not claims:
                continue
            pools = auto_pools(overlay, gpus=False) if pools is None else pools
            if requires_auto(spec, pools):
                yield Hit(path + ("resourceClaims", claims[0]), f"{s.label} claims devices through DRA and runs only "
                          f"on EKS Auto Mode nodes, which have no DRA driver before Kubernetes {first} (these files "
                          f"are checked for {kube}): its claims are never allocated and the pods stay Pending",
                          doc=s.doc)


RULE = Rule(
    id="eks-auto-mode-dra-too-old",
    severity="error",
    summary="A workload with DRA claims that can only run on EKS Auto Mode nodes, on a Kubernetes before 1.36.",
    fix="Upgrade the cluster to Kubernetes 1.36 or later, where Auto Mode runs NVIDIA's DRA driver, or ask for GPUs "
    "as nvidia.com/gpu (Auto Mode's device plugin); or run the workload on managed node groups, self-managed nodes or "
    "Karpenter nodes with NVIDIA's DRA driver installed. Check the Kubernetes version with --kubernetes-version or "
    "the profile's spec.kubernetesVersion.",
    explanation="EKS Auto Mode includes NVIDIA's DRA driver in the node runtime from Kubernetes 1.36; before that "
    "AWS documented DRA as not compatible with Auto Mode compute, and Auto Mode nodes run only NVIDIA's device plugin. "
    "With no driver publishing ResourceSlices on those nodes, the scheduler finds no device for the claim, and a pod "
    "bound to Auto Mode nodes (nodeSelector eks.amazonaws.com/compute-type: auto, or only Auto Mode NodePools by "
    "karpenter.sh/nodepool) waits forever.",
    source="EKS User Guide 'Manage hardware devices on Amazon EKS' (EKS Auto Mode: 'Requires Kubernetes version 1.36 "
    "or later'); awsdocs/amazon-eks-user-guide latest/ug/ml/device-management.adoc at cc9f9bc4 ('DRA is not "
    "currently compatible with Karpenter or EKS Auto Mode provisioned compute'); automode/associate-workload.adoc "
    "(4d52b4d0)",
    check=check,
    applies_to=OVERLAY,
)
