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


def _unverified(metrics: ProcessMetrics) -> RuleResult:
    fired = metrics.verified is not True  # as :func:`task_rules_fired` tells it
    return RuleResult(
        rule="unverified",
        fired=fired,
        value=metrics.verified,
        threshold=None,
        message=(
            "edited code and no passing check ran after the last edit that changed it"
            if fired
            else "a passing check ran after the last edit that changed code"
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
                message="not a task: the trial changed no code",
                applicable=False,
            )
            for rule in RULE_NAMES
        ]
    limits = _limits(
        metrics.orientation.reads_before_first_edit, metrics.rework, metrics.loops, config
    )
    return [_unverified(metrics), *(_above(*limit) for limit in limits)]


def _limits(
    reads_before_first_edit: int | None, rework: int, loops: int, config: MetricsConfig
) -> list[tuple[str, int, int, str]]:
    """The rules with a threshold: (rule, value, threshold, what the value counts)."""
    return [
        (
            "long-orientation",
            reads_before_first_edit or 0,
            config.long_orientation_max,
            "reads and searches before the first edit",
        ),
        ("rework", rework, config.rework_max, "failed checks"),
        ("loops", loops, config.loops_max, "loops"),
    ]


def fired_rules(metrics: ProcessMetrics, config: MetricsConfig | None = None) -> list[str]:
    """The rules :func:`evaluate_rules` fires, by name and in its order, without building
    their results: a history replay keeps no more of them, for thousands of sessions."""
    if not metrics.is_task:
        return []
    return task_rules_fired(
        metrics.verified,
        metrics.orientation.reads_before_first_edit,
        metrics.rework,
        metrics.loops,
        config,
    )


def task_rules_fired(
    verified: bool | None,
    reads_before_first_edit: int | None,
    rework: int,
    loops: int,
    config: MetricsConfig | None = None,
) -> list[str]:
    """:func:`fired_rules` of a task from the figures the rules read."""
    limits = _limits(reads_before_first_edit, rework, loops, config or DEFAULT_METRICS_CONFIG)
    fired = ["unverified"] if verified is not True else []
    fired += [rule for rule, value, limit, _ in limits if value > limit]
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
