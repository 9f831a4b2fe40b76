"""The live corpus's indexes (tests/live-corpus/states.yaml and pastes.yaml), read once per test session with libyaml:
several test modules parametrize from them, and the pure-Python loader spent about a second on states.yaml each
time a module was collected (every mutant of scripts/mutation collects its test modules anew)."""

from __future__ import annotations

import functools
from pathlib import Path

import yaml

CORPUS = Path(__file__).parent / "live-corpus"


@functools.cache
def _load(name: str):
    return yaml.load((CORPUS / name).read_text(), Loader=yaml.CSafeLoader)


def states() -> list[dict]:
    """Every real state of states.yaml, each with its file, source, verdict and format."""
    return _load("states.yaml")["states"]


def pastes() -> list[dict]:
    """Every real paste of pastes.yaml, each with its file, source and what it shows."""
    return _load("pastes.yaml")
