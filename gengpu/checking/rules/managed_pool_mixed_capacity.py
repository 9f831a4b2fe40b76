from gengpu.checking.rules.base import Hit, Rule, pool_path

# Platforms whose managed node pools gengpu creates with a script: one pool, one priority.
SCRIPTED = {"aks": "az aks nodepool add --priority Spot", "gke": "gcloud container node-pools create --spot"}


def check(profile, ctx=None):
    if profile.platform not in SCRIPTED:
        return
    for pool in profile.node_pools:
        if pool.provisioner == "managed" and set(pool.capacity_types) >= {"spot", "on-demand"}:
            yield Hit(pool_path(pool, "capacityTypes"),
                      f"nodePools[{pool.index}] ({pool.name}) is a managed pool with capacityTypes "
                      f"[{', '.join(pool.capacity_types)}], but a managed node pool is either Spot or regular "
                      f"({SCRIPTED[profile.platform]}): there would be no fallback to the other")


RULE = Rule(
    id="managed-pool-mixed-capacity",
    severity="error",
    summary="A managed AKS or GKE node pool asks for Spot and on-demand capacity at once.",
    fix="Split it into two pools, one with capacityTypes [spot] and one with [on-demand] (pods that tolerate the "
    "spot taint can use both), or use node auto-provisioning, which can fall back from Spot to on-demand.",
    explanation="An AKS node pool has one priority (Spot or Regular) and a GKE node pool is Spot or not, both fixed "
    "at creation. A profile pool that lists both capacity types cannot become one such pool: gengpu would create it "
    "Spot-only on AKS (no on-demand fallback when Spot capacity runs out) or on-demand-only on GKE.",
    source="MicrosoftDocs azure-aks-docs spot-node-pool.md; GKE 'Spot VMs' (node pools)",
    check=check,
)
