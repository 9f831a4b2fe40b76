"""Where the kinds table (gengpu/data/kinds.yaml) says a kind keeps what asks for GPUs outside its pod specs: single
containers (`containers`, with their resources under another key where `resources` says so), GPU counts its operator
turns into nvidia.com/gpu (`gpus`), and tensor/pipeline parallel sizes it gives GPUs for (`parallelism`)."""

from __future__ import annotations

from gengpu.checking.podspecs import expand


def _entry(obj):
    from gengpu.checking.subjects import entry

    return entry(obj) if isinstance(obj, dict) else None


def loosecontainers(obj: dict) -> list[tuple[tuple, dict]]:
    """Containers a kind keeps outside pod specs (the table's `containers`): mappings there with resources. Where
    the kind keeps them under another key (the table's `resources`), the container is seen with them as
    `resources`, and renamed() maps the paths back."""
    known = _entry(obj)
    key = (known or {}).get("resources")
    found = [(p, v) for pattern in (known or {}).get("containers", []) for p, v in expand(obj, pattern)]
    out = []
    for p, v in found:
        if key and isinstance(v.get(key), dict):
            seen = {k: x for k, x in v.items() if k != key}
            seen.setdefault("name", "node")  # (Trainer's node container)
            out.append((p, {**seen, "resources": v[key]}))
        elif isinstance(v.get("resources"), dict) or v.get("draResources"):
            # (NIM's NIMService takes its GPUs through DRA with spec.draResources, without resources)
            out.append((p, v))
    return out

def renamed(obj: dict) -> dict[tuple, tuple]:
    """Paths loosecontainers() shows under another name: (container path + resources) -> where they are written."""
    known = _entry(obj)
    key = (known or {}).get("resources")
    if not key:
        return {}
    return {p + ("resources",): p + (key,) for pattern in known.get("containers", []) for p, v in expand(obj, pattern)
            if isinstance(v.get(key), dict)}

def operator_gpus(obj: dict) -> list[tuple]:
    """Where a kind's operator takes a GPU count under its own key `gpu` (the table's `gpus`; NVIDIA Dynamo's
    resources.limits.gpu, which its operator turns into nvidia.com/gpu): paths of the non-zero ones."""
    known = _entry(obj)
    return [p + ("gpu",) for pattern in (known or {}).get("gpus", []) for p, v in expand(obj, pattern)
            if v.get("gpu") not in (None, 0, "0", "")]

def operator_parallelism(obj: dict) -> list[tuple]:
    """Where a kind's operator turns tensor/pipeline parallel sizes into GPUs (the table's `parallelism`)."""
    known = _entry(obj)
    return [p for pattern in (known or {}).get("parallelism", []) for p, v in expand(obj, pattern)
            if any(v.get(k) not in (None, 0, "0", "") for k in ("tensorParallelSize", "pipelineParallelSize"))]
