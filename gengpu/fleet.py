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
import stat
import sys
import time
import zlib
from dataclasses import asdict
from pathlib import Path

from gengpu.findings import Finding

CACHE_DIR = Path(".cache") / "gengpu"
PARALLEL_FROM = 24  # overlays; below this the processes cost more than they save
INDEX_VERSION = 1  # the index file's shape; another is read as empty


# What results depend on besides gengpu itself: the schema engine, the Kubernetes schemas, the YAML parser.
_DEPENDENCIES = ("jsonschema_rs", "jsonschema", "kubernetes_validate", "yaml")


@functools.cache
def code_fingerprint() -> str:
    """gengpu's code, data and schemas as installed, and the libraries its verdicts rest on: a new version or an
    edit invalidates every cached result."""
    import importlib.util

    import gengpu

    digest = hashlib.sha256(f"{gengpu.__version__}\0{sys.version}".encode())

    def walk(folder: str) -> None:
        try:
            with os.scandir(folder) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError:
            return
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                if entry.name != "__pycache__":
                    walk(entry.path)
            elif entry.name.endswith((".py", ".yaml", ".json", ".txt", ".gz")):
                st = entry.stat()
                digest.update(f"{entry.path}:{st.st_size}:{st.st_mtime_ns}\n".encode())

    walk(os.path.dirname(gengpu.__file__))
    walk(importlib.util.find_spec("gengpu.schemas").submodule_search_locations[0])
    for name in _DEPENDENCIES:  # a reinstall gives the package folder a new time
        spec = importlib.util.find_spec(name)
        origin = spec.origin if spec and spec.origin else ""
        try:
            digest.update(f"{origin}:{os.stat(os.path.dirname(origin)).st_mtime_ns}\n".encode())
        except OSError:
            digest.update(f"{name}: missing\n".encode())
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
        raw = self.get_json(key)
        return [Finding(**f) for f in raw] if findings_ok(raw) else None  # any other shape: a miss

    def put(self, key: str, findings: list[Finding]) -> None:
        self.put_json(key, [asdict(f) for f in findings])

    def get_json(self, key: str):
        if not self.enabled:
            return None
        try:
            return json.loads((self.root / f"{key}.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None

    def put_json(self, key: str, value) -> None:
        if not self.enabled:
            return
        try:
            if not self.root.is_dir():
                self.root.mkdir(parents=True, exist_ok=True)
                # as pytest does: the cache ignores itself, so `git add -A` never commits it
                (self.root / ".gitignore").write_text("# gengpu's cache: safe to delete, never committed\n*\n")
            tmp = self.root / f".{key}.{os.getpid()}.tmp"
            tmp.write_text(json.dumps(value, separators=(",", ":")), encoding="utf-8")
            os.replace(tmp, self.root / f"{key}.json")  # readers see the old index or the new one, never half
        except OSError:
            pass


_FINDING = {"file": str, "line": int, "column": int, "severity": str, "rule": str, "message": str, "fix": str}


def findings_ok(value) -> bool:
    """A cached list of findings, as put() wrote it: anything else (an older gengpu's, a hand edit, a file of
    another program) is a miss."""
    return isinstance(value, list) and all(
        isinstance(f, dict) and set(f) <= set(_FINDING) and set(_FINDING) - {"fix"} <= set(f)
        and all(isinstance(v, _FINDING[k]) and not isinstance(v, bool) for k, v in f.items()) for f in value)


def _entry_ok(entry) -> bool:
    """A file's entry in the index: its findings, and what it was (a profile's name and where it is written)."""
    if not isinstance(entry, dict) or not findings_ok(entry.get("findings")):
        return False
    at, notes = entry.get("at"), entry.get("notes")
    return (entry.get("name") is None or isinstance(entry["name"], str)) and \
        (at is None or (isinstance(at, list) and len(at) == 2 and all(type(x) is int for x in at))) and \
        (notes is None or (isinstance(notes, list) and all(isinstance(n, str) for n in notes)))


def _state_ok(state) -> bool:
    return isinstance(state, list) and len(state) == 3 and isinstance(state[0], str) and isinstance(state[1], str) \
        and (state[2] is None or isinstance(state[2], str))


class Index:
    """What the last runs learnt about the files of one repository, in one cache file read once per run.

    files: by content key, a file's findings and what it was (a profile, its name). states: by overlay name, the
    profile key it was built from and the state of its files (sizes, times, inodes) right after gengpu wrote or
    verified them; an overlay whose profile and files are both unchanged is as a full build would leave it.
    """

    def __init__(self, store: Cache, out_dir: Path):
        self.store = store
        self.key = store.key("index", out_dir.resolve())
        data = store.get_json(self.key)
        data = data if isinstance(data, dict) and data.get("version") == INDEX_VERSION else {}
        files = data.get("files") if isinstance(data.get("files"), dict) else {}
        states = data.get("states") if isinstance(data.get("states"), dict) else {}
        # entries of another shape are misses; the next save writes the index anew without them
        self.files: dict = {k: v for k, v in files.items() if _entry_ok(v)}
        self.states: dict = {k: v for k, v in states.items() if _state_ok(v)}
        self.used: set[str] = set()
        self.dirty = bool(data) and (len(self.files) != len(files) or len(self.states) != len(states))

    def get(self, key: str):
        self.used.add(key)
        return self.files.get(key)

    def put(self, key: str, entry: dict) -> None:
        self.used.add(key)
        self.files[key] = entry
        self.dirty = True

    def unchanged(self, name: str, key: str, paths: tuple[Path, ...]) -> bool:
        """Whether the files of overlay name are as gengpu left them when it built them from the profile key."""
        recorded = self.states.get(name)
        if not recorded:
            return False
        state, racy = tree_state(*paths)
        if recorded[0] != key or recorded[1] != state:
            return False
        if recorded[2] is None:
            return True
        if recorded[2] != tree_content(*paths):
            return False
        if not racy:  # as git refreshes its index: the state alone now vouches for the files, so no more reads
            self.states[name] = [key, state, None]
            self.dirty = True
        return True

    def record(self, name: str, key: str, paths: tuple[Path, ...]) -> None:
        state, racy = tree_state(*paths)
        entry = [key, state, tree_content(*paths) if racy else None]
        if self.states.get(name) != entry:
            self.states[name] = entry
            self.dirty = True

    def save(self, prune: bool = False) -> None:
        """prune: this run saw every file of the repository, so entries it did not use are gone."""
        if prune and set(self.files) - self.used:
            self.files = {k: v for k, v in self.files.items() if k in self.used}
            self.dirty = True
        if self.dirty:
            self.store.put_json(self.key, {"version": INDEX_VERSION, "files": self.files, "states": self.states})


RACY_NS = 100_000_000  # file times come from a coarse clock: an edit within a tick of our look keeps them


def tree_state(*paths: Path) -> tuple[str, bool]:
    """Every entry under paths as lstat sees it (a missing path counts too), and whether the state is racy: some
    entry changed so recently that an edit right after this look could leave its times and size as they are.

    Writing a file gives it a new ctime (and gengpu writes through a new inode), so any later change moves the
    state; a racy state is trusted only together with the content of its files (see tree_content).
    """
    digest = hashlib.blake2b(digest_size=16)
    since = time.time_ns() - RACY_NS
    racy = False

    def note(path: str, st: os.stat_result) -> None:
        nonlocal racy
        digest.update(f"{path}\0{st.st_mode}:{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}:{st.st_ino}\n".encode())
        racy = racy or st.st_ctime_ns >= since or st.st_mtime_ns >= since

    def walk(path: str) -> None:
        # A folder is its listing (names and kinds); only files and links need their own lstat.
        try:
            with os.scandir(path) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError:
            digest.update(f"{path}\0unreadable\n".encode())
            return
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                digest.update(f"{entry.path}/\n".encode())
                walk(entry.path)
            else:
                note(entry.path, entry.stat(follow_symlinks=False))

    for path in map(str, paths):
        try:
            st = os.lstat(path)
        except OSError:
            digest.update(f"{path}\0-\n".encode())
            continue
        if stat.S_ISDIR(st.st_mode):
            digest.update(f"{path}/\n".encode())
            walk(path)
        else:
            note(path, st)
    return digest.hexdigest(), racy


def tree_content(*paths: Path) -> str:
    """The bytes of every file under paths, with their paths."""
    digest = hashlib.blake2b(digest_size=16)
    for path in paths:
        if path.is_dir() and not path.is_symlink():
            digest.update(str(path).encode() + b"\0" + folder_bytes(path))
        else:
            digest.update(str(path).encode() + b"\0" + file_bytes(path) + b"\0")
    return digest.hexdigest()


def folder_bytes(folder: Path) -> bytes:
    """Every file of a folder, with its relative path: a change anywhere in it changes the key."""
    digest = hashlib.sha256()
    for top, dirs, names in os.walk(folder):
        dirs.sort()
        for name in sorted(names):
            path = Path(top) / name
            digest.update(path.relative_to(folder).as_posix().encode() + b"\0")
            _content(path, digest)
    return digest.digest()


def _content(path: Path, digest) -> None:
    """What a file contributes to a key, streamed: a regular file its bytes; a link where it points (never what it
    points at: a link to /dev/zero would never end); anything else its kind."""
    try:
        st = os.lstat(path)
        if stat.S_ISLNK(st.st_mode):
            digest.update(b"<link>" + os.fsencode(os.readlink(path)))
        elif not stat.S_ISREG(st.st_mode):
            digest.update(f"<{stat.S_IFMT(st.st_mode):o}>".encode())
        else:
            with open(path, "rb", opener=lambda p, f: os.open(p, f | os.O_NOFOLLOW | os.O_NONBLOCK)) as fh:
                for chunk in iter(lambda: fh.read(1 << 20), b""):
                    digest.update(chunk)
    except OSError:
        digest.update(b"<unreadable>")


def file_bytes(path: Path | None) -> bytes:
    if not path:
        return b""
    digest = hashlib.sha256()
    _content(path, digest)
    return digest.digest()


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
    """GENGPU_JOBS when set (a CI runner's share of the machine, or 1 under a mutation tester that forks), else the
    cores this process may use."""
    raw = os.environ.get("GENGPU_JOBS", "")
    if raw != "":
        if not (raw.strip().isascii() and raw.strip().isdigit() and 1 <= int(raw) <= 1024):
            from gengpu.findings import UsageError

            raise UsageError(f"GENGPU_JOBS={raw!r}: give a whole number of processes from 1 to 1024, e.g. 2")
        return int(raw)
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1
