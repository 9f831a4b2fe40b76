from gengpu import catalog
from gengpu.checking.rules.base import Hit, Rule, pool_path


def zones_of(machine: str, accelerator: str | None) -> set[str] | None:
    """Zones that offer a GKE machine type (an N1 machine: its attached accelerator); None when the table does not
    know it."""
    table = (catalog.data_file("regions.yaml").get("gke") or {}).get("zones") or {}
    key = accelerator if machine.startswith("n1-") else machine
    found = table.get(key) if key else None
    return set(found) if found is not None else None


def check(profile, ctx=None):
    if profile.platform != "gke" or not profile.zones:
        return
    zones = list(profile.zones)
    for pool in profile.node_pools:
        accelerator = catalog.gke_accelerator(pool.gpu_id) if pool.gpu_id else None
        for i, machine in enumerate(pool.instance_types):
            offered = zones_of(machine, accelerator)
            if offered is None:
                continue  # a machine type gengpu's table does not know: not judged
            missing = [z for z in zones if z not in offered]
            # a managed pool spans every zone it names; auto-provisioning needs one of them
            if (pool.provisioner == "managed" and missing) or (pool.provisioner != "managed" and
                                                               len(missing) == len(zones)):
                here = sorted(z for z in offered if z.startswith(profile.region + "-"))
                if not here:
                    continue  # no zone of the region has it: instance-type-not-in-region says so
                where = f"; {profile.region} has it in {', '.join(here)}"
                what = "a managed pool needs it in every zone it spans" if pool.provisioner == "managed" else \
                    "auto-provisioning finds it in none of the zones"
                yield Hit(pool_path(pool, "instanceTypes", i) if len(pool.instance_types) > 1 else
                          pool_path(pool, "instanceTypes"),
                          f"nodePools[{pool.index}]: {machine} is not offered in {', '.join(missing)} ({what})"
                          f"{where}")


RULE = Rule(
    id="machine-type-not-in-zone",
    severity="error",
    summary="A GKE pool's machine type is not offered in a zone the profile names.",
    fix="Set spec.zones to zones that offer the machine type (the message lists the region's), or pick a machine "
    "type offered in them.",
    explanation="GPU machine types reach only some zones of a region (an A100 machine can be in two of four). A "
    "node pool is created in every zone of --node-locations and fails when one of them lacks the machine type; "
    "node auto-provisioning only looks in autoprovisioningLocations, so a machine type none of them offers never "
    "scales up. gengpu/data/regions.yaml lists the zones of each machine type and accelerator, with its source.",
    source="gengpu/data/regions.yaml gke.zones (SkyPilot's catalog of Compute Engine machineTypes.list per zone)",
    check=check,
)
