"""Which folders are Kustomize overlays, and the files of a run, each loaded once: what a run needs before it
renders anything."""

from __future__ import annotations

from pathlib import Path

KUSTOMIZATION_NAMES = ("kustomization.yaml", "kustomization.yml", "Kustomization")  # the names kustomize reads


def kustomization_file(folder: Path) -> Path | None:
    for name in KUSTOMIZATION_NAMES:
        if (folder / name).is_file():
            return folder / name
    return None


def is_overlay(path: Path) -> bool:
    return path.is_dir() and kustomization_file(path) is not None


class Files:
    """Each file of a run loaded once: (documents, findings) by path."""

    def __init__(self):
        self._loaded: dict = {}

    def load(self, path: Path, shown: str):
        from gengpu.loading import load_file

        key = str(path)
        if key not in self._loaded:
            self._loaded[key] = load_file(path, shown)
        return self._loaded[key]


FLUX_STAGES = ("flux", "flux/configs", "flux/operator", "flux/addons")


def flux_folders(overlay: Path) -> list[Path]:
    """The kustomizations of an overlay's flux/ folder (compiling/flux.py): its Flux objects and each stage."""
    return [overlay / f for f in FLUX_STAGES]
