"""Chart versions as GitOps tools write them: an exact release, or a semver constraint that picks one.

Flux's HelmRelease `spec.chart.spec.version` is a semver constraint (default `*`, Masterminds/semver: `>=v26.7.0`,
`v26.x`, `~26.3`, `>=1.0, <2.0`, `||`), and so is an Argo CD Application's `targetRevision` for a Helm chart. Each
resolves to the newest release the repository has that the constraint admits. gengpu takes a constraint as the
newest release it knows that the constraint admits, and says so; a constraint that admits none it knows is unknown.
Never the digits of the text: `>=v26.7.0` is not v26.7.0 by accident, and `v26.x` is not v26.0.0.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

EXACT = re.compile(r"^v?\d+\.\d+\.\d+([-+][0-9A-Za-z.+-]*)?$")


@dataclass(frozen=True)
class Release:
    """What a pin means: the release (None: unknown), and how gengpu arrived at it ("" for an exact pin)."""

    version: str | None
    how: str = ""

    def shown(self, pin: str) -> str:
        """The pin as messages quote it: `v26.x (taken as v26.7.0, ...)`."""
        return f"{pin} ({self.how})" if self.how else pin


@functools.cache
def known(chart: str) -> tuple[str, ...]:
    """The releases of a chart gengpu knows, oldest first: its vendored charts, and for the GPU Operator the releases
    its tables describe."""
    from gengpu import catalog, charts

    found = {c.version for c in charts.versions(chart)}
    if chart == "gpu-operator":
        found |= set(catalog.operator()["releases"])
    return tuple(sorted(found, key=catalog.version_tuple))


def _npm(text: str) -> str:
    """Masterminds/semver's constraint syntax as npm's (which semantic_version reads): commas are ANDs, and a
    version may carry a v."""
    text = re.sub(r"\s*,\s*", " ", text.strip())
    return re.sub(r"(^|[\s<>=~^|-])v(?=\d)", r"\1", text)


def release(pin, chart: str | None) -> Release:
    """The release a chart pin selects, among those gengpu knows of the chart."""
    text = str(pin).strip() if pin is not None else ""
    if not text:
        return Release(None, "no version")
    if EXACT.match(text):
        return Release(text)
    from semantic_version import NpmSpec, Version

    try:
        spec = NpmSpec(_npm(text))
    except ValueError:
        return Release(None, "not a version or a semver range gengpu reads")
    admitted = [v for v in known(chart or "") if Version.coerce(v.lstrip("v")) in spec]
    if not admitted:
        return Release(None, f"a range that admits no {chart} release gengpu knows")
    return Release(admitted[-1], f"taken as {admitted[-1]}, the newest {chart} release gengpu knows that it admits")
