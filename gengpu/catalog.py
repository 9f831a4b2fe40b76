"""Capability tables (GPU models, platforms, GPU Operator releases), loaded once from data files."""

from __future__ import annotations

import functools
from importlib import resources

import yaml


@functools.cache
def _load(name: str) -> dict:
    text = resources.files("gengpu.data").joinpath(name).read_text(encoding="utf-8")
    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def platforms() -> dict:
    return _load("platforms.yaml")["platforms"]


def operator() -> dict:
    return _load("operator.yaml")


def gpus() -> dict:
    return _load("gpus.yaml")["gpus"]


@functools.cache
def _gpu_index() -> dict[str, str]:
    index = {}
    for gpu_id, gpu in gpus().items():
        for name in [gpu_id, *gpu.get("aliases", [])]:
            index[name.lower()] = gpu_id
    return index


def resolve_gpu(name: str) -> str | None:
    """Canonical GPU id for an id or alias (case-insensitive), or None."""
    return _gpu_index().get(str(name).lower())


def gpu(name: str) -> dict | None:
    gpu_id = resolve_gpu(name)
    return gpus()[gpu_id] if gpu_id else None


def version_tuple(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in str(version).lstrip("v").split(".") if part.isdigit())
