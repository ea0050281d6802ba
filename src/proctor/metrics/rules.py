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
    fired = value > limit  # as :func:`fired_rules` tells it
    relation = "more than" if fired else "at most"
    return RuleResult(
        rule=rule,
        fired=fired,
        value=value,
        threshold=limit,
        message=f"{value} {what} ({relation} {limit})",
    )


def _unverified_fires(metrics: ProcessMetrics) -> bool:
    return metrics.verified is not True


def _unverified(metrics: ProcessMetrics) -> RuleResult:
    fired = _unverified_fires(metrics)
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
    return [_unverified(metrics), *(_above(*limit) for limit in _limits(metrics, config))]


def _limits(metrics: ProcessMetrics, config: MetricsConfig) -> list[tuple[str, int, int, str]]:
    """The rules with a threshold: (rule, value, threshold, what the value counts)."""
    return [
        (
            "long-orientation",
            metrics.orientation.reads_before_first_edit or 0,
            config.long_orientation_max,
            "reads and searches before the first edit",
        ),
        ("rework", metrics.rework, config.rework_max, "failed checks"),
        ("loops", metrics.loops, config.loops_max, "loops"),
    ]


def fired_rules(metrics: ProcessMetrics, config: MetricsConfig | None = None) -> list[str]:
    """The rules :func:`evaluate_rules` fires, by name and in its order, without building
    their results: a history replay keeps no more of them, for thousands of sessions."""
    if not metrics.is_task:
        return []
    config = config or DEFAULT_METRICS_CONFIG
    fired = ["unverified"] if _unverified_fires(metrics) else []
    fired += [rule for rule, value, limit, _ in _limits(metrics, config) if value > limit]
    return fired


def count_rules(results_per_trial: Sequence[Sequence[RuleResult]]) -> dict[str, int]:
    """Trials on which each rule fired, for every rule in :data:`RULE_NAMES` (and any other seen).

    Empty input: every known rule with 0.
    """
    counts = dict.fromkeys(RULE_NAMES, 0)
    for results in results_per_trial:
        for result in results:
            counts[result.rule] = counts.get(result.rule, 0) + int(result.fired)
    return counts
