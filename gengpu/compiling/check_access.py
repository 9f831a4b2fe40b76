"""The read-only identity `gengpu snapshot` and `gengpu check --context` need inside a cluster, for a CronJob or a
CI job: a ServiceAccount, a ClusterRole that may list exactly the kinds a snapshot holds (never Secrets, never a
write, no watch: gengpu lists), and a Role to get the two ConfigMaps gengpu generates in the operator's namespace."""

from __future__ import annotations

from gengpu.compiling.sharing import DEVICE_PLUGIN_CONFIGMAP, MIG_PARTED_CONFIGMAP
from gengpu.model import Profile

NAME = "gengpu-check"
READ = ["list"]  # gengpu/live/kube.py lists (paged); it never gets one by name or watches
# what gengpu/live/kube.py captures, cluster-wide
CLUSTER_RULES = [
    {"apiGroups": [""], "resources": ["nodes", "pods", "events"], "verbs": READ},
    {"apiGroups": ["apps"], "resources": ["daemonsets"], "verbs": READ},
    {"apiGroups": ["nvidia.com"], "resources": ["clusterpolicies", "nvidiadrivers", "gpuclusters"], "verbs": READ},
    {"apiGroups": ["resource.k8s.io"], "resources": ["resourceslices", "deviceclasses", "resourceclaims",
                                                     "devicetaintrules"], "verbs": READ},
    {"apiGroups": ["resource.nvidia.com"], "resources": ["computedomains"], "verbs": READ},
    {"apiGroups": ["karpenter.sh"], "resources": ["nodepools", "nodeclaims"], "verbs": READ},
]


def objects(profile: Profile) -> list[dict]:
    ns = profile.operator.namespace
    subject = [{"kind": "ServiceAccount", "name": NAME, "namespace": ns}]
    return [
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": NAME, "namespace": ns}},
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": NAME},
         "rules": CLUSTER_RULES},
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding", "metadata": {"name": NAME},
         "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": NAME},
         "subjects": subject},
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": {"name": NAME, "namespace": ns},
         "rules": [{"apiGroups": [""], "resources": ["configmaps"],
                    "resourceNames": [DEVICE_PLUGIN_CONFIGMAP, MIG_PARTED_CONFIGMAP], "verbs": ["get"]}]},
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": {"name": NAME, "namespace": ns},
         "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": NAME}, "subjects": subject},
    ]
