"""Node selector requirements evaluated as the scheduler evaluates them (kubernetes pkg/apis/core/v1/helper
MatchNodeSelectorRequirements; labels.Requirement.Matches): In, NotIn, Exists, DoesNotExist, Gt, Lt over the values a
node's label may hold. Shared by every rule that asks where a pod can run."""

from __future__ import annotations

UNKNOWN = None  # the label's values cannot be told: anything may match


def matches(operator, values, have) -> bool:
    """Whether a requirement (operator, values) can hold on a node whose label may hold any of `have` (a set of
    strings; empty: the node has no such label; UNKNOWN: not known)."""
    if have is UNKNOWN:
        return True
    want = [str(v) for v in values or []]
    if operator == "In":
        return bool(set(have) & set(want))
    if operator == "NotIn":  # a node without the label satisfies NotIn
        return not have or not set(have) <= set(want)
    if operator == "Exists":
        return bool(have)
    if operator == "DoesNotExist":
        return not have
    if operator in ("Gt", "Lt"):  # one integer value; the label's value must parse as one
        if len(want) != 1 or not want[0].lstrip("-").isdecimal():
            return False
        bound = int(want[0])
        return any(v.lstrip("-").isdecimal() and (int(v) > bound if operator == "Gt" else int(v) < bound) for v in have)
    return False  # an operator the API server refuses
