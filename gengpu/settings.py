"""Settings read from the environment: one reading for each kind, so a bad value is the same clear error
wherever it is read."""

from __future__ import annotations

import os

from gengpu.findings import UsageError


def seconds(name: str, default: float) -> float:
    """A time limit in seconds from the environment variable `name`, `default` when unset or empty."""
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if not 0 < value < 86400:  # also NaN
        raise UsageError(f"{name}={raw!r}: give a number of seconds above 0, e.g. {default:g}")
    return value
