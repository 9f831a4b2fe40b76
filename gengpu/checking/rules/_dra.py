"""Walk the opaque configs NVIDIA's DRA driver reads from ResourceClaims and ResourceClaimTemplates."""

from gengpu.checking.podspecs import dig

DRIVER = "gpu.nvidia.com"
KINDS = ("GpuConfig", "MigDeviceConfig")


def nvidia_configs(obj: dict):
    """(path to parameters, parameters) of every opaque config for NVIDIA's GPU driver."""
    devices = dig(obj, "spec", "spec", "devices") if obj.get("kind") == "ResourceClaimTemplate" else \
        dig(obj, "spec", "devices")
    base = ("spec", "spec", "devices") if obj.get("kind") == "ResourceClaimTemplate" else ("spec", "devices")
    configs = devices.get("config") if isinstance(devices, dict) else None
    for i, config in enumerate(configs if isinstance(configs, list) else []):
        opaque = config.get("opaque") if isinstance(config, dict) else None
        params = opaque.get("parameters") if isinstance(opaque, dict) else None
        if isinstance(params, dict) and opaque.get("driver") == DRIVER and params.get("kind") in KINDS:
            yield base + ("config", i, "opaque", "parameters"), params
