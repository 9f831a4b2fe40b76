"""The device-plugin config (api/config/v1) and the mig-parted config (api/spec/v1) of a profile."""

from __future__ import annotations

from gengpu.cluster import mig_layout, mig_resource, mig_strategy
from gengpu.model import NodePool, Profile

DEVICE_PLUGIN_CONFIGMAP = "gengpu-device-plugin-config"
MIG_PARTED_CONFIGMAP = "gengpu-mig-parted-config"
DEFAULT_KEY = "default"


def mig_pools(profile: Profile) -> list[NodePool]:
    return [p for p in profile.node_pools if p.sharing.mode == "mig"]


def device_plugin_config(profile: Profile, pool: NodePool | None) -> dict:
    """One config file; pool None gives the safe default: no sharing."""
    config = {"version": "v1", "flags": {"migStrategy": mig_strategy(profile)}}
    if pool is not None and pool.sharing.allocation_policy:
        # which replicas or MIG devices a pod gets: packed fills GPUs already in use (k8s-device-plugin v0.20.0
        # api/config/v1 flags.go PluginCommandLineFlags.SharedDevicesAllocationPolicy)
        config["flags"]["plugin"] = {"sharedDevicesAllocationPolicy": pool.sharing.allocation_policy}
    if pool is not None and pool.sharing.mig_replicas > 1:
        # MIG devices time-sliced: named as the strategy advertises them (k8s-device-plugin api/config/v1
        # replicas.go takes nvidia.com/mig-* resources; MPS refuses MIG devices, mps.go)
        replicas = pool.sharing.mig_replicas
        names = [mig_resource(p) for p in mig_layout(pool)] if pool.sharing.mig.strategy == "mixed" \
            else ["nvidia.com/gpu"]
        config["sharing"] = {"timeSlicing": {"renameByDefault": False, "failRequestsGreaterThanOne": False,
                                             "resources": [{"name": n, "replicas": replicas} for n in names]}}
        return config
    if pool is None or pool.sharing.mode not in ("time-slicing", "mps"):
        return config
    s = pool.sharing
    fail = s.fail_requests_greater_than_one
    if fail is None:
        fail = s.mode == "mps"  # the device plugin's own defaults
    block = {
        "renameByDefault": s.rename_by_default,
        "failRequestsGreaterThanOne": fail,
        "resources": [{"name": "nvidia.com/gpu", "replicas": s.replicas}],
    }
    config["sharing"] = {"timeSlicing" if s.mode == "time-slicing" else "mps": block}
    return config


def device_plugin_configs(profile: Profile) -> dict[str, dict]:
    """ConfigMap key -> config: the default first, then one key per pool (the node label value)."""
    configs = {DEFAULT_KEY: device_plugin_config(profile, None)}
    for pool in profile.node_pools:
        if not pool.dra:  # the device plugin does not run on DRA pools' nodes
            configs[pool.name] = device_plugin_config(profile, pool)
    return configs


def mig_parted_config(profile: Profile) -> dict:
    configs = {"all-disabled": [{"devices": "all", "mig-enabled": False}]}
    for pool in mig_pools(profile):
        if pool.sharing.mig and pool.sharing.mig.layouts:
            # per GPU: mig-parted's devices as indices (api/spec/v1 MigConfigSpec), a whole GPU with MIG disabled
            configs[pool.name] = [{"devices": list(gpus), "mig-enabled": False} if layout is None else
                                  {"devices": list(gpus), "mig-enabled": True, "mig-devices": dict(layout)}
                                  for gpus, layout in pool.sharing.mig.layouts]
        else:
            configs[pool.name] = [{"devices": "all", "mig-enabled": True, "mig-devices": mig_layout(pool)}]
    return {"version": "v1", "mig-configs": configs}
