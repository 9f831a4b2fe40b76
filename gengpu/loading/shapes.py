"""Plain files (no apiVersion and kind) by their documented shape: NVIDIA's config formats by their own markers, the
values of NVIDIA's charts by keys only those charts have, Prometheus rule files and Grafana dashboards, GKE's
auto-provisioning file. The table is gengpu/data/kinds.yaml `shapes`; a key any chart or tool may use is never
evidence on its own."""

from __future__ import annotations

import functools


@functools.cache
def _shapes() -> list[dict]:
    from gengpu import catalog  # (the table, on the first plain mapping a run meets)

    return catalog.data_file("kinds.yaml")["shapes"]


def _has(data, path: str) -> bool:
    """Whether a dotted path exists in data; `[]` steps into any item of a list."""
    nodes = [data]
    for step in path.split("."):
        nxt = []
        for node in nodes:
            if step == "[]" and isinstance(node, list):
                nxt += node
            elif isinstance(node, dict) and step in node:
                nxt.append(node[step])
        if not nxt:
            return False
        nodes = nxt
    return True


def _matches(shape: dict, data: dict, keys: set) -> bool:
    if not set(shape.get("all", [])) <= keys or ("only" in shape and not keys <= set(shape["only"])):
        return False
    anyof = set(shape.get("any", []))
    if anyof and len(keys & anyof) < shape.get("atLeast", 1):
        return False
    if "unique" in shape and not keys & set(shape["unique"]):
        return False
    return "markers" not in shape or any(_has(data, m) for m in shape["markers"])


def match(data) -> dict | None:
    """The shape a plain mapping has, with `why` (what made it match), or None."""
    if not isinstance(data, dict) or "kind" in data or "apiVersion" in data:
        return None
    keys = set(map(str, data))
    matches = [shape for shape in _shapes() if _matches(shape, data, keys)]
    charts = [m for m in matches if "chart" in m]
    if charts:  # values files of two charts share names (nvidiaDriverRoot, gfd): the one with more of its keys wins
        best = max(charts, key=lambda m: len(keys & set(m.get("any", []) + m.get("all", []))))
        matches = [best] + [m for m in matches if "chart" not in m]
    if not matches:
        return None
    shape = matches[0]
    shown = sorted(set(shape.get("all", [])) | (keys & set(shape.get("any", []))))
    markers = [m for m in shape.get("markers", []) if _has(data, m)]
    evidence = ", ".join(shown) if shown else ", ".join(markers)
    return {**shape, "why": f"a mapping with {evidence} ({shape['source']})"}


def config_kind(data) -> str | None:
    """The kind of NVIDIA config a plain mapping is (a ConfigMap value), or None."""
    from gengpu.checking import targets as T

    shape = match(data)
    kind = shape["subject"] if shape else None
    return kind if kind in (T.DEVICE_PLUGIN_CONFIG, T.MIG_PARTED_CONFIG, T.GPU_CLIENTS, T.MIG_PARTED_HOOKS) else None
