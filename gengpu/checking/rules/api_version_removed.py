from gengpu.checking.rules.base import OBJECT, Hit, Rule
from gengpu.catalog import version_tuple
from gengpu.checking.objects import DEFAULT_KUBERNETES_VERSION
from gengpu.checking.subjects import entry, group_version


def check(subject, ctx=None):
    found = entry(subject.data)
    _, version = group_version(subject.data)
    why = ((found or {}).get("removed") or {}).get(version)
    if isinstance(why, dict):  # removed in a Kubernetes release: judged against the version being checked
        kubernetes = subject.kubernetes_version or DEFAULT_KUBERNETES_VERSION
        why = why["why"] + f" (checked for Kubernetes {kubernetes})" \
            if version_tuple(kubernetes) >= version_tuple(why["since"]) else None
    if why:
        yield Hit(("apiVersion",), f"{subject.label}: {why}")


RULE = Rule(
    id="api-version-removed",
    severity="error",
    summary="An object in an API version its API server no longer serves.",
    fix="Move the object to the version the message names (for Karpenter Provisioners, "
    "`gengpu import karpenter-provisioner` writes the node pool).",
    explanation="A removed version is refused outright ('no matches for kind ... in version ...'): classic DRA "
    "(resource.k8s.io/v1alpha2) since Kubernetes 1.31 and its successor v1alpha3 since 1.34 (judged against the Kubernetes version being checked), Karpenter's v1alpha5 Provisioner and v1beta1 NodePool, and "
    "the classic-DRA claim parameters of NVIDIA's DRA driver. Examples and blog posts keep them alive long after.",
    source="gengpu/data/kinds.yaml (Kubernetes 1.31 release notes; Karpenter v1 migration guide; NVIDIA DRA driver)",
    check=check,
    applies_to=OBJECT,
)
