"""What makes a fleet cheap to check: results cached by content, work spread over processes, a shard of the
fleet for a CI matrix, and progress on a terminal.

The cache lives in .cache/gengpu/ under the working directory (git-ignored, safe to delete). A key covers
everything a result depends on: the files read, the options, and gengpu itself (its code, data and schemas).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import sys
import zlib
from dataclasses import asdict
from pathlib import Path

from gengpu.findings import Finding

CACHE_DIR = Path(".cache") / "gengpu"
PARALLEL_FROM = 24  # overlays; below this the processes cost more than they save


@functools.cache
def code_fingerprint() -> str:
    """gengpu's code, data and schemas as installed: a new version or an edit invalidates every cached result."""
    import gengpu
    from gengpu.schemas_dir import schemas_path

    digest = hashlib.sha256(gengpu.__version__.encode())
    for root in (Path(gengpu.__file__).parent, schemas_path()):
        for top, dirs, names in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(names):
                if name.endswith((".py", ".yaml", ".json", ".txt")):
                    st = os.stat(os.path.join(top, name))
                    digest.update(f"{top}/{name}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:16]


class Cache:
    """Findings by key; a miss is None. Writing is best effort: a read-only checkout just runs uncached."""

    def __init__(self, enabled: bool = True, root: Path | None = None):
        self.enabled = enabled and os.environ.get("GENGPU_NO_CACHE") != "1"
        self.root = root or CACHE_DIR

    def key(self, kind: str, *parts) -> str:
        digest = hashlib.sha256(f"{kind}\0{code_fingerprint()}".encode())
        for part in parts:
            digest.update(b"\0" + (part if isinstance(part, bytes) else str(part).encode()))
        return f"{kind}-{digest.hexdigest()[:32]}"

    def get(self, key: str) -> list[Finding] | None:
        if not self.enabled:
            return None
        try:
            raw = json.loads((self.root / f"{key}.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return [Finding(**f) for f in raw]

    def put(self, key: str, findings: list[Finding]) -> None:
        if not self.enabled:
            return
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            tmp = self.root / f".{key}.{os.getpid()}.tmp"
            tmp.write_text(json.dumps([asdict(f) for f in findings]), encoding="utf-8")
            os.replace(tmp, self.root / f"{key}.json")
        except OSError:
            pass


def folder_bytes(folder: Path) -> bytes:
    """Every file of a folder, with its relative path: a change anywhere in it changes the key."""
    digest = hashlib.sha256()
    for top, dirs, names in os.walk(folder):
        dirs.sort()
        for name in sorted(names):
            path = Path(top) / name
            digest.update(path.relative_to(folder).as_posix().encode() + b"\0")
            try:
                digest.update(path.read_bytes())
            except OSError:
                digest.update(b"<unreadable>")
    return digest.digest()


def file_bytes(path: Path | None) -> bytes:
    try:
        return path.read_bytes() if path else b""
    except OSError:
        return b"<unreadable>"


def in_shard(name: str, shard: tuple[int, int] | None) -> bool:
    """Shard I of N (1-based) by a stable hash of the name: the same file always lands in the same shard."""
    if shard is None:
        return True
    index, count = shard
    return zlib.crc32(name.encode()) % count == index - 1


class Progress:
    """`checked 120/1000 overlays` on stderr, rewritten in place, when stderr is a terminal."""

    def __init__(self, total: int, what: str, enabled: bool):
        self.total, self.what, self.done = total, what, 0
        self.enabled = enabled and total > 1 and sys.stderr.isatty()

    def step(self, n: int = 1) -> None:
        self.done += n
        if self.enabled:
            sys.stderr.write(f"\rgengpu: checked {self.done}/{self.total} {self.what}")
            sys.stderr.flush()

    def close(self) -> None:
        if self.enabled:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()


_WORK = None  # (function, items) of a parallel map, set before the processes fork


def _run_chunk(indexes: list[int]):
    function, items = _WORK
    return [(i, function(items[i])) for i in indexes]


def parallel_map(function, items: list, jobs: int, progress: Progress | None = None) -> list:
    """function over items, in order; in forked processes when there are enough items and cores."""
    if jobs <= 1 or len(items) < PARALLEL_FROM:
        out = []
        for item in items:
            out.append(function(item))
            if progress:
                progress.step()
        return out
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    global _WORK
    _WORK = (function, items)
    size = max(1, len(items) // (jobs * 8))
    chunks = [list(range(i, min(i + size, len(items)))) for i in range(0, len(items), size)]
    results: list = [None] * len(items)
    try:
        with ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("fork")) as pool:
            for future in as_completed([pool.submit(_run_chunk, c) for c in chunks]):
                done = future.result()
                for i, value in done:
                    results[i] = value
                if progress:
                    progress.step(len(done))
    finally:
        _WORK = None
    return results


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1
