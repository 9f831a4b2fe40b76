from gengpu import catalog
from gengpu.checking.rules._pods import containers, gpu_resources
from gengpu.checking.targets import workloads_and_patches
from gengpu.checking.rules.base import WORKLOAD, Hit, Rule


def check(subject, ctx=None):
    for path, c in containers(subject):
        for section in ("limits", "requests"):
            for name in gpu_resources(c, section):
                removed = catalog.removed_gpu_resource(name)
                if removed:
                    yield Hit(path + ("resources", section, name),
                              f"{subject.label}: container {c.get('name', '?')} asks for {name}, {removed['why']}; "
                              f"{removed['fix']}", key=True)


RULE = Rule(
    id="gpu-resource-removed",
    severity="error",
    summary="A GPU resource Kubernetes no longer has.",
    fix="Ask for nvidia.com/gpu and run NVIDIA's device plugin.",
    explanation="alpha.kubernetes.io/nvidia-gpu was the kubelet's built-in GPU support until Kubernetes 1.10; it "
    "was removed in 1.11. No node advertises it any more, so a pod that asks for it stays Pending with "
    "'Insufficient alpha.kubernetes.io/nvidia-gpu' (or, with nodeName, fails with OutOfalpha.kubernetes.io/...).",
    source="kubernetes/kubernetes#61498 (release note); gengpu/data/resources.yaml",
    check=check,
    applies_to=WORKLOAD,
    # a patch's container is judged as written too: a resource name or quantity is wrong whatever it patches
    roles=workloads_and_patches(),
)
