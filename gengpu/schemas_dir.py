"""Where the committed JSON Schemas live (the repo's schemas/ folder, shipped as gengpu.schemas)."""

from __future__ import annotations

import functools
import json
from importlib import resources
from pathlib import Path


def schemas_path() -> Path:
    return Path(str(resources.files("gengpu.schemas")))


@functools.cache
def profile_schema() -> dict:
    return json.loads((schemas_path() / "profile.schema.json").read_text(encoding="utf-8"))
