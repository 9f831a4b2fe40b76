"""KEDA ScaledObjects and ScaledJobs: their prometheus triggers (keda.sh/v1alpha1 spec.triggers[])."""

from __future__ import annotations

import re

KINDS = ("ScaledObject", "ScaledJob")
_AGGREGATIONS = ("sum", "avg", "min", "max", "count", "stddev", "stdvar", "group", "topk", "bottomk", "quantile",
                 "count_values")


def triggers(subject):
    """(index, trigger) of each prometheus trigger of a KEDA object."""
    data = subject.data
    if data.get("kind") not in KINDS or not str(data.get("apiVersion", "")).startswith("keda.sh/"):
        return
    spec = data.get("spec") if isinstance(data.get("spec"), dict) else {}
    for i, trigger in enumerate(spec.get("triggers") if isinstance(spec.get("triggers"), list) else []):
        if isinstance(trigger, dict) and trigger.get("type") == "prometheus" and \
                isinstance(trigger.get("metadata"), dict):
            yield i, trigger


def _closes(text: str, start: int) -> int:
    """The index just after the parenthesis group opening at start, or -1."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return i + 1
    return -1


def grouped_by(query: str) -> list[str] | None:
    """The labels the query's outermost aggregation keeps (`avg(x) by (pod)`, `sum by (pod) (x)`), or None where the
    outermost expression is no aggregation with `by`."""
    q = query.strip()
    m = re.match(r"^(\w+)\s*", q)
    if not m or m.group(1) not in _AGGREGATIONS:
        return None
    rest = q[m.end():]
    head = re.match(r"^by\s*\(([^)]*)\)\s*", rest)
    if head:  # sum by (pod) (...)
        end = _closes(rest, head.end()) if rest[head.end():head.end() + 1] == "(" else -1
        return [label.strip() for label in head.group(1).split(",") if label.strip()] \
            if end == len(rest) else None
    if not rest.startswith("("):
        return None
    end = _closes(rest, 0)
    tail = re.match(r"^\s*by\s*\(([^)]*)\)\s*$", rest[end:]) if end > 0 else None
    return [label.strip() for label in tail.group(1).split(",") if label.strip()] if tail else None
