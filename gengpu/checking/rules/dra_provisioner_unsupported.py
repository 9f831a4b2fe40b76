from gengpu import catalog
from gengpu.checking.rules.base import Hit, Rule, pool_path


def _karpenter_reason(profile, pool) -> str | None:
    """Why the cluster's Karpenter does not provision for this DRA pool, or None when it does: spec.eks.karpenter
    says a version with DRA, turned on, on a Kubernetes that has it (the AWS provider only)."""
    table = catalog.software()["draDriver"]["karpenterDRA"]
    said = profile.eks.get("karpenter") or {}
    if profile.platform not in table["platforms"] or not said.get("dra"):
        return catalog.software()["draDriver"]["unsupportedProvisioners"]["karpenter"]
    version, kube = str(said.get("version") or ""), profile.kubernetes_version
    if not version:
        return (f"spec.eks.karpenter says DRA is on but not the version: Karpenter provisions for DRA pools from "
                f"{table['minVersion']}; give spec.eks.karpenter.version")
    if catalog.version_tuple(version) < catalog.version_tuple(table["minVersion"]):
        return (f"Karpenter {version} does not provision for pods with ResourceClaims (the AWS provider does from "
                f"{table['minVersion']}, behind settings.enableDRA)")
    mode = pool.sharing.mode
    if mode in (table.get("unsupportedModes") or {}):
        return table["unsupportedModes"][mode]
    need = table["minKubernetesFor"].get(mode, table["minKubernetes"])
    if catalog.version_tuple(kube) < catalog.version_tuple(need):
        what = f"DRA {mode}" if mode in table["minKubernetesFor"] else "DRA"
        return f"Karpenter's {what} needs Kubernetes {need} or later, the profile has {kube}"
    return None


def check(profile, ctx=None):
    reasons = catalog.software()["draDriver"]["unsupportedProvisioners"]
    for pool in profile.dra_pools:
        reason = _karpenter_reason(profile, pool) if pool.provisioner == "karpenter" else reasons.get(pool.provisioner)
        if reason:
            yield Hit(pool_path(pool, "provisioner"), f"nodePools[{pool.index}] uses DRA with provisioner "
                      f"{pool.provisioner}: {' '.join(reason.split())}")


RULE = Rule(
    id="dra-provisioner-unsupported",
    severity="error",
    summary="A DRA pool whose provisioner does not launch nodes for pods with ResourceClaims.",
    fix="Use provisioner: managed for DRA pools (a node pool or node group scaled by the cluster autoscaler), or "
    "allocation: device-plugin to keep this provisioner. On EKS, Karpenter v1.15+ provisions for DRA pools with its "
    "chart's settings.enableDRA (alpha) on Kubernetes 1.34+, for whole GPUs (not MIG): turn it on and say so in "
    "spec.eks.karpenter (version, dra: true).",
    explanation="An autoscaler must simulate a pending pod's claims to pick a node for it. Karpenter ignores pods' DRA "
    "requests by default (IGNORE_DRA_REQUESTS); the AWS provider v1.15 launches nodes for them only with its alpha "
    "DRANVIDIAGPU gate, which settings.enableDRA turns on, on Kubernetes 1.34+, simulating one device per physical "
    "GPU: claims that take a whole GPU (gengpu's time-slicing and MPS claims do, with the sharing in their config) "
    "launch nodes, claims for MIG devices never match. The Azure provider, and GKE and AKS node auto-provisioning, do not provision for them: the workloads "
    "stay Pending while the pool has no node. A managed node pool scaled by the cluster autoscaler works.",
    source="kubernetes-sigs/karpenter v1.15.0 pkg/operator/options/options.go (IgnoreDRARequests, default true); "
    "aws/karpenter-provider-aws v1.15.2 charts/karpenter/values.yaml (settings.enableDRA) and "
    "pkg/cloudprovider/dynamicresources.go; karpenter.sh docs 'Utilizing GPUs and EFAs with Dynamic Resource "
    "Allocation'; GKE docs 'Prepare GKE infrastructure for DRA workloads'",
    check=check,
)
