"""Where the committed JSON Schemas live (the repo's schemas/ folder, shipped as gengpu.schemas)."""

from __future__ import annotations

import functools
import json
from importlib import resources
from pathlib import Path


@functools.cache
def schemas_path() -> Path:
    return Path(str(resources.files("gengpu.schemas")))


@functools.cache
def profile_schema() -> dict:
    return json.loads((schemas_path() / "profile.schema.json").read_text(encoding="utf-8"))


@functools.cache
def kubernetes_schemas_path() -> Path:
    """The Kubernetes JSON Schemas the kubernetes-validate package ships (1.25 and later)."""
    from gengpu.findings import UsageError

    try:
        import kubernetes_validate
    except ImportError as exc:  # pragma: no cover - a declared dependency
        raise UsageError("the Python package kubernetes-validate is missing; run `pip install gengpu`") from exc
    return Path(kubernetes_validate.__file__).parent / "kubernetes-json-schema"
