"""Upstream changes gengpu follows (data/changes.yaml), and where a profile's pinned versions stand against each.

Light at import (the CLI reads COMPONENTS for its options): the tables are read when asked."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gengpu.model import Profile

COMPONENTS = ("gpu-operator", "k8s-device-plugin", "dcgm-exporter", "dra-driver", "karpenter-aws", "kueue", "gke",
              "eks", "aks", "argo-cd", "flux")
PLATFORM_OF = {"gke": ("gke", "gke-autopilot"), "eks": ("eks",), "aks": ("aks",)}


def changes(component: str | None = None, since: str | None = None) -> list[dict]:
    """The changes of one component (or all), dated on or after `since` (ISO date) when given."""
    from gengpu import catalog

    return [c for c in catalog.data_file("changes.yaml")["changes"]
            if (component is None or c["component"] == component)
            and (since is None or str(c.get("date", "")) >= since)]


def pins(profile: Profile) -> dict[str, tuple[str | None, str]]:
    """component -> (chart line or None, version) the profile installs, where it pins one."""
    from gengpu import catalog
    from gengpu.compiling import dra

    out: dict[str, tuple[str | None, str]] = {}
    if profile.operator.enabled:
        out["gpu-operator"] = (None, profile.operator.version)
        plugin = (catalog.operator()["releases"].get(profile.operator.version) or {}).get("devicePlugin")
        if plugin:
            out["k8s-device-plugin"] = (None, plugin)
        exporter = catalog.dcgm_exporter_version(profile.operator.version)
        if exporter:
            out["dcgm-exporter"] = (None, exporter)
    if profile.dra_pools:
        out["dra-driver"] = (dra.chart_name(profile), dra.chart_version(profile))
    karpenter = (profile.eks.get("karpenter") or {}).get("version") if profile.platform == "eks" else None
    if karpenter:
        out["karpenter-aws"] = (None, str(karpenter))
    return out


def standings(chosen: list[dict], profile: Profile) -> list[str | None]:
    """How each change stands for a profile: in its pins, past them, or None when the profile does not use the
    component (or the change is of another platform)."""
    from gengpu.catalog import version_tuple

    pinned = pins(profile)

    def one(change: dict) -> str | None:
        component = change["component"]
        if component in PLATFORM_OF:
            return "applies to this platform" if profile.platform in PLATFORM_OF[component] else None
        if component not in pinned or "version" not in change:
            return None
        chart, version = pinned[component]
        if change.get("chart") and chart != change["chart"]:
            return f"not yet: it installs {chart} {version}, the change is in {change['chart']} {change['version']}"
        if version_tuple(version) >= version_tuple(change["version"]):
            return f"in effect: it installs {version}"
        return f"not yet: it installs {version}, the change is in {change['version']}"

    return [one(change) for change in chosen]
