"""Rule template: a feature the profile uses on a platform that lacks it.

Which platform lacks what, and why, is data: `lacks:` of gengpu/data/platforms.yaml. A rule names the feature and
says where a profile uses it; the message is "<where> on <platform>: <the table's reason>".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable

from gengpu import catalog
from gengpu.checking.rules.base import Hit, Rule

# where a profile uses the feature: (path into the profile, how the message names that place)
Uses = Callable[[object], Iterable[tuple[tuple, str]]]


def lacks(platform: str, feature: str) -> str | None:
    """Why the platform cannot have the feature, or None when it can."""
    return (catalog.platforms()[platform].get("lacks") or {}).get(feature)


@dataclass(frozen=True)
class PlatformFeature:
    """The check of a platform-feature rule (a class, not a closure, so each call runs the current code)."""

    feature: str
    uses: Uses

    def __call__(self, profile, ctx=None):
        reason = lacks(profile.platform, self.feature)
        if reason:
            for path, where in self.uses(profile):
                yield Hit(path, f"{where} on {profile.platform}: {reason}")


def platform_feature(*, id: str, feature: str, uses: Uses, summary: str, fix: str, explanation: str, source: str,
                     severity: str = "error") -> Rule:
    assert any(feature in (p.get("lacks") or {}) for p in catalog.platforms().values()), feature
    return Rule(id=id, severity=severity, summary=summary, fix=fix, explanation=explanation, source=source,
                check=PlatformFeature(feature, uses))
