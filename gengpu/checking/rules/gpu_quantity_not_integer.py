from gengpu.checking.rules._pods import containers, gpu_resources, whole
from gengpu.checking.targets import workloads_and_patches
from gengpu.checking.rules.base import WORKLOAD, Hit, Rule


def check(subject, ctx=None):
    for path, c in containers(subject):
        for section in ("limits", "requests"):
            for name, value in gpu_resources(c, section).items():
                count = whole(value)
                if count is None or count < 0:
                    yield Hit(path + ("resources", section, name),
                              f"{subject.label}: container {c.get('name', '?')} asks for {value!r} {name}; GPUs "
                              "come in whole numbers" + (", 0 or more" if count is not None else ""))


RULE = Rule(
    id="gpu-quantity-not-integer",
    severity="error",
    summary="A fractional or negative GPU quantity.",
    fix="Ask for a whole number; share a GPU with time-slicing, MPS or MIG instead of fractions.",
    explanation="Extended resources are integers: 0.5 or 500m of nvidia.com/gpu is rejected. Fractions of a GPU "
    "come from sharing (a replica is one whole nvidia.com/gpu) or MIG instances. A negative quantity is refused "
    "too ('must be greater than or equal to 0').",
    source="Kubernetes docs 'Resource Management for Pods and Containers' (extended resources)",
    check=check,
    applies_to=WORKLOAD,
    # a patch's container is judged as written too: a resource name or quantity is wrong whatever it patches
    roles=workloads_and_patches(),
)
