from gengpu import catalog, mig
from gengpu.checking.rules._mig import devices, entries
from gengpu.checking.rules.base import MIG_PARTED_CONFIG, Hit, Rule


def check(subject, ctx=None):
    names = set().union(*(mig.profiles(g) for g in mig.mig_gpus()))
    for name, i, entry in entries(subject.data):
        if entry.get("mig-enabled") is not True or entry.get("device-filter") is not None:
            continue  # a filter names the GPU: mig-device-filter-unknown speaks for filters gengpu cannot place
        unknown = sorted(str(p) for p in devices(entry)
                         if str(p) not in names and not mig.profile_name_problem(str(p)))
        if unknown:
            seen = [p for p in unknown if p in catalog.unattributed_mig_profiles()]
            note = (" (NVIDIA's default config names them, but no GPU)" if seen == unknown
                    else "; a GPU newer than gengpu's catalog?")
            yield Hit(("mig-configs", name, i, "mig-devices"),
                      f"{subject.label}: mig-configs.{name}[{i}]: {', '.join(unknown)} is not a MIG profile of a GPU "
                      f"gengpu knows{note}; the layout is not checked", key=True)


RULE = Rule(
    id="mig-layout-not-checked",
    severity="warning",
    summary="A MIG layout gengpu cannot check: its profiles belong to no GPU in the catalog.",
    fix="Add a device-filter for the GPU, and check `gengpu catalog gpus`; if the GPU is new, the catalog needs it.",
    explanation="What gengpu does not know it says, and does not call an error: NVIDIA's own default config uses "
    "profiles of GPUs newer than any catalog (3g.95gb, 7g.189gb). Well-formed names are left to mig-parted on the "
    "node; malformed ones are mig-profile-name-invalid.",
    source="gengpu/data/gpus.yaml; NVIDIA/mig-parted deployments/systemd/config-default.yaml",
    check=check,
    applies_to=MIG_PARTED_CONFIG,
)
