from gengpu import mig
from gengpu.checking.rules._mig import devices, entries
from gengpu.checking.rules.base import MIG_PARTED_CONFIG, Hit, Rule


def check(subject, ctx=None):
    for name, i, entry in entries(subject.data):
        layout = {p: c for p, c in devices(entry).items()
                  if isinstance(c, int) and c > 0 and not mig.profile_name_problem(str(p))}
        if not layout or entry.get("mig-enabled") is not True:
            continue
        path = ("mig-configs", name, i, "mig-devices")
        targets, _ = mig.gpus_for_device_filter(entry.get("device-filter"))
        if entry.get("device-filter") is not None:
            for gpu_id in targets:
                for reason in mig.check_layout(gpu_id, layout).reasons:
                    yield Hit(path, f"{subject.label}: mig-configs.{name}[{i}]: {reason}", key=True)
            continue
        # No filter: the entry applies to whatever MIG GPU the node has; some GPU must hold it.
        having = [g for g in mig.mig_gpus() if all(p in mig.profiles(g) for p in layout)]
        verdicts = {g: mig.check_layout(g, layout) for g in having}
        if any(v.valid for v in verdicts.values()):
            continue
        if not having:
            names = set().union(*(mig.profiles(g) for g in mig.mig_gpus()))
            if any(p not in names for p in layout):
                continue  # a profile of a GPU gengpu does not know: mig-layout-not-checked says so
            why = f"no GPU gengpu knows has all of {', '.join(layout)}"
        else:
            why = "; ".join(v.reasons[0] for v in verdicts.values())
        yield Hit(path, f"{subject.label}: mig-configs.{name}[{i}]: {why}", key=True)


RULE = Rule(
    id="mig-parted-layout-invalid",
    severity="error",
    summary="A mig-parted layout that the GPUs it targets cannot hold.",
    fix="Check the layout with `gengpu mig check --gpu MODEL PROFILE=COUNT ...`, and add a device-filter when the "
    "config is for one GPU model.",
    explanation="mig-parted accepts any well-formed layout at parse time and fails only on the node, after trying "
    "every creation order ('all orderings failed'). gengpu places the instances on the GPUs the entry's "
    "device-filter selects (or, without a filter, on every MIG GPU it knows) before the config ships.",
    source="NVIDIA MIG User Guide (profiles and placements); mig-parted pkg/mig/config",
    check=check,
    applies_to=MIG_PARTED_CONFIG,
)
