import re

from gengpu.checking.rules.base import QUOTA, Hit, Rule
from gengpu.checking.podspecs import GPU_RESOURCE, dig

# HAMi enforces ResourceQuota itself on limits.<its resources> ("extended ResourceQuota"): with those beside, the
# limits. prefix is HAMi's and counts.
HAMI = re.compile(r"^limits\.nvidia\.com/(gpumem|gpumem-percentage|gpucores)$")


def check(subject, ctx=None):
    if subject.data.get("kind") != "ResourceQuota" or "/" in str(subject.data.get("apiVersion", "")):
        return
    hard = dig(subject.data, "spec", "hard")
    if not isinstance(hard, dict) or any(HAMI.match(str(k)) for k in hard):
        return
    for key in hard:
        name = str(key).removeprefix("limits.")
        if not str(key).startswith("requests.") and GPU_RESOURCE.match(name):
            yield Hit(("spec", "hard", key), f"{subject.label}: {key} is never counted: Kubernetes counts an extended "
                      f"resource in a quota only as requests.{name}", key=True)


RULE = Rule(
    id="quota-limits-prefix-not-counted",
    severity="warning",
    summary="A ResourceQuota caps a GPU resource under a name Kubernetes never counts (limits.nvidia.com/gpu, or "
    "nvidia.com/gpu without a prefix).",
    fix="Write requests.nvidia.com/gpu instead: for extended resources requests equal limits, so it caps the same "
    "thing.",
    explanation="Extended resources cannot be overcommitted, so Kubernetes quotas them by requests only: 'only quota "
    "items with prefix requests. is allowed' (Resource Quotas, 'Resource quota for extended resources'). The API "
    "server stores limits.nvidia.com/gpu or a bare nvidia.com/gpu, but the quota evaluator only counts names that "
    "start with requests. (isExtendedResourceNameForQuota): the namespace has no GPU cap at all. HAMi, which enforces limits.nvidia.com/gpu and its gpumem/gpucores "
    "quotas itself, is recognised and left alone.",
    source="kubernetes.io 'Resource Quotas' (extended resources); kubernetes/kubernetes pkg/quota/v1/evaluator/core/"
    "pods.go (isExtendedResourceNameForQuota); NVIDIA/k8s-device-plugin#211",
    check=check,
    applies_to=QUOTA,
)
