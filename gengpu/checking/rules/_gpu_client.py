"""Workloads that select nvidia.com/gpu.deploy.client, the GPU Operator's label for GPU clients of your own, and what
the GPU Operator in the same files (or the profile) does with that label."""

from __future__ import annotations

from dataclasses import dataclass

from gengpu import catalog
from gengpu.checking import nodeselect
from gengpu.checking.podspecs import REQUIRED_TERMS, dig
from gengpu.checking.rules.base import CLUSTER_POLICY, HELM_VALUES, OBJECT
from gengpu.checking.subjects import pod_specs


def label() -> str:
    return catalog.operator()["gpuClientLabel"]["label"]


@dataclass(frozen=True)
class Selection:
    """One place a pod spec asks for the label: its nodeSelector entry, or a required node-affinity expression."""

    subject: object
    path: tuple  # to the nodeSelector value, or to the expression's key
    how: str  # nodeSelector | affinity
    operator: str  # nodeSelector: In; affinity: the expression's operator
    values: tuple  # the values it accepts (nodeSelector: the one value)

    @property
    def takes_true(self) -> bool:
        """Whether a node whose label is "true" (every GPU node of a ClusterPolicy cluster) satisfies it."""
        return nodeselect.matches(self.operator, self.values, {"true"})


def selections(overlay):
    """Every pod spec in the files that selects the label, as Selections."""
    key = label()
    for subject in overlay.subjects:
        if subject.kind != OBJECT or not isinstance(subject.data, dict):
            continue
        for path, spec in pod_specs(subject.data):
            selector = spec.get("nodeSelector")
            if isinstance(selector, dict) and key in selector:
                yield Selection(subject, path + ("nodeSelector", key), "nodeSelector", "In", (str(selector[key]),))
            terms = dig(spec, *REQUIRED_TERMS)
            for t, term in enumerate(terms if isinstance(terms, list) else []):
                exprs = term.get("matchExpressions") if isinstance(term, dict) else None
                for e, expr in enumerate(exprs if isinstance(exprs, list) else []):
                    if isinstance(expr, dict) and expr.get("key") == key:
                        values = expr.get("values") if isinstance(expr.get("values"), list) else []
                        yield Selection(subject, path + REQUIRED_TERMS + (t, "matchExpressions", e, "key"), "affinity",
                                        str(expr.get("operator")), tuple(str(v) for v in values))


def operator_releases(overlay, ctx) -> list[tuple[str, str]]:
    """(release, who installs it) for each GPU Operator the files or the profile install: the chart version a Flux
    HelmRelease or an Argo CD Application pins (with values or without), or the profile's spec.operator.version."""
    out = [(s.chart_version, f"{s.label}, {s.chart_pin}" if s.chart_pin and s.chart_pin != s.chart_version
            else s.label) for s in overlay.subjects if s.chart == "gpu-operator" and s.chart_version]
    profile = getattr(ctx, "profile", None)
    if profile is not None and profile.operator.enabled:
        out.append((profile.operator.version, f"profile {profile.name}, spec.operator.version"))
    return out


def never_set(overlay, ctx) -> str | None:
    """Why no GPU node will carry the label at all, if none will: a GPUCluster, an operator release before the
    label, or no operator."""
    if owner := gpucluster(overlay, ctx):
        return f"a GPUCluster ({owner}) deletes it from its nodes: the label belongs to the ClusterPolicy stack"
    since = catalog.operator()["gpuClientLabel"]["since"]
    for release, said in operator_releases(overlay, ctx):
        if not catalog.chart_has(release, since):
            return f"gpu-operator {release} ({said}) never sets it: the label is new in {since}"
    profile = getattr(ctx, "profile", None)
    if profile is not None and not profile.operator.enabled:
        return f"profile {profile.name} runs no GPU Operator (spec.operator.enabled: false), and only the operator " \
            "sets it"
    return None


def gpucluster(overlay, ctx) -> str | None:
    """What runs the GPU Operator as a GPUCluster, if anything does: a GPUCluster object, chart values that render
    one, or the profile's spec.operator.model."""
    for s in overlay.subjects:
        if s.kind == OBJECT and s.data.get("kind") == "GPUCluster" and \
                str(s.data.get("apiVersion", "")).startswith("nvidia.com/"):
            return s.label
        if s.kind == HELM_VALUES and s.chart == "gpu-operator" and dig(s.data, "gpuCluster", "deployCR") is True:
            return f"{s.label}, gpuCluster.deployCR: true"
    profile = getattr(ctx, "profile", None)
    if profile is not None and profile.gpucluster:
        return f"profile {profile.name} (spec.operator.model: gpucluster)"
    return None


def old_managers(overlay):
    """(subject, path, manager entry, version) for each manager image the files pin older than the release that
    pauses GPU clients: gpu-operator values (driver.manager.version) or a ClusterPolicy (spec.driver.manager...)."""
    for s in overlay.subjects:
        if s.kind == CLUSTER_POLICY:
            base = ("spec",)
        elif s.kind == HELM_VALUES and s.chart == "gpu-operator":
            base = ()
        else:
            continue
        for manager in catalog.operator()["gpuClientLabel"]["managers"]:
            path = base + tuple(manager["values"].split("."))
            version = catalog.version_tuple(dig(s.data, *path) or "")
            if version and version < catalog.version_tuple(manager["since"]):
                yield s, path, manager, str(dig(s.data, *path))
