from gengpu import mig
from gengpu.checking.rules._mig import devices, entries
from gengpu.checking.rules.base import MIG_PARTED_CONFIG, Hit, Rule


def check(subject, ctx=None):
    for name, i, entry in entries(subject.data):
        for profile in devices(entry):
            if why := mig.profile_name_problem(str(profile)):
                yield Hit(("mig-configs", name, i, "mig-devices", profile),
                          f"{subject.label}: mig-configs.{name}[{i}]: {why}", key=True)


RULE = Rule(
    id="mig-profile-name-invalid",
    severity="error",
    summary="A MIG profile name mig-parted cannot parse.",
    fix="Write profiles as <g>g.<memory>gb with an optional +me, +gfx, +me.all or -me, e.g. 1g.10gb or 1g.10gb+me.",
    explanation="mig-parted parses every mig-devices key with go-nvlib's profile grammar and rejects the whole file "
    "on the first malformed one, so no node of the cluster gets its MIG layout.",
    source="NVIDIA/go-nvlib pkg/nvlib/device/mig_profile.go (parseMigProfile); mig-parted pkg/types",
    check=check,
    applies_to=MIG_PARTED_CONFIG,
)
