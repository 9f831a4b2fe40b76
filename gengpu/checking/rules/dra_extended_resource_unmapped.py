import difflib

from gengpu.checking.rules._extended import IMPLICIT, device_classes, mapped, requests
from gengpu.checking.rules.base import OVERLAY, WORKLOAD, Hit, Rule


def check(overlay, ctx=None):
    classes = device_classes(overlay)
    if not classes:
        return  # no DeviceClass in the files: the classes (and what they map) live elsewhere
    names = mapped(classes)
    for s in overlay.subjects:
        if s.kind != WORKLOAD:
            continue
        for path, resource in requests(s):
            if resource.startswith(IMPLICIT):
                wanted = resource[len(IMPLICIT):]
                close = difflib.get_close_matches(wanted, list(classes), n=1, cutoff=0.8)
                # only a near miss is told: a class of another name may come from a chart outside the files
                if wanted not in classes and close:
                    yield Hit(path, f"{s.label} asks for {resource}, but the DeviceClasses in these files are "
                              f"{', '.join(sorted(classes))}: no class {wanted}, so the pod stays Pending; did you "
                              f"mean {IMPLICIT}{close[0]}?", key=True, doc=s.doc)
                continue
            domain = resource.split("/", 1)[0]
            same = sorted(n for n in names if n.split("/", 1)[0] == domain)
            # a name of a domain the files map through DRA, which none of their classes maps (NVIDIA's own names are
            # also the device plugin's, which may serve them)
            if same and resource not in names and domain != "nvidia.com":
                yield Hit(path, f"{s.label} asks for {resource}, which no DeviceClass in these files maps ("
                          f"{'; '.join(f'{names[n]} maps {n}' for n in same)}): the scheduler finds no device for it "
                          "and the pod stays Pending", key=True, doc=s.doc)


RULE = Rule(
    id="dra-extended-resource-unmapped",
    severity="error",
    summary="A pod asks for a DRA extended resource that none of the DeviceClasses beside it provides.",
    fix="Ask for a name a DeviceClass maps (its spec.extendedResourceName), or for the class's implicit name "
    "deviceclass.resource.kubernetes.io/<class>; or set extendedResourceName on the class (for a chart, its value, "
    "such as the dra-example-driver's deviceClass.extendedResourceName).",
    explanation="With DRA extended resources (KEP-5004) a pod asks for devices the way it asks for a device plugin's: "
    "resources.limits with a name. The scheduler serves it from the DeviceClass whose extendedResourceName is that "
    "name, or from the class named after the prefix deviceclass.resource.kubernetes.io/, and creates the claim. A name "
    "no class maps and no device plugin advertises is never satisfied: the pod stays Pending (\"Unresolvable extended "
    "resource\"). gengpu tells it only where the files hold the DeviceClasses: a name in a domain they map through DRA "
    "(example.com/gpus beside a class for example.com/gpu), or an implicit name one typo away from a class. NVIDIA's "
    "names are left alone: the device plugin advertises them too.",
    source="k8s.io/api v0.36.4 resource/v1 DeviceClassSpec.extendedResourceName and ResourceDeviceClassPrefix; "
    "kubernetes/website dra-features.md (Extended resource allocation by DRA); kubernetes-sigs/dra-example-driver "
    "v0.4.0 demo/examples/extended-resource-request",
    check=check,
    applies_to=OVERLAY,
)
