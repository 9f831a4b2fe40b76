import re

from gengpu import catalog, mig
from gengpu.checking.rules._pods import containers, gpu_resources
from gengpu.checking.targets import workloads_and_patches
from gengpu.checking.rules.base import WORKLOAD, Hit, Rule

_KNOWN = re.compile(r"^nvidia\.com/(gpu|gpu\.shared|mig-(?P<profile>.+))$")
# NVIDIA's sandbox device plugin (Kata, Confidential Containers, KubeVirt passthrough): nvidia.com/pgpu and
# nvidia.com/nvswitch by default, or a name per GPU model when P_GPU_ALIAS is empty (nvidia.com/GH100_H100L_94GB,
# KubeVirt's nvidia.com/GA102GL_A10); the vGPU device manager's types (nvidia.com/GRID_T4-16Q) are written alike
_SANDBOX = re.compile(r"^nvidia\.com/(pgpu|nvswitch|[A-Z0-9]+_[A-Za-z0-9_.-]+)$")


def check(subject, ctx=None):
    for path, c in containers(subject):
        for section in ("limits", "requests"):
            for name in gpu_resources(c, section, vendors=False):
                if catalog.gpu_resource_vendor(name) or catalog.removed_gpu_resource(name):
                    continue  # gpu-resource-vendor, gpu-resource-removed
                if _SANDBOX.match(name):
                    continue
                m = _KNOWN.match(name)
                bad = m is None or (m.group("profile") and mig.profile_name_problem(
                    re.sub(r"\.(me|gfx|me\.all)$", r"+\1", m.group("profile"))))
                if bad:
                    yield Hit(path + ("resources", section, name),
                              f"{subject.label}: container {c.get('name', '?')} asks for {name}, which no NVIDIA "
                              "device plugin advertises", key=True)


RULE = Rule(
    id="gpu-resource-name-unknown",
    severity="error",
    summary="A GPU resource name no NVIDIA device plugin advertises.",
    fix="Ask for nvidia.com/gpu, nvidia.com/gpu.shared (renameByDefault) or nvidia.com/mig-<profile> (mixed MIG).",
    explanation="A misspelt resource (nvidia.com/gpus, nvidia.com/GPU, nvidia.com/mig-1g5gb) matches no node, so "
    "the pod stays Pending with 'Insufficient' and no node ever fits it.",
    source="NVIDIA/k8s-device-plugin resource naming (nvidia.com/gpu, .shared, mig-<profile>); NVIDIA "
    "cloud-native-docs confidential-containers (nvidia.com/pgpu, the Kata sandbox device plugin's default, and "
    "model names with P_GPU_ALIAS=\"\")",
    check=check,
    applies_to=WORKLOAD,
    # a patch's container is judged as written too: a resource name or quantity is wrong whatever it patches
    roles=workloads_and_patches(),
)
