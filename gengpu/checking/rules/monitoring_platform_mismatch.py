from gengpu.checking.rules.base import Hit, Rule


def check(profile, ctx=None):
    if profile.monitoring == "gke-managed" and profile.platform not in ("gke", "gke-autopilot"):
        yield Hit(("spec", "monitoring", "mode"), f"spec.monitoring.mode is gke-managed, but the platform is "
                                                  f"{profile.platform}")
    if profile.platform == "gke-autopilot" and profile.monitoring not in ("gke-managed", "none"):
        yield Hit(("spec", "monitoring", "mode"), f"spec.monitoring.mode is {profile.monitoring}, but on GKE "
                  "Autopilot dcgm-exporter cannot run as a privileged DaemonSet; use gke-managed")


RULE = Rule(
    id="monitoring-platform-mismatch",
    severity="error",
    summary="The GPU metrics path does not exist on this platform.",
    fix="Use gke-managed on GKE Autopilot, and service-monitor or scrape-config elsewhere.",
    explanation="GKE's managed DCGM metrics exist only on GKE. On Autopilot the operator's dcgm-exporter (a "
    "privileged DaemonSet) cannot run, so GKE's managed DCGM collection is the only source of GPU metrics.",
    source="GKE 'Collect and view DCGM metrics'; 'About privileged workload admission in Autopilot'",
    check=check,
)
