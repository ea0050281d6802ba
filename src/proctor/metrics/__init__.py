"""Process metrics and task rules: pure functions over a trial's normalised events. What they
produce (and the settings they take) are models in :mod:`proctor.models.process`."""

from proctor.metrics.config import check_commands, is_check
from proctor.metrics.process import compute_process_metrics
from proctor.metrics.rules import count_rules, evaluate_rules, fired_rules
from proctor.metrics.trace import normalise_path
from proctor.models.process import (
    DEFAULT_CHECK_PATTERNS,
    DEFAULT_CHECK_TOOLS,
    RULE_NAMES,
    CheckOutcome,
    CheckRun,
    ContextBasis,
    ContextMetrics,
    Effort,
    LoopInstance,
    MetricsConfig,
    Orientation,
    ProcessMetrics,
    RuleResult,
    StepCounts,
    TraceMetrics,
    check_pattern,
)

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
    "ProcessMetrics",
    "RuleResult",
    "StepCounts",
    "TraceMetrics",
    "check_commands",
    "check_pattern",
    "compute_process_metrics",
    "count_rules",
    "evaluate_rules",
    "fired_rules",
    "is_check",
    "normalise_path",
]
