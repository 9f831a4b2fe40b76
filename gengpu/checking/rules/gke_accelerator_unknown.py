from gengpu import catalog
from gengpu.checking.podspecs import dig
from gengpu.checking.rules.base import GKE_NODEPOOL, Hit, Rule


def check(subject, ctx=None):
    offered = {str(name): gpu for gpu, name in catalog.clouds()["gke"]["accelerators"].items()}
    accelerators = dig(subject.data, "spec", "nodeConfig", "guestAccelerator")
    for i, accelerator in enumerate(accelerators if isinstance(accelerators, list) else []):
        kind = accelerator.get("type") if isinstance(accelerator, dict) else None
        if isinstance(kind, str) and kind not in offered:
            yield Hit(("spec", "nodeConfig", "guestAccelerator", i, "type"),
                      f"{subject.label}: accelerator {kind!r} is not a GPU type GKE offers "
                      f"({', '.join(sorted(offered))})")


RULE = Rule(
    id="gke-accelerator-unknown",
    severity="error",
    summary="A Config Connector node pool asking for a GPU type GKE does not offer.",
    fix="Use one of the accelerator types the message lists (`gcloud compute accelerator-types list`); "
    "`gengpu catalog gpus` shows which machine types carry each.",
    explanation="Config Connector passes guestAccelerator.type to the GKE API as it is; a misspelt or retired type "
    "(nvidia-tesla-k80 is gone) fails the node pool's creation, reported only in the object's status.",
    source="GKE docs 'GPUs on GKE' accelerator types (gengpu/data/clouds.yaml gke.accelerators); "
    "GoogleCloudPlatform/k8s-config-connector ContainerNodePool CRD (spec.nodeConfig.guestAccelerator)",
    check=check,
    applies_to=GKE_NODEPOOL,
)
