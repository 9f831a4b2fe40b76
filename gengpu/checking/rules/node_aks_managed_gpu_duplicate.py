from gengpu.checking.rules._live import at_pool
from gengpu.checking.rules.base import LIVE_NODE, Rule

# AKS's managed GPU stack (preview) labels its nodes so its DCGM exporter (port 19400) can be scraped
# (Azure/AgentBaker parts/linux/cloud-init/artifacts/cse_config.sh at 06836ee2)
AKS_MANAGED = ("kubernetes.azure.com/dcgm-exporter", "enabled")
# the GPU Operator's deploy labels for the operands the managed stack also runs
OPERANDS = {"nvidia.com/gpu.deploy.device-plugin": "device plugin",
            "nvidia.com/gpu.deploy.dcgm-exporter": "dcgm-exporter"}


def check(node, cluster):
    key, value = AKS_MANAGED
    if node.labels.get(key) != value:
        return
    both = [name for label, name in OPERANDS.items() if node.labels.get(label) == "true"]
    if both:
        yield at_pool(node, f"AKS's managed GPU stack runs here ({key}={value}: its device plugin and DCGM exporter "
                      f"are systemd services on the node), and so does the GPU Operator's {' and '.join(both)}: two "
                      "stacks manage the same GPUs")


RULE = Rule(
    id="node-aks-managed-gpu-duplicate",
    severity="error",
    summary="An AKS node with the managed GPU experience also runs the GPU Operator's device plugin or exporter.",
    fix="Keep one stack per node pool: create the pool with --enable-managed-gpu=false (and --gpu-driver None when "
    "the operator installs the driver) for the GPU Operator, or keep the operator's device plugin and exporter off "
    "it (node labels nvidia.com/gpu.deploy.device-plugin and nvidia.com/gpu.deploy.dcgm-exporter: \"false\").",
    explanation="A node pool created with --enable-managed-gpu=true (gpuProfile.nvidia.managementMode: Managed, "
    "preview) gets NVIDIA's driver, device plugin, DCGM and DCGM exporter from AKS as systemd services, and the "
    "label kubernetes.azure.com/dcgm-exporter=enabled. The GPU Operator labels every GPU node for its own device "
    "plugin and exporter DaemonSets. Two device plugins register nvidia.com/gpu with the kubelet for the same GPUs, "
    "each with its own sharing and MIG settings, so what the node advertises depends on which registered last; "
    "two exporters double every GPU series. AKS's docs point operator users to the Driver-only or None profile, and "
    "its best practices warn against running a second device plugin or DCGM exporter.",
    source="MicrosoftDocs/azure-aks-docs@fb060abe articles/aks/aks-managed-gpu-nodes.md (install profiles), "
    "best-practices-ml-ops.md; Azure/AgentBaker@06836ee2 parts/linux/cloud-init/artifacts/cse_config.sh (systemd "
    "services, label, port 19400); NVIDIA/gpu-operator v26.7.0 controllers/state_manager.go (deploy labels)",
    check=check,
    applies_to=LIVE_NODE,
)
