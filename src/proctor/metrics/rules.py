"""Task rules: flags raised on a trial that changed code, with configurable thresholds."""

from __future__ import annotations

from collections.abc import Sequence

from proctor.models.process import (
    DEFAULT_METRICS_CONFIG,
    RULE_NAMES,
    MetricsConfig,
    ProcessMetrics,
    RuleResult,
)


def _above(rule: str, value: int, limit: int, what: str) -> RuleResult:
    fired = value > limit
    relation = "more than" if fired else "at most"
    return RuleResult(
        rule=rule,
        fired=fired,
        value=value,
        threshold=limit,
        message=f"{value} {what} ({relation} {limit})",
    )


def _unverified(metrics: ProcessMetrics) -> RuleResult:
    fired = metrics.verified is not True
    return RuleResult(
        rule="unverified",
        fired=fired,
        value=metrics.verified,
        threshold=None,
        message=(
            "edited code and no passing check ran after the last edit"
            if fired
            else "a passing check ran after the last edit"
        ),
    )


def evaluate_rules(
    metrics: ProcessMetrics, config: MetricsConfig | None = None
) -> list[RuleResult]:
    """One result per rule, in :data:`RULE_NAMES` order.

    A trial without edits is not a task: every rule comes back not applicable and not fired.
    """
    config = config or DEFAULT_METRICS_CONFIG
    if not metrics.is_task:
        return [
            RuleResult(
                rule=rule,
                fired=False,
                value=None,
                threshold=None,
                message="not a task: the trial made no edit",
                applicable=False,
            )
            for rule in RULE_NAMES
        ]
    return [
        _unverified(metrics),
        _above(
            "long-orientation",
            metrics.orientation.reads_before_first_edit or 0,
            config.long_orientation_max,
            "reads and searches before the first edit",
        ),
        _above("rework", metrics.rework, config.rework_max, "failed checks"),
        _above("loops", metrics.loops, config.loops_max, "loops"),
    ]


def count_rules(results_per_trial: Sequence[Sequence[RuleResult]]) -> dict[str, int]:
    """Trials on which each rule fired, for every rule in :data:`RULE_NAMES` (and any other seen).

    Empty input: every known rule with 0.
    """
    counts = dict.fromkeys(RULE_NAMES, 0)
    for results in results_per_trial:
        for result in results:
            counts[result.rule] = counts.get(result.rule, 0) + int(result.fired)
    return counts
