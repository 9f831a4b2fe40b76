from gengpu.checking.rules.base import Hit, Rule, pool_path


def check(profile, ctx=None):
    for pool in profile.node_pools:
        if pool.kubelet and not (profile.platform == "eks" and pool.provisioner == "karpenter"):
            yield Hit(pool_path(pool, "kubelet"),
                      f"nodePools[{pool.index}].kubelet is set, but gengpu writes kubelet settings only into EKS "
                      f"Karpenter EC2NodeClasses; this {profile.platform} {pool.provisioner} pool does not get them",
                      key=True)


RULE = Rule(
    id="kubelet-not-applied",
    severity="warning",
    summary="kubelet settings on a pool whose nodes gengpu cannot configure them for.",
    fix="Set them where the platform takes them (the managed node group, `az aks nodepool add --kubelet-config`, "
    "`gcloud ... --system-config-from-file`), or remove the field.",
    explanation="spec.nodePools[].kubelet becomes the EC2NodeClass's spec.kubelet for EKS Karpenter pools. Other "
    "provisioners take kubelet settings through their own node pool settings, which gengpu does not write; leaving "
    "the field there would suggest nodes get settings (maxPods, reservations, eviction thresholds) they do not.",
    source="karpenter-provider-aws EC2NodeClass spec.kubelet; issue 11",
    check=check,
)
