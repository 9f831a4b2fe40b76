"""Stage 6, write: compare overlays on disk with the compiled ones, and change them so a kill cannot lose a file.

Ownership. gengpu owns a file that starts with its header; a digest in the
header records the file's place and content as gengpu wrote them. Everything
else is the user's: never overwritten or deleted. `local/` is never looked at.
gengpu deletes a generated file only while it is intact (its digest holds), and
removes the folder of a deleted profile only when every entry in it is such a
file. It never follows a symlink and refuses to write through one.

The write protocol is a redo journal. Every new text goes to a temporary file
beside its target; then one journal, written and renamed into place
atomically, lists the renames and deletions; then they run; then the journal
goes. A build killed before the journal exists leaves only temporary files,
which the next build removes; killed after, the next build finishes the
journal's work. There is no moment at which an overlay folder is missing.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from gengpu.headers import is_generated
from gengpu.findings import UsageError

LOCAL = "local"  # the user's Kustomize Component in an overlay: never read, written or deleted
DIGEST_MARK = "# gengpu-digest: "
JOURNAL = ".gengpu-journal"
TMP_SUFFIX = ".gengpu-tmp"
LEGACY_SUFFIXES = (".gengpu-new", ".gengpu-old")  # folders of gengpu before 0.2, swapped in two renames


# --- ownership ---------------------------------------------------------------------------------------------

def _digest(location: str, text: str) -> str:
    return hashlib.sha256(f"{location}\n{text}".encode("utf-8")).hexdigest()[:16]


def _split(text: str) -> tuple[str, str | None, str]:
    """(text before the digest line, digest or None, text after it)."""
    head, rest = ("", text)
    if rest.startswith("#!"):
        first, _, rest = rest.partition("\n")
        head = first + "\n"
    lines = rest.split("\n", 3)
    if len(lines) >= 3 and lines[2].startswith(DIGEST_MARK):
        before = head + lines[0] + "\n" + lines[1] + "\n"
        return before, lines[2][len(DIGEST_MARK):].strip(), (lines[3] if len(lines) > 3 else "")
    return text, None, ""


def stamp(location: str, text: str) -> str:
    """The text with its digest after the two header lines: where it goes and what it says, as gengpu wrote it."""
    before, digest, after = _split(text)
    if digest is not None:  # already stamped (argocd/ files kept as they are): stamp afresh
        text = before + after
    head, rest = ("", text)
    if rest.startswith("#!"):
        first, _, rest = rest.partition("\n")
        head = first + "\n"
    one, two, body = rest.split("\n", 2)
    before = f"{head}{one}\n{two}\n"
    return f"{before}{DIGEST_MARK}{_digest(location, before + body)}\n{body}"


def intact(location: str, text: str) -> bool:
    """True when the text is a generated file exactly as gengpu wrote it at this location."""
    before, digest, after = _split(text)
    return digest is not None and is_generated(text) and digest == _digest(location, before + after)


# --- plans -------------------------------------------------------------------------------------------------

@dataclass
class OverlayPlan:
    name: str
    folder: Path
    desired: dict[str, str]  # relative path (posix) -> text, stamped
    missing: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)
    conflicts: list[tuple[str, str]] = field(default_factory=list)  # (relative path, why gengpu will not write)
    kept: list[tuple[str, str]] = field(default_factory=list)  # files gengpu would delete but leaves (path, why)
    orphan: bool = False  # the folder of a profile that is gone

    @property
    def changed(self) -> bool:
        return bool(self.missing or self.stale or self.extra)

    @property
    def removes_folder(self) -> bool:
        return self.orphan and not self.kept and bool(self.extra)


def read_text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _entries(folder: Path) -> tuple[dict[str, Path], list[str]]:
    """Regular files by relative path, and every other entry (symlinks, sockets, ...), without following links.

    local/ and gengpu's own temporary files are left out.
    """
    files, odd = {}, []
    if not folder.is_dir() or folder.is_symlink():
        return files, odd
    for top, dirs, names in os.walk(folder, followlinks=False):
        rel_top = Path(top).relative_to(folder)
        if rel_top == Path("."):
            dirs[:] = [d for d in dirs if d != LOCAL]
        for d in list(dirs):
            if (Path(top) / d).is_symlink():
                odd.append((rel_top / d).as_posix())
                dirs.remove(d)
        dirs.sort()
        for name in sorted(names):
            path = Path(top) / name
            rel = (rel_top / name).as_posix()
            if name.endswith(TMP_SUFFIX):
                continue
            mode = path.lstat().st_mode
            (files.__setitem__(rel, path) if stat.S_ISREG(mode) else odd.append(rel))
    return files, odd


def _parents(rel: str) -> list[str]:
    parts = rel.split("/")[:-1]
    return ["/".join(parts[: i + 1]) for i in range(len(parts))]


def plan_overlay(root: Path, name: str, desired: dict[str, str], orphan: bool = False,
                 keep=None) -> OverlayPlan:
    """What changes in root/name to make it hold the desired files (texts not yet stamped).

    keep(rel) says which other files to leave alone, unread: the part of a folder this build does not own.
    """
    folder = root / name
    plan = OverlayPlan(name, folder, {rel: stamp(f"{name}/{rel}", text) for rel, text in desired.items()})
    if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
        what = "a symlink" if folder.is_symlink() else "a file"
        plan.conflicts.append((".", f"{name} is {what}; gengpu writes only into a folder of its own"))
        return plan
    existing, odd = _entries(folder)
    blockers = set(odd) | set(existing)
    for rel, text in plan.desired.items():
        if rel.split("/")[0] == LOCAL:
            continue
        in_the_way = [p for p in _parents(rel) if p in blockers]
        if in_the_way or rel in odd:
            plan.conflicts.append((rel, f"{in_the_way[0] if in_the_way else rel} is not a regular file or folder "
                                        "(a symlink?); gengpu will not write through it"))
        elif rel not in existing:
            plan.missing.append(rel)
        else:
            current = read_text(existing[rel])
            if current is None or not is_generated(current):
                plan.conflicts.append((rel, f"{rel} exists and was not generated by gengpu; gengpu will not "
                                            "overwrite it"))
            elif current != text:
                plan.stale.append(rel)
    for rel, path in existing.items():
        if rel in plan.desired or keep is not None and keep(rel):
            continue
        current = read_text(path) or ""
        if not is_generated(current):
            continue
        # Files of an older gengpu carry no digest: deleted from a live overlay, never from an orphan.
        if intact(f"{name}/{rel}", current) or _split(current)[1] is None and not orphan:
            plan.extra.append(rel)
        else:
            plan.kept.append((rel, "edited since gengpu wrote it" if _split(current)[1] else "written by an older "
                                   "gengpu, which recorded no digest"))
    return plan


def plan_orphan(root: Path, name: str) -> OverlayPlan:
    """The folder of a deleted profile: removed only when everything in it is gengpu's, as gengpu wrote it."""
    plan = plan_overlay(root, name, {}, orphan=True)
    plan.orphan = True
    files, odd = _entries(plan.folder)
    for rel, path in files.items():
        if rel not in plan.extra and not any(rel == k for k, _ in plan.kept):
            plan.kept.append((rel, "not generated by gengpu"))
    plan.kept += [(rel, "not a regular file") for rel in odd]
    if (plan.folder / LOCAL).exists():
        plan.kept.append((LOCAL, "your local/ component"))
    if plan.kept:
        plan.extra = []  # nothing is deleted from a folder that holds anything of the user's
    return plan


# --- the journal -------------------------------------------------------------------------------------------

def _write_new(path: Path, text: str, executable: bool) -> None:
    """Write a file that must not exist yet (a temporary name of gengpu's)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o755 if executable else 0o644)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(text)


def _tmp(target: Path) -> Path:
    return target.with_name(f".{target.name}{TMP_SUFFIX}")


def _rel(path: Path, base: Path) -> str:
    return Path(os.path.relpath(path, base)).as_posix()


def apply(plans: list[OverlayPlan], base: Path, journal_dir: Path) -> None:
    """Carry out every plan as one unit: after a kill, the next build ends with all of them done, or none.

    base: the folder the journal's paths are relative to (the repository root).
    """
    plans = [p for p in plans if p.changed]
    if not plans:
        return
    journal = journal_dir / JOURNAL
    renames, deletes, folders, prune = [], [], [], []
    created = [] if journal_dir.exists() else [_rel(journal_dir, base)]
    try:
        journal_dir.mkdir(parents=True, exist_ok=True)
        # Prepare: folders and temporary files, recorded first so a kill here is rolled back.
        for plan in plans:
            for rel in plan.missing + plan.stale:
                target = plan.folder / rel
                for parent in reversed([target.parent, *target.parent.parents]):
                    if parent == base or base not in parent.parents:
                        continue
                    if not parent.exists():
                        created.append(_rel(parent, base))
                renames.append((_rel(_tmp(target), base), _rel(target, base)))
            deletes += [_rel(plan.folder / rel, base) for rel in plan.extra]
            # folders inside the overlay that held only files gengpu deletes now (a MIG profile's component)
            prune += [_rel(plan.folder / p, base) for rel in plan.extra for p in _parents(rel)]
            if plan.removes_folder:
                folders.append(_rel(plan.folder, base))
        _save(journal, {"state": "prepare", "created": sorted(set(created)), "renames": renames})
        for plan in plans:
            for rel in plan.missing + plan.stale:
                target = plan.folder / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                tmp = _tmp(target)
                if tmp.exists():
                    tmp.unlink()
                _write_new(tmp, plan.desired[rel], plan.desired[rel].startswith("#!"))
        # Commit point: from here on the next build finishes the work.
        _save(journal, {"state": "commit", "created": sorted(set(created)), "renames": renames,
                        "deletes": deletes, "folders": folders, "prune": sorted(set(prune), key=len, reverse=True)})
    except OSError as exc:
        _roll_back(base, journal)
        raise UsageError(f"cannot write {exc.filename or 'the overlays'}: {exc.strerror}; nothing was changed") from exc
    try:
        _redo(base, journal)
    except OSError as exc:
        raise UsageError(f"cannot finish writing ({exc.filename}: {exc.strerror}); the next `gengpu build` "
                         "finishes it") from exc


def _save(journal: Path, data: dict) -> None:
    tmp = journal.with_name(journal.name + TMP_SUFFIX)
    tmp.write_text(json.dumps(data, indent=1), encoding="utf-8")
    os.replace(tmp, journal)


def _redo(base: Path, journal: Path) -> None:
    data = json.loads(journal.read_text(encoding="utf-8"))
    for tmp, target in data["renames"]:
        if (base / tmp).exists():
            os.replace(base / tmp, base / target)
    for rel in data["deletes"]:
        path = base / rel
        text = read_text(path) if path.is_file() and not path.is_symlink() else None
        if text is not None and is_generated(text):
            path.unlink()
    for rel in data.get("prune", []):
        try:
            (base / rel).rmdir()  # only when empty: a file of the user's keeps its folder
        except OSError:
            pass
    for rel in data["folders"]:
        _remove_empty(base / rel)
    journal.unlink()


def _roll_back(base: Path, journal: Path) -> None:
    try:
        data = json.loads(journal.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    for tmp, _ in data["renames"]:
        if (base / tmp).is_file():
            (base / tmp).unlink()
    journal.unlink()  # before the folders, so the journal's own folder goes too when the build created it
    for rel in data["created"]:
        _remove_empty(base / rel)  # it removes empty subfolders too, so the order does not matter


def _remove_empty(folder: Path) -> None:
    """Remove a folder and its subfolders when no file is left in them."""
    if not folder.is_dir() or folder.is_symlink():
        return
    for top, dirs, _ in os.walk(folder, topdown=False, followlinks=False):
        for d in dirs:
            try:
                (Path(top) / d).rmdir()
            except OSError:
                pass
    try:
        folder.rmdir()
    except OSError:
        pass


def interrupted(journal_dir: Path) -> bool:
    return (journal_dir / JOURNAL).is_file()


def recover(base: Path, journal_dir: Path) -> list[str]:
    """Finish or undo what a killed build left; say what was done. Safe to run at any time."""
    notes = []
    journal = journal_dir / JOURNAL
    half_saved = journal.with_name(journal.name + TMP_SUFFIX)  # killed while saving a journal: the old one stands
    if half_saved.is_file():
        half_saved.unlink()
    if journal.is_file():
        try:
            state = json.loads(journal.read_text(encoding="utf-8")).get("state")
        except ValueError:
            state = None
        if state == "commit":
            _redo(base, journal)
            notes.append("finished the writes of an interrupted build")
        else:
            _roll_back(base, journal)
            if journal.exists():
                journal.unlink()
            notes.append("undid the preparations of an interrupted build")
    notes += _recover_legacy(journal_dir)
    return notes


def _user_files_copied(leftover: Path, home: Path) -> bool:
    """Every non-generated file of the leftover folder has an identical copy in home."""
    files, odd = _entries(leftover)
    local = leftover / LOCAL
    if local.is_dir():
        for top, _, names in os.walk(local, followlinks=False):
            for name in names:
                path = Path(top) / name
                files[_rel(path, leftover)] = path
    for rel, path in files.items():
        text = read_text(path)
        if text is not None and is_generated(text):
            continue
        copy = home / rel
        if not copy.is_file() or copy.read_bytes() != path.read_bytes():
            return False
    return not odd


def _recover_legacy(root: Path) -> list[str]:
    """Folders an older gengpu left when killed between its two renames: restored, never deleted with user files."""
    notes = []
    if not root.is_dir():
        return notes
    for entry in sorted(root.iterdir()):
        if not (entry.name.startswith(".") and entry.name.endswith(LEGACY_SUFFIXES) and entry.is_dir()):
            continue
        name = entry.name[1:].rsplit(".gengpu-", 1)[0]
        home = root / name
        if not home.exists():
            new, old = root / f".{name}.gengpu-new", root / f".{name}.gengpu-old"
            entry_to_restore = new if new.is_dir() and old.is_dir() else entry
            os.replace(entry_to_restore, home)
            notes.append(f"restored {_rel(home, root.parent)} from {entry_to_restore.name}")
            if entry_to_restore != entry:
                continue
        elif _user_files_copied(entry, home):
            import shutil

            shutil.rmtree(entry)
            notes.append(f"removed {entry.name}: everything of yours in it is also in {name}/")
    return notes
