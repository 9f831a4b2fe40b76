"""Finding, reading and checking profiles: the first stage of every flow (build, validate, check, rightsize, plan).

A profile is read once (Source), checked against its schema and rules, and kept in the fleet index by its bytes, so
a profile the index has seen is not parsed again.
"""

from __future__ import annotations

import functools
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from gengpu import fleet, stages
from gengpu.findings import Finding, UsageError, display
from gengpu.loading.reading import read_bytes

if TYPE_CHECKING:
    from gengpu.model import Profile


DEFAULT_PROFILES = "profiles"
DEFAULT_OVERLAYS = "overlays"




def profile_files(paths: list[str]) -> list[Path]:
    if paths:
        return [Path(p) for p in paths]
    folder = Path(DEFAULT_PROFILES)
    if not folder.is_dir():
        raise UsageError(f"no profiles given and no {DEFAULT_PROFILES}/ folder here; pass profile files")
    return sorted([*folder.glob("*.yaml"), *folder.glob("*.yml")])


@dataclass
class Source:
    """One file: its bytes, read once; its documents (or the findings that stopped its parse), parsed when asked."""

    path: Path
    shown: str
    raw: bytes | None
    parsed: tuple | None = None
    decided: object = None  # what loading found it to be (roles.Decided), once decide() ran

    @classmethod
    def read(cls, path: Path) -> "Source":
        shown = display(path)
        if not path.exists():
            raise UsageError(f"{shown}: no such file")
        raw, findings = read_bytes(path, shown)  # a FIFO or device is a finding, never read
        return cls(path, shown, raw, None if raw is not None else ([], findings))

    @property
    def docs(self) -> list:
        return self._parse()[0]

    @property
    def findings(self) -> list[Finding]:
        return self._parse()[1]

    def _parse(self) -> tuple:
        from gengpu.loading import load_bytes

        if self.parsed is None:
            self.parsed = load_bytes(self.raw, self.shown)
        return self.parsed

    def decide(self, repositories) -> object:
        """What each document of the file is (loading/roles.py), recorded on the documents; the load findings that
        are about something gengpu judges. Decided once."""
        from gengpu.loading import roles

        if self.decided is None:
            text = None
            if self.raw is not None:
                text = self.raw.decode("utf-8", errors="replace")
            self.decided = roles.decide(self.path, self.docs, self.findings, text,
                                        repositories.around(self.path))
            for doc, role in zip(self.docs, self.decided.roles):
                doc.role = role
        return self.decided

    @property
    def is_profile(self) -> bool:
        """Files in profiles/ are profiles, as build takes them; elsewhere, files that say they are one."""
        if os.path.dirname(self.real) == _real_dir(DEFAULT_PROFILES):
            return True
        from gengpu.loading.roles import is_profile

        return any(is_profile(d.data) for d in self.docs)

    @functools.cached_property
    def real(self) -> str:
        return _real(self.path)

    def identity(self) -> tuple:
        """What checking this file gives depends on: its bytes, where it is, and how it is shown."""
        where = self.real
        return (self.shown, where, os.path.dirname(where) == _real_dir(DEFAULT_PROFILES),
                self.raw if self.raw is not None else b"\0unreadable")


def file_checks(index: fleet.Index) -> stages.Kept[Source]:
    """Checking one file, kept by its identity and the options of the check: a profile's findings, name and GitOps
    tool (no options), or another file's findings and what its documents were taken for."""
    return stages.Kept("file", lambda source, *options: (*source.identity(), *options), index)


@dataclass
class Checked:
    """A profile that passed its schema: its name, and the Profile, built again on demand when the check came from
    the cache."""

    source: Source
    repo_path: str  # relative to the repository root: what headers and Applications name
    name: str
    key: str
    loaded: Profile | None = None
    gitops: str = "argocd"  # who syncs it (kept in the index, so argocd/ is planned without loading the profile)

    @property
    def profile(self) -> Profile:
        from gengpu.checking.profile import check_profile

        if self.loaded is None:
            self.loaded = check_profile(self.source.docs[0], self.repo_path)[0]
        return self.loaded


@dataclass
class Loaded:
    profiles: list[Checked] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)


def _real_dir(folder: str) -> str:
    return _realpath(os.path.abspath(folder))  # absolute first: the working directory may change between runs


@functools.lru_cache(maxsize=4096)
def _realpath(folder: str) -> str:
    return os.path.realpath(folder)


def _real(path: Path) -> str:
    """path.resolve(), with each folder resolved once per run: a fleet's profiles share one."""
    if os.path.islink(path):
        return os.path.realpath(path)
    folder, name = os.path.split(os.path.abspath(path))
    return os.path.join(_realpath(folder), name)


def _repo_path(path: Path, out_dir: Path) -> str:
    return Path(os.path.relpath(_real(path), os.path.dirname(_real_dir(str(out_dir))))).as_posix()


def _check_profile_file(source: Source, out_dir: Path) -> tuple[dict, Profile | None]:
    """A profile file's findings and name, as the cache keeps them, and the Profile when it passed its schema."""
    from gengpu.checking.profile import check_profile_file

    entry: dict = {"findings": [asdict(f) for f in source.findings], "name": None}
    if source.findings:
        return entry, None
    profile, findings = check_profile_file(source.docs, source.shown, _repo_path(source.path, out_dir))
    entry["findings"] += [asdict(f) for f in findings]
    if profile is not None:
        entry["name"], entry["at"] = profile.name, list(source.docs[0].position(("metadata", "name")))
        entry["gitops"] = profile.gitops
    return entry, profile


def load_profiles(files: list[Path | Source], out_dir: Path, index: fleet.Index | None = None) -> Loaded:
    """Load and check every profile; one bad file never stops the others. A profile whose bytes the index has
    seen is not loaded at all: its findings and name come from the index."""
    result = Loaded()
    names: dict[str, str] = {}
    checks = file_checks(index) if index else None
    for source in files:
        source = source if isinstance(source, Source) else Source.read(source)
        key = checks.key(source) if checks else ""
        entry = checks.get(key) if checks else None
        profile = None
        if entry is None:
            entry, profile = _check_profile_file(source, out_dir)
            if checks:
                checks.put(key, entry)
        result.findings += [Finding(**f) for f in entry["findings"]]
        name = entry["name"]
        if name is None:
            continue
        if name in names:
            from gengpu.checking.profile import duplicate_name

            result.findings.append(duplicate_name(source.shown, tuple(entry["at"]), name, names[name]))
            continue
        names[name] = source.shown
        result.profiles.append(Checked(source, _repo_path(source.path, out_dir), name, key, profile,
                                       str(entry.get("gitops", "argocd"))))
    return result

