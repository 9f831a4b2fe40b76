"""Writes of one file, whole or not at all, and the repository's build lock.

A snapshot (gengpu snapshot -o) and a profile that rightsize --write changes are single files: each goes to a
temporary file beside its target, is synced, then renamed over it, so a kill leaves the old file or the new one.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterable
from pathlib import Path

from gengpu.findings import UsageError
from gengpu.writing import TMP_SUFFIX, _rel

LOCK_WAIT = 10.0  # seconds a second build waits for the first (GENGPU_LOCK_WAIT)


@contextlib.contextmanager
def repository_lock(root: Path, wait: float | None = None):
    """Hold the repository's build lock (.cache/gengpu/build.lock, an flock the kernel drops when the process
    dies): a second build waits up to `wait` seconds, then stops, naming the process that holds it."""
    import fcntl

    folder = root / ".cache" / "gengpu"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        if not (folder / ".gitignore").exists():
            (folder / ".gitignore").write_text("# gengpu's cache: safe to delete, never committed\n*\n")
        fd = os.open(folder / "build.lock", os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
    except OSError:
        yield  # a read-only checkout: nothing else can write here either
        return
    try:
        from gengpu import settings

        deadline = time.monotonic() + (settings.seconds("GENGPU_LOCK_WAIT", LOCK_WAIT) if wait is None else wait)
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    holder = os.pread(fd, 64, 0).decode("ascii", "replace").strip() or "another process"
                    raise UsageError(f"another gengpu build (process {holder}) is writing this repository "
                                     f"({_rel(folder / 'build.lock', root)}); run the build again when it is "
                                     "done") from None
                time.sleep(0.05)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        yield
    finally:
        os.close(fd)  # closing drops the lock


def write_snapshot(path: Path, text: str | Iterable[str]) -> None:
    """Write a snapshot file whole or not at all, and only over a file that is missing or an earlier snapshot of
    gengpu's: never over a file of the user's."""
    if path.is_symlink() or (path.exists() and not path.is_file()):
        raise UsageError(f"{path} is not a regular file; gengpu writes snapshots only to new files or its own")
    if path.exists():
        head = path.read_bytes()[:4096]
        if b"gengpu.dev/snapshot-of" not in head:
            raise UsageError(f"{path} exists and is not a snapshot of gengpu's; give a new file name")
    write_whole(path, text, 0o600)  # a cluster's inventory: for its owner's eyes


def write_profile(path: Path, expected: bytes, text: str) -> None:
    """Replace a profile the user asked gengpu to change (rightsize --write), whole or not at all, and only if it
    still holds what gengpu read (an editor's save in between is never overwritten)."""
    if path.is_symlink() or not path.is_file():
        raise UsageError(f"{path} is not a regular file; change it by hand")
    if path.read_bytes() != expected:
        raise UsageError(f"{path} changed while gengpu read it; run again")
    write_whole(path, text, path.stat().st_mode & 0o777)


def write_whole(path: Path, text: str | Iterable[str], mode: int) -> None:
    """A temporary file beside path, written (whole, or chunk by chunk), synced and renamed over it: a kill leaves
    the old file or the new."""
    tmp = path.parent / f".{path.name}.{os.getpid()}{TMP_SUFFIX}"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            for chunk in [text] if isinstance(text, str) else text:
                out.write(chunk)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise UsageError(f"cannot write {path}: {exc.strerror}") from None
