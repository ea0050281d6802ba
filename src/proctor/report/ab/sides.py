"""Comparing measures of two sides, metric by metric, and classifying pass/fail outcomes.

Shared by the A/B report (paired: pairs of trials) and the run comparison (unpaired: two sets
of trials). Claims below ``min_samples`` are withheld, as ``proctor.stats.compare_samples`` does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal

from proctor.models.ab import ABSide, MetricComparison
from proctor.stats import CaseVerdict, Comparison, classify_case, compare_samples
from proctor.util.text import plural

__all__ = [
    "METRICS",
    "PASS_RATE",
    "MetricSpec",
    "classify_outcomes",
    "compare_sides",
    "compare_values",
    "metric_comparison",
    "rounded",
]

#: name, measure of a side (None = unknown), higher is better, statistic.
MetricSpec = tuple[str, Callable[[ABSide], float | None], bool, Literal["mean", "median"]]
PASS_RATE: MetricSpec = ("passRate", lambda s: 1.0 if s.passed else 0.0, True, "mean")
METRICS: tuple[MetricSpec, ...] = (
    PASS_RATE,
    ("elapsedSeconds", lambda s: s.elapsed_seconds, False, "median"),
    ("toolCalls", lambda s: float(s.tool_calls), False, "median"),
    ("tokens", lambda s: float(s.tokens), False, "median"),
    ("firstRelevantSeconds", lambda s: s.first_relevant_seconds, False, "median"),
    ("fileHitRate", lambda s: s.file_hit, True, "mean"),
    ("symbolHitRate", lambda s: s.symbol_hit, True, "mean"),
    ("patchInAreaRate", lambda s: s.patch_in_area, True, "mean"),
    ("searchSteps", lambda s: s.search_steps, False, "median"),
    ("wrongContextRate", lambda s: s.wrong_context, False, "mean"),
    ("abandonedRate", lambda s: s.abandoned, False, "mean"),
)


DIGITS = 6
"""Decimals a side's value and a delta are kept to: a microsecond of seconds (trials measure
milliseconds to three decimals), as ``suite.json`` keeps its rates and dollars. A median of two
seconds and a difference of two would otherwise show the float noise of their sum
(``2.0029939999999997``); the interval's bounds are kept as computed."""


def rounded(value: float | None) -> float | None:
    """``value`` to :data:`DIGITS` decimals; None stays None."""
    return None if value is None else round(value, DIGITS)


def metric_comparison(c: Comparison) -> MetricComparison:
    """A :class:`~proctor.stats.Comparison` as the record ``suite.json`` keeps: the sides'
    values to :data:`DIGITS` decimals, and the delta of the values shown (so treatment minus
    baseline reads as the delta, to the last decimal)."""
    treatment, baseline = rounded(c.treatment), rounded(c.baseline)
    delta = rounded(c.delta)
    if treatment is not None and baseline is not None and delta is not None:
        delta = rounded(treatment - baseline)
    return MetricComparison(
        metric=c.metric,
        n_treatment=c.n_treatment,
        n_baseline=c.n_baseline,
        treatment=treatment,
        baseline=baseline,
        delta=delta,
        ci_low=c.ci.low if c.ci else None,
        ci_high=c.ci.high if c.ci else None,
        confidence=c.ci.confidence if c.ci else None,
        verdict=c.verdict,
        note=c.note,
        exact_p=c.exact_p,
    )


def compare_sides(
    treatment: Sequence[ABSide],
    baseline: Sequence[ABSide],
    *,
    paired: bool,
    seed: int,
    min_samples: int,
) -> dict[str, MetricComparison]:
    """One comparison per metric of :data:`METRICS`, keyed by metric name, as ``suite.json``
    keeps it (see :func:`metric_comparison`).

    Paired (``treatment[i]`` with ``baseline[i]``): a pair enters a metric only when both sides
    have the measure. Unpaired: each side contributes the trials that have it. Empty input
    gives "insufficient-data" for every metric. Raises ValueError for paired sides of
    different lengths.
    """
    found = compare_values(treatment, baseline, paired=paired, seed=seed, min_samples=min_samples)
    return {name: metric_comparison(c) for name, c in found.items()}


def compare_values(
    treatment: Sequence[ABSide],
    baseline: Sequence[ABSide],
    *,
    paired: bool,
    seed: int,
    min_samples: int,
    metrics: Sequence[MetricSpec] | None = None,
) -> dict[str, Comparison]:
    """:func:`compare_sides`'s comparisons as computed, none of their values rounded, for
    ``metrics`` (by default all of :data:`METRICS`)."""
    if paired and len(treatment) != len(baseline):
        raise ValueError(f"paired sides differ in length: {len(treatment)} vs {len(baseline)}")
    result: dict[str, Comparison] = {}
    for name, measure, higher_is_better, statistic in METRICS if metrics is None else metrics:
        t_values = [measure(side) for side in treatment]
        b_values = [measure(side) for side in baseline]
        if paired:
            kept = [
                (t, b)
                for t, b in zip(t_values, b_values, strict=True)
                if t is not None and b is not None
            ]
            t_kept, b_kept = [t for t, _ in kept], [b for _, b in kept]
        else:
            t_kept = [t for t in t_values if t is not None]
            b_kept = [b for b in b_values if b is not None]
        result[name] = compare_samples(
            name,
            t_kept,
            b_kept,
            higher_is_better=higher_is_better,
            statistic=statistic,
            min_samples=min_samples,
            seed=seed,
            paired=paired,
        )
    return result


def classify_outcomes(
    treatment: Sequence[bool],
    baseline: Sequence[bool],
    min_samples: int,
    unit: str,
    where: str = "",
) -> tuple[CaseVerdict, str]:
    """``classify_case`` with a note for people.

    "insufficient-data" when the smaller side has fewer than ``min_samples`` outcomes (always
    for an empty side); ``unit`` names what was counted in that note, in the singular
    ("complete pair": "1 complete pair", "2 complete pairs"), and ``where`` follows it
    (" on the smaller side").
    """
    n = min(len(treatment), len(baseline))
    if n < min_samples:
        return "insufficient-data", (
            f"{plural(n, unit)}{where}: fewer than {plural(min_samples, 'sample')}, no claim."
        )
    verdict = classify_case(treatment, baseline)
    return verdict, (
        f"{sum(treatment)}/{len(treatment)} vs {sum(baseline)}/{len(baseline)} passed: {verdict}."
    )
