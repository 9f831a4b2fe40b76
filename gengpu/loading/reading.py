"""Reading a file's bytes: all a run answered from the cache needs, and the one way gengpu reads any input.

Bounded: only regular files (a FIFO would block the run forever, /dev/zero never ends), and never more than
MAX_BYTES, whatever the file claims to be.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from gengpu.findings import Finding

MAX_BYTES = 16 * 1024 * 1024  # GENGPU_MAX_FILE_BYTES
# a cluster's snapshot (gengpu snapshot, kubectl get -o json): 5,000 GPU nodes with their GPU pods are about 90 MiB
SNAPSHOT_MAX_BYTES = 512 * 1024 * 1024  # GENGPU_MAX_SNAPSHOT_BYTES


def max_bytes() -> int:
    """The limit of any file gengpu reads (GENGPU_MAX_FILE_BYTES, checked when read: a bad value is a clear error)."""
    from gengpu import settings

    return settings.byte_count("GENGPU_MAX_FILE_BYTES", MAX_BYTES)


def snapshot_max_bytes() -> int:
    """The limit of a cluster's snapshot (GENGPU_MAX_SNAPSHOT_BYTES)."""
    from gengpu import settings

    return settings.byte_count("GENGPU_MAX_SNAPSHOT_BYTES", SNAPSHOT_MAX_BYTES)
_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def too_large(display: str, size: int, limit: int | None = None) -> Finding:
    """limit: MAX_BYTES, or (by name, as a snapshot's is read) SNAPSHOT_MAX_BYTES."""
    setting = "GENGPU_MAX_FILE_BYTES" if limit is None else "GENGPU_MAX_SNAPSHOT_BYTES"
    limit = max_bytes() if limit is None else limit
    return Finding(display, 1, 1, "error", "yaml-limit", f"file is {size // (1024 * 1024)} MiB; gengpu reads files "
                   f"up to {limit // (1024 * 1024)} MiB", f"split the file, or set {setting}")


def read_bytes(path: Path, display: str, limit: int | None = None) -> tuple[bytes | None, list[Finding]]:
    try:
        # O_NONBLOCK: opening a FIFO does not wait for a writer; fstat then says what it is
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        return None, [Finding(display, 0, 0, "error", "file-unreadable", f"cannot read file: {exc.strerror}",
                              "check the path and its permissions")]
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            what = next((name for test, name in _KINDS if test(mode)), "not a regular file")
            return None, [Finding(display, 0, 0, "error", "file-unreadable",
                                  f"cannot read file: it is {what}, not a regular file",
                                  "give gengpu the path of a file (a FIFO or device is never read)")]
        chunks, size, cap = [], 0, max_bytes() if limit is None else limit
        while size <= cap:
            chunk = os.read(fd, min(1 << 20, cap + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > cap:
            return None, [too_large(display, os.fstat(fd).st_size, limit)]
        return b"".join(chunks), []
    except OSError as exc:
        return None, [Finding(display, 0, 0, "error", "file-unreadable", f"cannot read file: {exc.strerror}",
                              "check the path and its permissions")]
    finally:
        os.close(fd)


def read_text(path: Path) -> str | None:
    """A regular file's UTF-8 text, bounded as read_bytes is; None for anything that is not such a file (a link to a
    device, a FIFO, a file too large or not UTF-8)."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return None
    except OSError:
        return None
    raw, findings = read_bytes(path, str(path))
    try:
        return raw.decode("utf-8") if raw is not None else None
    except UnicodeDecodeError:
        return None
