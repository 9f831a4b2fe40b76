from gengpu.checking.rules._mig import devices, entries
from gengpu.checking.rules.base import MIG_PARTED_CONFIG, Hit, Rule


def check(subject, ctx=None):
    for name, i, entry in entries(subject.data):
        counts = devices(entry)
        if counts and all(isinstance(c, int) and c == 0 for c in counts.values()):
            yield Hit(("mig-configs", name, i, "mig-devices"),
                      f"{subject.label}: mig-configs.{name}[{i}].mig-devices has only zero counts", key=True)


RULE = Rule(
    id="mig-parted-all-counts-zero",
    severity="error",
    summary="A MIG layout whose counts are all zero.",
    fix="Give at least one profile a count above 0, or use mig-devices: {} to enable MIG with no instances.",
    explanation="mig-parted refuses a mig-devices map whose counts are all 0 ('all counts for all MigProfiles are "
    "0') and with it the whole config file.",
    source="NVIDIA/mig-parted pkg/types/mig_config.go (AssertValidFormat)",
    check=check,
    applies_to=MIG_PARTED_CONFIG,
)
