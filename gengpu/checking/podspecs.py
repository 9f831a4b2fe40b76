"""Pod specs and containers wherever a document keeps them, and whether they ask for GPUs: plain-data helpers the
recogniser (subjects.py) and the rules share."""

from __future__ import annotations

import re

# Extended resources that mean GPUs: NVIDIA's, the removed alpha one, other vendors', and any name with "gpu".
GPU_RESOURCE = re.compile(r"^(nvidia\.com/|alpha\.kubernetes\.io/nvidia-gpu$|nos\.nebuly\.ai/|[^/]+/.*gpu)")


# Where a pod spec keeps its required node-affinity terms (any one must hold; each a list of matchExpressions).
REQUIRED_TERMS = ("affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")


def dig(data, *path):
    """The value at path in plain data, or None where a step is missing or not a mapping."""
    for part in path:
        data = data.get(part) if isinstance(data, dict) else None
    return data


def text(data, *path) -> str | None:
    """dig() where only a string counts: a name or namespace that is not one (a list, a mapping) names nothing, and
    cannot key a lookup; its object's schema finding says what is wrong."""
    value = dig(data, *path)
    return value if isinstance(value, str) else None


def expand(data, pattern: str):
    """(path, value) for a table path: dotted keys, `[]` for every list item, `*` for every map value."""
    found = [((), data)]
    for part in re.findall(r"[^.\[\]]+|\[\]", pattern):
        step = []
        for path, node in found:
            if part == "[]":
                step += [(path + (i,), v) for i, v in enumerate(node)] if isinstance(node, list) else []
            elif part == "*":
                step += [(path + (k,), v) for k, v in node.items()] if isinstance(node, dict) else []
            elif isinstance(node, dict) and part in node:
                step.append((path + (part,), node[part]))
        found = step
    return [(p, v) for p, v in found if isinstance(v, dict)]


def looks_like_pod_spec(node) -> bool:
    return isinstance(node, dict) and isinstance(node.get("containers"), list) and any(
        isinstance(c, dict) for c in node["containers"])


def find_pod_specs(data, limit: int = 12) -> list[tuple[tuple, dict]]:
    """Every mapping with a list of containers, in document order: pod specs of kinds gengpu does not know."""
    out, stack = [], [((), data)]
    while stack:
        path, node = stack.pop()
        if looks_like_pod_spec(node):
            out.append((path, node))
            continue
        if len(path) >= limit:
            continue
        children = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        stack.extend(reversed([(path + (k,), v) for k, v in children if isinstance(v, (dict, list))]))
    return out


def containers_of(spec: dict) -> list[tuple[tuple, dict]]:
    """(relative path, container) of a pod spec's init and regular containers."""
    out = []
    for group in ("initContainers", "containers"):
        items = spec.get(group)
        for i, c in enumerate(items if isinstance(items, list) else []):
            if isinstance(c, dict):
                out.append(((group, i), c))
    return out


def requests_gpu(container: dict) -> bool:
    res = container.get("resources")
    if isinstance(res, dict):
        for section in ("limits", "requests"):
            if isinstance(res.get(section), dict) and any(GPU_RESOURCE.match(str(k)) for k in res[section]):
                return True
        if res.get("claims"):
            return True  # Dynamic Resource Allocation
    env = container.get("env")
    return isinstance(env, list) and any(isinstance(e, dict) and e.get("name") == "NVIDIA_VISIBLE_DEVICES" for e in env)


def _claims(container: dict) -> bool:
    """A container that takes devices through DRA: resources.claims, or NIM's draResources (a NIMService's spec)."""
    resources = container.get("resources") if isinstance(container.get("resources"), dict) else {}
    return bool(resources.get("claims")) or bool(container.get("draResources"))


def uses_gpu(specs) -> bool:
    for _, spec in specs:
        if any(requests_gpu(c) or _claims(c) for _, c in containers_of(spec)):
            return True
        if spec.get("resourceClaims") or (isinstance(spec.get("nodeSelector"), dict) and any(
                "gpu" in str(k) or "accelerator" in str(k) for k in spec["nodeSelector"])):
            return True
    return False


def mentions_gpu(node, depth: int = 0) -> bool:
    """A GPU resource name anywhere in a quota's spec (hard, min, max, resources ...)."""
    if depth > 8:
        return False
    if isinstance(node, dict):
        # keys (ResourceQuota hard, ElasticQuota min/max) or a resource's name (Kueue's flavors[].resources[].name)
        return any(GPU_RESOURCE.match(str(k).removeprefix("requests.").removeprefix("limits.")) or str(k) == "gpu"
                   or (k == "name" and isinstance(v, str) and GPU_RESOURCE.match(v))
                   or mentions_gpu(v, depth + 1) for k, v in node.items())
    return isinstance(node, list) and any(mentions_gpu(v, depth + 1) for v in node)


# Pod annotations by which a scheduler hands out parts of GPUs (NVIDIA KAI Scheduler, Run:ai).
FRACTION_ANNOTATIONS = ("gpu-fraction", "gpu-memory")


def fraction_annotations(data) -> bool:
    stack = [(0, data)]
    while stack:
        depth, node = stack.pop()
        if isinstance(node, dict):
            annotations = node.get("annotations")
            if isinstance(annotations, dict) and any(k in annotations for k in FRACTION_ANNOTATIONS):
                return True
            if depth < 10:
                stack.extend((depth + 1, v) for v in node.values() if isinstance(v, (dict, list)))
        elif isinstance(node, list) and depth < 10:
            stack.extend((depth + 1, v) for v in node)
    return False


def containers(specs) -> list[tuple[tuple, dict]]:
    return [(path + rel, c) for path, spec in specs for rel, c in containers_of(spec)]
