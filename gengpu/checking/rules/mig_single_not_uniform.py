from gengpu import mig
from gengpu.checking.rules.base import Hit, Rule, pool_path


def check(profile, ctx=None):
    for pool in profile.node_pools:
        m = pool.sharing.mig
        if pool.sharing.mode != "mig" or m is None or m.strategy != "single" or not pool.gpu_id or pool.dra:
            continue
        layout = m.layout or (mig.preset_layout(pool.gpu_id, m.preset) if m.preset else None) or {}
        if len(layout) > 1:
            yield Hit(pool_path(pool, "sharing", "mig", "layout" if m.layout else "preset"),
                      f"nodePools[{pool.index}].sharing.mig uses strategy single with {len(layout)} profiles "
                      f"({', '.join(sorted(layout))}); single needs one profile per node")


RULE = Rule(
    id="mig-single-not-uniform",
    severity="error",
    summary="The single MIG strategy needs one MIG profile on every GPU of the node.",
    fix="Use one profile (e.g. preset all-1g.10gb), or switch the pool to strategy mixed.",
    explanation="Under migStrategy single the device plugin advertises MIG devices as nvidia.com/gpu and requires "
    "them all to be identical; with more than one profile it fails with 'more than one MIG device type present "
    "on node' and the node offers no GPUs.",
    source="NVIDIA/k8s-device-plugin internal/rm/device_map.go (requireUniformMIGDevices)",
    check=check,
)
