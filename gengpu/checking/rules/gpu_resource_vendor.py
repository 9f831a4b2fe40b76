from gengpu import catalog
from gengpu.checking.rules._pods import containers, gpu_resources
from gengpu.checking.rules.base import WORKLOAD, Hit, Rule


def check(subject, ctx=None):
    for path, c in containers(subject):
        for section in ("limits", "requests"):
            for name in gpu_resources(c, section):
                vendor = catalog.gpu_resource_vendor(name)
                if vendor:
                    yield Hit(path + ("resources", section, name),
                              f"{subject.label}: container {c.get('name', '?')} asks for {name}: {vendor['note']} "
                              f"({vendor['vendor']}); NVIDIA's device plugin does not advertise it", key=True)


RULE = Rule(
    id="gpu-resource-vendor",
    severity="info",
    summary="A GPU resource of another vendor or scheduler (HAMi, nos, AMD, Intel), recognised as such.",
    fix="Nothing to fix when that software runs in the cluster; otherwise ask for nvidia.com/gpu.",
    explanation="HAMi's nvidia.com/gpumem and nvidia.com/gpucores, nos' nvidia.com/gpu-10gb and other vendors' "
    "resources are real, but only the software that advertises them satisfies them. gengpu names the vendor instead "
    "of calling the name a typo, and still checks that quantities are whole and requests equal limits.",
    source="gengpu/data/resources.yaml",
    check=check,
    applies_to=WORKLOAD,
)
