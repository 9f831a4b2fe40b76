"""What a rule is: an id, a severity, a fix and an explanation, beside its check."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable


@dataclass(frozen=True)
class Hit:
    """One place a rule fires: a path into the profile and a message naming the field."""

    path: tuple
    message: str
    key: bool = False  # point at the key rather than the value
    doc: object = None  # overlay rules: the Document the path belongs to
    # advice whose consequence lies elsewhere: the fact (checking/consequences.py) that must be in the files of the
    # run for it to keep the rule's severity; without it the finding is information
    needs: str = ""
    # live rules: what it is about (Kind/namespace/name), and the node and pool it is tied to
    subject: str = ""
    node: str = ""
    pool: str = ""


from gengpu.checking.targets import (  # noqa: F401  (rule modules import their target from here)
    CLUSTER_POLICY,
    DCGM_COUNTERS,
    DEVICE_PLUGIN_CONFIG,
    DRA,
    GKE_AUTOPROVISIONING,
    GKE_COMPUTECLASS,
    GKE_NODEPOOL,
    GPU_CLIENTS,
    GPUCLUSTER,
    GPU_STACK,
    HELM_VALUES,
    KARPENTER_NODECLASS,
    KARPENTER_NODEOVERLAY,
    KARPENTER_NODEPOOL,
    LIVE_CLUSTER,
    LIVE_NODE,
    METRICS,
    MIG_PARTED_CONFIG,
    MIG_PARTED_HOOKS,
    NVIDIA_DRIVER,
    OBJECT,
    OVERLAY,
    PROFILE,
    QUERIES,
    QUOTA,
    TARGETS,
    USAGE,
    USAGE_POOL,
    WORKLOAD,
)


@dataclass(frozen=True)
class Rule:
    id: str
    severity: str  # error | warning | info
    summary: str
    fix: str
    explanation: str
    source: str
    # check(target, ctx) -> hits. The target is what applies_to names: a Profile (PROFILE), a Subject (a kind of
    # document), or a Documents (OVERLAY: every document of one file or overlay). ctx is the Cluster workloads are
    # checked against, or None.
    check: Callable[..., Iterable[Hit]] | None = None
    applies_to: str = PROFILE
    # False for rules whose findings gengpu cannot compile past (MIG on a GPU without MIG): no reason silences them.
    suppressible: bool = True
    # The roles of the documents it judges (loading/roles.py names them); None: its target's (targets.ROLES).
    roles: tuple[str, ...] | None = None

    @property
    def judges(self) -> tuple[str, ...] | None:
        """The document roles this rule judges; None where it judges no document (profiles, clusters, metrics)."""
        from gengpu.checking.targets import roles_of

        return self.roles if self.roles is not None else roles_of(self.applies_to)


def pool_path(pool, *rest) -> tuple:
    return ("spec", "nodePools", pool.index, *rest)


def gpu_path(pool, i: int) -> tuple:
    """Where the pool's i-th GPU model is written: its gpu, or the i-th entry when gpu is a list."""
    return pool_path(pool, "gpu", i) if len(pool.gpus) > 1 else pool_path(pool, "gpu")


# --- examples ---------------------------------------------------------------------------------------------------
# Beside the rules, examples/<rule id>.yaml holds one example that breaks the rule and a near miss that does not,
# each as files, the gengpu command run on them and every finding it gives (file:line:column rule: message; a path
# in a message is written $TMP/ under the example's folder, $GENGPU/ under gengpu's source). A rule with more than
# one way to fire lists the others under `more:`, each a failing example of its own. The tests run them all;
# `gengpu explain RULE --examples` prints them.

EXAMPLES_DIR = Path(__file__).parent / "examples"
SIDES = ("fails", "passes")


@dataclass(frozen=True)
class Example:
    files: dict  # path -> text (bytes for a file that is not UTF-8)
    findings: list[str]  # "file:line:column rule: message", in gengpu's order
    run: str = "validate case.yaml"  # the gengpu command, without the output options
    env: dict = field(default_factory=dict)  # environment variables the command runs with


def examples(rule_id: str) -> dict[str, Example]:
    """The rule's examples by name: "fails", "passes" (the near miss), then "more-1", "more-2" ... (other ways the
    rule fires)."""
    import yaml

    data = yaml.safe_load((EXAMPLES_DIR / f"{rule_id}.yaml").read_text(encoding="utf-8"))
    found = {side: Example(**data[side]) for side in SIDES}
    found.update({f"more-{n}": Example(**more) for n, more in enumerate(data.get("more") or [], 1)})
    return found
