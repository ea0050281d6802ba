"""Process metrics and task rules: pure functions over a trial's normalised events."""

from proctor.metrics.config import (
    DEFAULT_CHECK_PATTERNS,
    DEFAULT_CHECK_TOOLS,
    MetricsConfig,
    check_pattern,
)
from proctor.metrics.effort import Pricing
from proctor.metrics.process import compute_process_metrics
from proctor.metrics.results import (
    CheckRun,
    ContextBasis,
    ContextMetrics,
    Effort,
    LoopInstance,
    Orientation,
    ProcessMetrics,
    StepCounts,
)
from proctor.metrics.rules import RULE_NAMES, RuleResult, count_rules, evaluate_rules
from proctor.metrics.trace import CheckOutcome, normalise_path

__all__ = [
    "DEFAULT_CHECK_PATTERNS",
    "DEFAULT_CHECK_TOOLS",
    "RULE_NAMES",
    "CheckOutcome",
    "CheckRun",
    "ContextBasis",
    "ContextMetrics",
    "Effort",
    "LoopInstance",
    "MetricsConfig",
    "Orientation",
    "Pricing",
    "ProcessMetrics",
    "RuleResult",
    "StepCounts",
    "check_pattern",
    "compute_process_metrics",
    "count_rules",
    "evaluate_rules",
    "normalise_path",
]
