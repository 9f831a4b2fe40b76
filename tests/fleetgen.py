"""A generated fleet: N profiles made from the example profiles, each a cluster of its own, all valid.

Used by scripts/bench (fleet figures) and the tests (in-process rendering equals kustomize on a fleet).
Deterministic: the same N gives the same profiles.
"""

from __future__ import annotations

import random
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent


def profiles(n: int) -> dict[str, str]:
    """File name -> profile text for a fleet of n clusters."""
    examples = sorted((ROOT / "profiles").glob("*.yaml"))
    out = {}
    for i in range(n):
        source = examples[i % len(examples)]
        data = yaml.safe_load(source.read_text())
        rng = random.Random(i)
        name = f"{source.stem}-{i:04d}"
        data["metadata"]["name"] = name
        for pool in data["spec"]["nodePools"]:
            sharing = pool.get("sharing") or {}
            if sharing.get("mode") in ("time-slicing", "mps"):
                sharing["replicas"] = rng.choice([2, 3, 4, 6, 8])
            if "limits" in pool and "nodes" in pool["limits"]:
                pool["limits"]["nodes"] = rng.randrange(1, 20)
        for section in ("eks", "aks", "gke"):
            if isinstance(data["spec"].get(section), dict) and "clusterName" in data["spec"][section]:
                data["spec"][section]["clusterName"] = name
        out[f"{name}.yaml"] = yaml.safe_dump(data, sort_keys=False)
    return out


def write(n: int, repo: Path) -> list[Path]:
    (repo / "profiles").mkdir(parents=True, exist_ok=True)
    paths = []
    for name, text in profiles(n).items():
        path = repo / "profiles" / name
        path.write_text(text)
        paths.append(path)
    return paths
