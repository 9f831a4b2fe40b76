from gengpu.catalog import software, version_tuple
from gengpu.checking.objects import DEFAULT_KUBERNETES_VERSION
from gengpu.checking.podspecs import text
from gengpu.checking.rules._extended import IMPLICIT, device_classes, mapped, requests
from gengpu.checking.rules.base import OVERLAY, WORKLOAD, Hit, Rule


def _off(kubernetes: str) -> bool:
    gate = software()["kubernetesGates"]["DRAExtendedResource"]
    return version_tuple(gate["alpha"]) <= version_tuple(kubernetes) < version_tuple(gate["onByDefault"])


def check(overlay, ctx=None):
    on = software()["kubernetesGates"]["DRAExtendedResource"]["onByDefault"]
    classes = device_classes(overlay)
    names = mapped(classes)
    versions = {id(s.doc): s.kubernetes_version for s in overlay.subjects if s.kubernetes_version}  # (objects')
    for doc in overlay.docs:
        data = doc.data if isinstance(doc.data, dict) else {}
        kubernetes = versions.get(id(doc)) or DEFAULT_KUBERNETES_VERSION
        name = text(data, "metadata", "name")
        if name in classes and classes[name] is data and text(data, "spec", "extendedResourceName") is not None \
                and _off(kubernetes):
            yield Hit(("spec", "extendedResourceName"), f"DeviceClass {name} maps "
                      f"{data['spec']['extendedResourceName']}, but on Kubernetes {kubernetes} DRAExtendedResource "
                      f"is alpha and off unless turned on: the API server accepts the field and ignores it, and pods "
                      f"that ask for the name stay Pending (on by default from {on})", key=True, doc=doc)
    for s in overlay.subjects:
        kubernetes = versions.get(id(s.doc)) or DEFAULT_KUBERNETES_VERSION
        if s.kind != WORKLOAD or not _off(kubernetes):
            continue
        for path, resource in requests(s):
            if resource.startswith(IMPLICIT) and resource not in names:
                yield Hit(path, f"{s.label} asks for {resource}, a DeviceClass's implicit name, but on Kubernetes "
                          f"{kubernetes} DRAExtendedResource is alpha and off unless turned on: nothing serves the "
                          f"request and the pod stays Pending (on by default from {on})", key=True, doc=s.doc)


RULE = Rule(
    id="dra-extended-resource-gate-off",
    severity="warning",
    summary="DRA extended resources on a Kubernetes release where their feature gate is off by default (1.34, 1.35).",
    fix="Turn DRAExtendedResource on in kube-apiserver, kube-scheduler, kube-controller-manager and the kubelet, or "
    "run Kubernetes 1.36 or later; until then ask for devices with a ResourceClaim (resources.claims).",
    explanation="KEP-5004 lets a pod ask for DRA devices by an extended resource name: a DeviceClass's "
    "extendedResourceName, or deviceclass.resource.kubernetes.io/<class>. The DRAExtendedResource gate is alpha in "
    "1.34 and 1.35 and on by default from 1.36 (beta). With it off the API server accepts extendedResourceName and "
    "ignores it, and the scheduler does not map the request to devices, so the pod stays Pending. A warning: a "
    "cluster may have turned the alpha gate on, and gengpu cannot see its flags. NVIDIA's DRA driver chart sets "
    "extendedResourceName nvidia.com/gpu on its gpu.nvidia.com class, and its demos ask for the gate.",
    source="k8s.io/kubernetes pkg/features/kube_features.go v1.34.2 (Alpha, false) and v1.36.0 (Beta, true); "
    "kubernetes/enhancements keps/sig-scheduling/5004-dra-extended-resource; kubernetes-sigs/dra-driver-nvidia-gpu "
    "v0.4.1 demo/specs/extended-resources",
    check=check,
    applies_to=OVERLAY,
)
