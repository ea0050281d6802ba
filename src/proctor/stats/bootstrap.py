"""Seeded percentile-bootstrap confidence intervals, for one sample and for deltas.

A delta's interval, and a mean's (:func:`expanded_bootstrap_ci`), is Hesterberg's *expanded*
percentile interval: its tails are taken at ``Φ(−√(n/(n−1)) · t₍₁₋α/₂, n−1₎)`` rather than at
α/2, n the sample's size (for a delta, the smaller side's, or the pairs'), which widens it at
small n as a t interval widens; the plain percentile interval covers the true value far less
often than it says with a handful of samples (three to eight).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from statistics import NormalDist

from proctor.stats.descriptive import mean
from proctor.util.text import without_noise

__all__ = [
    "Interval",
    "Statistic",
    "bootstrap_ci",
    "bootstrap_pass_rate_ci",
    "expanded_bootstrap_ci",
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


def _percentile_interval(
    estimates: list[float], confidence: float, tail: float | None = None
) -> Interval:
    estimates.sort()
    tail = (1.0 - confidence) / 2.0 if tail is None else tail
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
    return _one_sample(values, statistic, resamples, confidence, seed, expanded=False)


def expanded_bootstrap_ci(
    values: Sequence[float],
    statistic: Statistic = mean,
    *,
    resamples: int = 2000,
    confidence: float = 0.95,
    seed: int = 0,
) -> Interval | None:
    """The expanded percentile-bootstrap CI of `statistic` (see the module docstring),
    reproducible for a given `seed`: what a group's mean score is shown with.

    None for fewer than two values: one value says nothing of the spread, and an interval
    that is that value alone would read as certainty. Values all the same give that value
    (every resample is the sample itself). Raises ValueError unless resamples >= 1 and
    0 < confidence < 1.
    """
    _check_settings(resamples, confidence)
    if len(values) < 2:
        return None
    return _one_sample(values, statistic, resamples, confidence, seed, expanded=True)


def _one_sample(
    values: Sequence[float],
    statistic: Statistic,
    resamples: int,
    confidence: float,
    seed: int,
    *,
    expanded: bool,
) -> Interval:
    """The percentile interval of ``statistic`` over ``resamples`` resamples of ``values``
    (with ``expanded``, its tails taken as :func:`expanded_tail` says); one value, or values
    all the same, give that value without resampling."""
    if len(values) == 1 or _constant(values):
        point = statistic(values)
        return Interval(low=point, high=point, confidence=confidence)
    rng = random.Random(seed)
    n = len(values)
    estimates = [statistic(rng.choices(values, k=n)) for _ in range(resamples)]
    tail = expanded_tail(n, confidence) if expanded else None
    return _percentile_interval(estimates, confidence, tail)


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
    return _percentile_interval(estimates, confidence, expanded_tail(n, confidence))


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
    return _percentile_interval(estimates, confidence, expanded_tail(min(n_t, n_b), confidence))


def expanded_tail(n: int, confidence: float) -> float:
    """The share of resampled estimates left out at each end of an expanded percentile
    interval of ``n`` samples (see the module docstring); the plain (1 − confidence) / 2
    from two samples down, where there is no t distribution to take it from."""
    tail = (1.0 - confidence) / 2.0
    if n < 2:
        return tail
    widened = math.sqrt(n / (n - 1)) * t_quantile(1.0 - tail, n - 1)
    return NormalDist().cdf(-widened)


def t_quantile(p: float, df: int) -> float:
    """The ``p`` quantile (0.5 ≤ p < 1) of Student's t distribution with ``df`` degrees of
    freedom, found by bisection on its distribution function."""
    low, high = 0.0, 1.0
    while _t_cdf(high, df) < p:
        high *= 2.0
    for _ in range(200):
        middle = (low + high) / 2.0
        if _t_cdf(middle, df) < p:
            low = middle
        else:
            high = middle
        if high - low <= 1e-12 * high:
            break
    return (low + high) / 2.0


def _t_cdf(t: float, df: int) -> float:
    """Student's t distribution function at ``t`` ≥ 0: 1 − I_x(df/2, 1/2) / 2 with
    x = df / (df + t²), I the regularized incomplete beta function."""
    return 1.0 - 0.5 * _incomplete_beta(df / (df + t * t), df / 2.0, 0.5)


def _incomplete_beta(x: float, a: float, b: float) -> float:
    """The regularized incomplete beta function I_x(a, b), by its continued fraction
    (evaluated with the modified Lentz method; on the side where it converges fast)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = (
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    if x > (a + 1.0) / (a + b + 2.0):
        return 1.0 - _incomplete_beta(1.0 - x, b, a)
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    fraction = d
    for m in range(1, 500):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            fraction *= c * d
        if abs(c * d - 1.0) < 1e-15:
            break
    return math.exp(log_front) * fraction / a
