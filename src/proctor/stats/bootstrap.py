"""Seeded percentile-bootstrap confidence intervals, for one sample and for deltas."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from proctor.stats.descriptive import mean
from proctor.util.text import without_noise

__all__ = [
    "Interval",
    "Statistic",
    "bootstrap_ci",
    "bootstrap_pass_rate_ci",
    "paired_bootstrap_delta_ci",
    "unpaired_bootstrap_delta_ci",
]

Statistic = Callable[[Sequence[float]], float]


@dataclass(frozen=True)
class Interval:
    """Closed interval [low, high] estimated at the given confidence level (e.g. 0.95)."""

    low: float
    high: float
    confidence: float

    def contains(self, value: float) -> bool:
        """Whether `value` lies in [low, high], endpoints included."""
        return self.low <= value <= self.high


def _check_settings(resamples: int, confidence: float) -> None:
    if resamples < 1:
        raise ValueError(f"resamples must be >= 1, got {resamples}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")


def _quantile_sorted(ordered: Sequence[float], q: float) -> float:
    """Linearly interpolated quantile (numpy's default) of an already sorted, non-empty list."""
    position = (len(ordered) - 1) * q
    below = math.floor(position)
    fraction = position - below
    if fraction == 0.0 or below + 1 >= len(ordered):
        return float(ordered[below])
    low, high = ordered[below], ordered[below + 1]
    # Without the noise of the position's own rounding (1999 x 0.025 is not 49.975 in binary).
    return without_noise(min(max(low + (high - low) * fraction, low), high))


def _constant(values: Sequence[float]) -> bool:
    """Whether every value is the same: then every resample is the sample itself, and the
    interval is the statistic's point value, exactly, without resampling (a group whose every
    trial passed, say)."""
    first = values[0]
    return all(value == first for value in values)


def _percentile_interval(estimates: list[float], confidence: float) -> Interval:
    estimates.sort()
    tail = (1.0 - confidence) / 2.0
    return Interval(
        low=_quantile_sorted(estimates, tail),
        high=_quantile_sorted(estimates, 1.0 - tail),
        confidence=confidence,
    )


def bootstrap_ci(
    values: Sequence[float],
    statistic: Statistic = mean,
    *,
    resamples: int = 2000,
    confidence: float = 0.95,
    seed: int = 0,
) -> Interval | None:
    """Percentile-bootstrap CI of `statistic`, reproducible for a given `seed`.

    None for empty input; for a single value the interval collapses to statistic([value]).
    Raises ValueError unless resamples >= 1 and 0 < confidence < 1.
    """
    _check_settings(resamples, confidence)
    if not values:
        return None
    if len(values) == 1 or _constant(values):
        point = statistic(values)
        return Interval(low=point, high=point, confidence=confidence)
    rng = random.Random(seed)
    n = len(values)
    estimates = [statistic(rng.choices(values, k=n)) for _ in range(resamples)]
    return _percentile_interval(estimates, confidence)


def bootstrap_pass_rate_ci(
    outcomes: Sequence[bool],
    *,
    resamples: int = 2000,
    confidence: float = 0.95,
    seed: int = 0,
) -> Interval | None:
    """Percentile-bootstrap CI of the pass rate of pass/fail outcomes; None for empty input.

    All-pass or all-fail outcomes give the point interval [1, 1] or [0, 0].
    """
    return bootstrap_ci(
        [1.0 if outcome else 0.0 for outcome in outcomes],
        mean,
        resamples=resamples,
        confidence=confidence,
        seed=seed,
    )


def paired_bootstrap_delta_ci(
    treatment: Sequence[float],
    baseline: Sequence[float],
    *,
    statistic: Statistic = mean,
    resamples: int = 2000,
    confidence: float = 0.95,
    seed: int = 0,
) -> Interval | None:
    """CI of statistic(treatment) - statistic(baseline), resampling pair indices together.

    Pairing keeps per-case difficulty out of the delta's noise. Raises ValueError when
    the lengths differ; None for empty input; a single pair gives a point interval.
    """
    if len(treatment) != len(baseline):
        raise ValueError(
            f"paired samples need equal lengths, got {len(treatment)} and {len(baseline)}"
        )
    _check_settings(resamples, confidence)
    if not treatment:
        return None
    n = len(treatment)
    if n == 1 or (_constant(treatment) and _constant(baseline)):
        point = statistic(treatment) - statistic(baseline)
        return Interval(low=point, high=point, confidence=confidence)
    rng = random.Random(seed)
    indices = range(n)
    estimates: list[float] = []
    for _ in range(resamples):
        picks = rng.choices(indices, k=n)
        estimates.append(
            statistic([treatment[i] for i in picks]) - statistic([baseline[i] for i in picks])
        )
    return _percentile_interval(estimates, confidence)


def unpaired_bootstrap_delta_ci(
    treatment: Sequence[float],
    baseline: Sequence[float],
    *,
    statistic: Statistic = mean,
    resamples: int = 2000,
    confidence: float = 0.95,
    seed: int = 0,
) -> Interval | None:
    """CI of statistic(treatment) - statistic(baseline), resampling each side independently.

    None if either side is empty; one value on each side gives a point interval.
    """
    _check_settings(resamples, confidence)
    if not treatment or not baseline:
        return None
    if _constant(treatment) and _constant(baseline):
        point = statistic(treatment) - statistic(baseline)
        return Interval(low=point, high=point, confidence=confidence)
    rng = random.Random(seed)
    n_t, n_b = len(treatment), len(baseline)
    estimates = [
        statistic(rng.choices(treatment, k=n_t)) - statistic(rng.choices(baseline, k=n_b))
        for _ in range(resamples)
    ]
    return _percentile_interval(estimates, confidence)
