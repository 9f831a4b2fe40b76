"""What a name in a profile may be: the one definition the schema, `gengpu init` and `gengpu import` share.

Cluster and pool names become folder and file names (overlays/<name>/, profiles/<name>.yaml), ConfigMap keys,
node label values and parts of Kubernetes object names: lowercase letters, digits and dashes (a DNS-1123 label),
starting and ending with a letter or digit, at most 40 characters so that derived names (gpu-<name>,
<pool>-<mig profile>) stay within Kubernetes' 63. No newline, no path separator can get through.
"""

from __future__ import annotations

import re

PATTERN = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"  # as written in schemas/profile.schema.json (ECMA-262: $ ends it)
MAX_LENGTH = 40
_NAME = re.compile(PATTERN.removesuffix("$") + r"\Z")


def valid(name: object) -> bool:
    return isinstance(name, str) and len(name) <= MAX_LENGTH and _NAME.match(name) is not None


def problem(name: object, what: str) -> str | None:
    """Why a name is not one, in words for an error message; None for a valid name."""
    if valid(name):
        return None
    return (f"{what} {name!r} is not a valid name: use lowercase letters, digits and dashes, starting and ending "
            f"with a letter or digit, at most {MAX_LENGTH} characters")


def slug(text: object, fallback: str) -> str:
    """The nearest valid name to a text (a folder's name, an imported object's name), or fallback."""
    out = re.sub(r"[^a-z0-9]+", "-", str(text).lower())[:MAX_LENGTH].strip("-")
    return out if valid(out) else fallback
