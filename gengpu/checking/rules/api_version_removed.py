import functools

from gengpu.checking.rules.base import OBJECT, Hit, Rule
from gengpu.catalog import version_tuple
from gengpu.checking.objects import DEFAULT_KUBERNETES_VERSION
from gengpu.checking.subjects import entry, group_version

# Kubernetes' own API groups (the schema files name a group by its first label)
BUILTIN = ("", "apps", "batch", "policy", "extensions", "autoscaling", "networking.k8s.io", "rbac.authorization.k8s.io",
           "storage.k8s.io", "scheduling.k8s.io", "node.k8s.io", "coordination.k8s.io", "discovery.k8s.io",
           "resource.k8s.io", "apiextensions.k8s.io", "admissionregistration.k8s.io", "certificates.k8s.io",
           "flowcontrol.apiserver.k8s.io", "events.k8s.io")


@functools.cache
def served(kubernetes: str) -> dict[str, list[str]]:
    """Kind (lower case) -> the apiVersions a Kubernetes release serves it in, from its schemas."""
    from gengpu.checking.objects import native_dir

    full = {g.split(".")[0]: g for g in BUILTIN if g}
    out: dict[str, list[str]] = {}
    for path in sorted(native_dir(kubernetes).glob("*.json")):
        parts = path.stem.split("-")
        if len(parts) == 2:
            out.setdefault(parts[0], []).append(parts[1])
        elif len(parts) == 3 and parts[1] in full:
            out.setdefault(parts[0], []).append(f"{full[parts[1]]}/{parts[2]}")
    return out


def _priority(version: str) -> tuple:
    """Kubernetes' version priority: GA over beta over alpha, then by number (v1 > v1beta2 > v1alpha3)."""
    import re

    found = re.fullmatch(r"v(\d+)(?:(alpha|beta)(\d+))?", version)
    if not found:
        return (0, 0, 0)
    return (int(found.group(1)), {"alpha": 0, "beta": 1, None: 2}[found.group(2)], int(found.group(3) or 0))


def _not_served(subject) -> str | None:
    """A built-in kind in a Kubernetes group or version that does not serve it (a Job in apps/v1)."""
    group, version = group_version(subject.data)
    kind = str(subject.data.get("kind", ""))
    if group not in BUILTIN or not kind:
        return None
    kubernetes = subject.kubernetes_version or DEFAULT_KUBERNETES_VERSION
    try:
        from gengpu.checking.objects import native_dir, schema_name

        if (native_dir(kubernetes) / schema_name(group, version, kind)).is_file():
            return None  # served as written: the usual case, without listing every schema
        where = served(kubernetes).get(kind.lower(), [])
    except Exception:  # noqa: BLE001  (no schemas for that release: object-no-schema says so)
        return None
    api = f"{group}/{version}" if group else version
    if not where:
        return None
    if any(w.rpartition("/")[0] == group for w in where):
        # a version of its group the release does not serve at all (autoscaling/v2beta1 since 1.26: an HPA of an old
        # guide), not a kind the version lacks (kind-not-served says that)
        suffix = f"-{group.split('.')[0]}-{version}.json" if group else f"-{version}.json"
        if any(p.name.endswith(suffix) for p in native_dir(kubernetes).glob("*.json")):
            return None
        newer = _priority(version) > max(_priority(w.rpartition("/")[2]) for w in where)
        return (f"Kubernetes {kubernetes} does not serve {api}{' yet' if newer else ''}; it serves {kind} as "
                f"{' or '.join(where)}")
    return (f"{kind} is not served in {api}; Kubernetes {kubernetes} serves it as {' or '.join(where)}")


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
    elif (wrong := _not_served(subject)) and not ((found or {}).get("removed") or {}).get(version):
        yield Hit(("apiVersion",), f"{subject.label}: {wrong}")


RULE = Rule(
    id="api-version-removed",
    severity="error",
    summary="An object in an API version its API server does not serve: removed, or not served yet.",
    fix="Move the object to the version the message names (for Karpenter Provisioners, "
    "`gengpu import karpenter-provisioner` writes the node pool).",
    explanation="A removed version is refused outright ('no matches for kind ... in version ...'), and so is a "
    "built-in kind in a group that never served it (a Job in apps/v1): classic DRA "
    "(resource.k8s.io/v1alpha2) since Kubernetes 1.31 and its successor v1alpha3 since 1.34 (judged against the Kubernetes version being checked), Karpenter's v1alpha5 Provisioner and v1beta1 NodePool, and "
    "the classic-DRA claim parameters of NVIDIA's DRA driver, extensions/v1beta1 workloads (Kubernetes 1.16), "
    "batch/v1beta1 CronJobs and PodSecurityPolicies (1.25), autoscaling/v2beta1 and v2beta2 HorizontalPodAutoscalers "
    "(1.25, 1.26) and any other version the Kubernetes release checked does not serve, Flux's v2beta1 and v2beta2 HelmReleases (Flux 2.7, "
    "2.8). Examples and blog posts keep them alive long after.",
    source="gengpu/data/kinds.yaml (Kubernetes deprecated-API migration guide and 1.31 release notes; Karpenter v1 "
    "migration guide; NVIDIA DRA driver; Flux 2.7/2.8 changelogs); the Kubernetes schemas of the release checked",
    check=check,
    applies_to=OBJECT,
)
