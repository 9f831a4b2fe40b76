"""The rule catalogue: one module per rule, listed here in a fixed order."""

from gengpu.checking.rules import (
    driver_already_preinstalled,
    duplicate_pool_name,
    mig_layout_invalid,
    mig_requires_capable_gpu,
    mig_single_not_uniform,
    mig_strategy_conflict,
    mps_operator_too_old,
    mps_replicas_over_limit,
    mps_with_mixed_strategy,
    operator_unsupported_platform,
    unknown_gpu_model,
)
from gengpu.checking.rules.base import Hit, Rule

_MODULES = (
    unknown_gpu_model,
    duplicate_pool_name,
    operator_unsupported_platform,
    driver_already_preinstalled,
    mig_requires_capable_gpu,
    mig_layout_invalid,
    mig_single_not_uniform,
    mig_strategy_conflict,
    mps_with_mixed_strategy,
    mps_replicas_over_limit,
    mps_operator_too_old,
)

RULES: dict[str, Rule] = {m.RULE.id: m.RULE for m in _MODULES}

__all__ = ["RULES", "Hit", "Rule"]
