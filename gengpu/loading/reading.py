"""Reading a file's bytes: all a run answered from the cache needs."""

from __future__ import annotations

from pathlib import Path

from gengpu.findings import Finding


def read_bytes(path: Path, display: str) -> tuple[bytes | None, list[Finding]]:
    try:
        return Path(path).read_bytes(), []
    except OSError as exc:
        return None, [Finding(display, 0, 0, "error", "file-unreadable", f"cannot read file: {exc.strerror}",
                              "check the path and its permissions")]
