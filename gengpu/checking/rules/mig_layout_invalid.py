from gengpu import catalog, mig
from gengpu.checking.rules.base import Hit, Rule, pool_path


def check(profile, ctx=None):
    for pool in profile.node_pools:
        m = pool.sharing.mig
        if pool.sharing.mode != "mig" or m is None or not pool.gpu_id or not catalog.gpus()[pool.gpu_id].get("mig"):
            continue
        if m.preset:
            if mig.preset_layout(pool.gpu_id, m.preset) is None:
                names = ["all-balanced"] + [f"all-{p.replace('+', '.')}" for p in mig.profiles(pool.gpu_id)]
                yield Hit(pool_path(pool, "sharing", "mig", "preset"),
                          f"nodePools[{pool.index}].sharing.mig.preset '{m.preset}' does not exist for "
                          f"{pool.gpu_id}; it has {', '.join(names)}")
            continue
        # one layout for every GPU, or each per-GPU entry's (mig.layouts), judged on the GPU alike
        layouts = [(("layout",), m.layout)] if not m.layouts else \
            [(("layouts", i, "layout"), layout) for i, (_, layout) in enumerate(m.layouts) if layout is not None]
        for at, layout in layouts:
            verdict = mig.check_layout(pool.gpu_id, layout)
            for profile_name, reason in verdict.problems:
                path = pool_path(pool, "sharing", "mig", *at, *([profile_name] if profile_name else []))
                where = "layout" if len(at) == 1 else f"layouts[{at[1]}].layout"
                yield Hit(path, f"nodePools[{pool.index}].sharing.mig.{where}: {reason} (the "
                                f"layouts it can hold: `gengpu mig layouts {pool.gpu_id}`)", key=bool(profile_name))


RULE = Rule(
    id="mig-layout-invalid",
    severity="error",
    summary="The MIG layout does not fit the GPU.",
    fix="Run `gengpu mig layouts MODEL` for the layouts this GPU can hold, or `gengpu mig check --gpu MODEL "
    "PROFILE=COUNT ...` to see where each instance would sit.",
    explanation="A MIG layout is valid only if every profile exists on that GPU, no profile exceeds its maximum "
    "count, and the instances can sit on allowed start slots without sharing a memory slice. mig-parted accepts "
    "any layout at parse time and only fails on the node ('all orderings failed'), leaving the GPU without MIG "
    "devices.",
    source="NVIDIA MIG User Guide, Supported MIG Profiles and the `nvidia-smi mig -lgipp` placement listing",
    check=check,
)
