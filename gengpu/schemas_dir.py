"""Where gengpu's files live: the committed JSON Schemas (the repo's schemas/ folder, shipped as gengpu.schemas)
and the data tables (gengpu.data)."""

from __future__ import annotations

import functools
import importlib.util
import json
from pathlib import Path


@functools.cache
def package_dir(package: str) -> Path:
    """A package's folder on disk, installed or editable. Not importlib.resources: its import (tempfile, zipfile)
    costs a pre-commit run 6 ms, and gengpu runs binaries on these files, so they are always real files."""
    spec = importlib.util.find_spec(package)
    assert spec is not None and spec.submodule_search_locations, package
    return Path(list(spec.submodule_search_locations)[0])


def schemas_path() -> Path:
    return package_dir("gengpu.schemas")


def data_path() -> Path:
    return package_dir("gengpu.data")


@functools.cache
def profile_schema() -> dict:
    return json.loads((schemas_path() / "profile.schema.json").read_text(encoding="utf-8"))


@functools.cache
def kubernetes_schemas_path() -> Path:
    """The Kubernetes JSON Schemas the kubernetes-validate package ships (1.25 and later)."""
    from gengpu.findings import UsageError

    try:  # found, not imported: its import costs a pre-commit run 50 ms, and only its files are read
        return package_dir("kubernetes_validate") / "kubernetes-json-schema"
    except (AssertionError, ModuleNotFoundError) as exc:  # pragma: no cover - a declared dependency
        raise UsageError("the Python package kubernetes-validate is missing; run `pip install gengpu`") from exc
