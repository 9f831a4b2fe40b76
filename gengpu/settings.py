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


def byte_count(name: str, default: int) -> int:
    """A size limit in bytes from the environment variable `name`, `default` when unset or empty: a whole number
    from 1 KiB to 1 TiB (a read never asks for more than that)."""
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    text = raw.strip()
    if not (text.isascii() and text.isdigit()) or not 1024 <= int(text) <= 1 << 40:
        raise UsageError(f"{name}={raw!r}: give a whole number of bytes from 1024 to {1 << 40}, e.g. {default}")
    return int(text)


def retry_after(value, attempt: int, most: float) -> float:
    """Seconds to wait before asking again after a 429 or 503: the answer's Retry-After when it gives a number of
    seconds, else 1, 2, 4 ... by attempt; never more than `most`."""
    try:
        wait = float(str(value).strip()) if value is not None else None
    except ValueError:
        wait = None  # (an HTTP date, or nonsense: the backoff)
    if wait is None or not 0 <= wait < 86400:
        wait = float(2 ** attempt)
    return max(0.0, min(wait, most))
