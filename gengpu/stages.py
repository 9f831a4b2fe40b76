"""The pipeline's stages that a run can skip, each with the inputs it reads declared in one place.

A stage's kept result is found by a key made from its declared inputs and nothing else: the orchestrator asks a
stage for its result and never builds a key by hand, so no caller can forget an input. Two kinds:

- Kept: a stage whose result is a value (a profile file's findings and name, a file's findings, an overlay's
  findings), kept by the key of its inputs.
- Made: a stage that writes files (an overlay folder, argocd/). As make skips a target, it is skipped while its
  inputs and the files it wrote are as it left them (fleet.Index keeps the files' state).

Every key also covers gengpu itself (its code, data and schemas: fleet.code_fingerprint), so a new gengpu never
reuses an old gengpu's results.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Generic, Iterable, TypeVar

from gengpu import fleet

T = TypeVar("T")


class Kept(Generic[T]):
    """A value stage. inputs(item, *options) lists everything the result depends on; ok(value) says whether a
    kept value has the shape the stage writes (anything else, from an older gengpu or a hand edit, is a miss).

    The values live in the repository's index (where: fleet.Index; entries of files a full run no longer sees are
    pruned) or in the cache folder, one file per value (where: fleet.Cache; for large values such as an
    overlay's findings)."""

    def __init__(self, kind: str, inputs: Callable[..., tuple], where: fleet.Index | fleet.Cache,
                 ok: Callable[[Any], bool] = lambda value: value is not None):
        self.kind, self.inputs, self.ok = kind, inputs, ok
        self.store = where.store if isinstance(where, fleet.Index) else where
        # an Index keeps entries in its one file; a Cache keeps one file per value
        self._get, self._put = (where.get, where.put) if isinstance(where, fleet.Index) else \
            (where.get_json, where.put_json)

    def key(self, item: T, *options) -> str:
        """The key of item's result: computed once per item (an overlay's inputs are every byte of it)."""
        return self.store.key(self.kind, *self.inputs(item, *options))

    def get(self, key: str):
        """The kept value, or None when the stage has to run."""
        value = self._get(key)
        return value if value is not None and self.ok(value) else None

    def put(self, key: str, value) -> None:
        self._put(key, value)


class Made(Generic[T]):
    """A stage that writes files. name(item) is what the index calls the target, inputs(item) the key of what it is
    made from, files(item) the files and folders it writes."""

    def __init__(self, index: fleet.Index, name: Callable[[T], str], inputs: Callable[[T], str],
                 files: Callable[[T], tuple[Path, ...]]):
        self.index, self.name, self.inputs, self.files = index, name, inputs, files

    def up_to_date(self, item: T) -> bool:
        """Made from the same inputs, and its files are as gengpu last wrote or verified them."""
        return self.index.unchanged(self.name(item), self.inputs(item), self.files(item))

    def made(self, items: Iterable[T]) -> None:
        """These targets now are what their inputs make: remember their files' state."""
        for item in items:
            self.index.record(self.name(item), self.inputs(item), self.files(item))
