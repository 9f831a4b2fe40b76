"""Rule templates: one logic, parameters from gengpu's data tables (kube-linter's templates, in small).

ReplicasLimit: a pool's sharing.replicas (a MIG pool's sharing.mig.replicas: clients of each MIG device) against a
maximum that a data table gives per pool.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from gengpu.checking.rules.base import Hit, Rule, pool_path

# (limit, what the limit is, as the message names it) for a pool, or None where the rule does not apply
Limit = Callable[[object, object], "tuple[int, str] | None"]


@dataclass(frozen=True)
class ReplicasLimit:
    """The check of a replicas-limit rule (a class, not a closure, so each call runs the current code)."""

    limit: Limit

    def __call__(self, profile, ctx=None):
        for pool in profile.node_pools:
            found = self.limit(profile, pool)
            if not found:
                continue
            mig = pool.sharing.mode == "mig"
            field = ("sharing", "mig", "replicas") if mig else ("sharing", "replicas")
            replicas = pool.sharing.mig_replicas if mig else pool.sharing.replicas
            if replicas is not None and replicas > found[0]:
                yield Hit(pool_path(pool, *field),
                          f"nodePools[{pool.index}].{'.'.join(field)} is {replicas}; {found[1]} at most {found[0]} "
                          "clients per GPU")


def replicas_limit(*, id: str, severity: str, summary: str, fix: str, explanation: str, source: str,
                   limit: Limit) -> Rule:
    return Rule(id=id, severity=severity, summary=summary, fix=fix, explanation=explanation, source=source,
                check=ReplicasLimit(limit))
