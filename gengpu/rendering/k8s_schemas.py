"""Kubernetes JSON Schemas for kubeconform, offline, from the kubernetes-validate package.

The packaged schemas point at "/api/_definitions.json" under an https $id, which
kubeconform would fetch over the network. We keep a derived copy in a cache
folder with the $id dropped and the reference made relative, so kubeconform
reads _definitions.json from disk.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

from gengpu.findings import UsageError
from gengpu.schemas_dir import kubernetes_schemas_path

VARIANT = "-local-strict"


def cache_root() -> Path:
    if os.environ.get("GENGPU_CACHE_DIR"):
        return Path(os.environ["GENGPU_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "gengpu"


def _rewrite(text: str) -> str:
    schema = json.loads(text.replace('"/api/_definitions.json#', '"_definitions.json#'))
    # Without the https $id, references resolve against the file's own path.
    schema.pop("$id", None)
    return json.dumps(schema)


def schema_dir(kubernetes_version: str) -> Path:
    """Folder kubeconform reads as {{ .NormalizedKubernetesVersion }}-local-strict, built on first use."""
    name = f"v{kubernetes_version}.0{VARIANT}"
    source = kubernetes_schemas_path() / name
    if not source.is_dir():
        raise UsageError(f"no Kubernetes schemas for {kubernetes_version} in kubernetes-validate "
                         "(it has 1.25 to 1.37); change spec.kubernetesVersion")
    import kubernetes_validate

    root = cache_root() / f"kubernetes-validate-{kubernetes_validate.__version__}"
    target = root / name
    if (target / "_definitions.json").is_file():
        return target
    root.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{name}-", dir=root))
    try:
        for src in source.iterdir():
            if src.suffix == ".json" and src.name != "all.json":
                (tmp / src.name).write_text(_rewrite(src.read_text(encoding="utf-8")), encoding="utf-8")
        try:
            tmp.rename(target)  # atomic: a half-built folder is never seen
        except OSError:
            if not (target / "_definitions.json").is_file():
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return target
