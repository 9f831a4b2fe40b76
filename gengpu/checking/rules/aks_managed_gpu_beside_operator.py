from gengpu.checking.rules.base import Hit, Rule


def check(profile, ctx=None):
    if profile.aks_managed_gpu and profile.operator.enabled:
        yield Hit(("spec", "aks", "managedGpu"),
                  "spec.aks.managedGpu has AKS run the driver, NVIDIA's device plugin and dcgm-exporter on every GPU "
                  "node, and spec.operator.enabled puts the GPU Operator's on the same nodes")


RULE = Rule(
    id="aks-managed-gpu-beside-operator",
    severity="error",
    summary="AKS's managed GPU stack and the GPU Operator on the same nodes.",
    fix="Choose one stack: keep spec.aks.managedGpu and set spec.operator.enabled: false, or drop spec.aks.managedGpu "
    "and let the GPU Operator run the pools (AKS installs only the driver, or none with operator.driver: operator).",
    explanation="A managed GPU pool (az aks nodepool add --enable-managed-gpu=true) runs NVIDIA's device plugin and "
    "DCGM exporter as systemd services on the node. The GPU Operator's device plugin would register the same "
    "nvidia.com/gpu with kubelet, so which plugin owns the GPUs, and whose sharing or MIG config holds, becomes a "
    "race; its exporter doubles every GPU series. AKS's docs send operator users to the Driver-only or None install "
    "profiles, never to a managed pool.",
    source="MicrosoftDocs/azure-aks-docs articles/aks/aks-managed-gpu-nodes.md at fb060abe (install profiles, "
    "alternative install profiles); Azure/AgentBaker@06836ee2 parts/linux/cloud-init/artifacts/cse_config.sh",
    check=check,
)
