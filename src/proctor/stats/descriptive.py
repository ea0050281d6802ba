"""Descriptive statistics over plain lists of numbers."""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass

__all__ = ["Summary", "mean", "median", "statistic_named", "strict_median", "summarize"]


@dataclass(frozen=True)
class Summary:
    """Count, range, centre and spread of a sample; fields are None when undefined."""

    n: int
    min: float | None
    max: float | None
    mean: float | None
    median: float | None
    stddev: float | None


def mean(values: Sequence[float]) -> float:
    """Arithmetic mean, kept inside [min, max] so a constant list yields that constant exactly.

    Raises ValueError for empty input, because it is the statistic the bootstrap
    resamples and has no meaningful value there; use `summarize` for a None-safe mean.
    """
    if not values:
        raise ValueError("mean of an empty sequence is undefined")
    raw = math.fsum(values) / len(values)
    return float(min(max(raw, min(values)), max(values)))


def median(values: Sequence[float]) -> float | None:
    """Middle value (mean of the two middle values for even n); None for empty input."""
    if not values:
        return None
    ordered = sorted(values)
    mid = len(ordered) // 2
    if len(ordered) % 2:
        return float(ordered[mid])
    return (ordered[mid - 1] + ordered[mid]) / 2


def strict_median(values: Sequence[float]) -> float:
    """`median` usable as a bootstrap statistic: raises ValueError on empty input, not None."""
    result = median(values)
    if result is None:
        raise ValueError("median of an empty sequence is undefined")
    return result


def statistic_named(name: str) -> Callable[[Sequence[float]], float]:
    """The statistic a metric is compared by, from its name: ``"mean"`` is `mean`, ``"median"``
    is `strict_median` (both raise ValueError on empty input, so they can be bootstrapped).

    Raises ValueError for any other name.

        statistic_named("median")([3.0, 1.0, 2.0])  # 2.0
    """
    if name == "mean":
        return mean
    if name == "median":
        return strict_median
    raise ValueError(f"statistic must be 'mean' or 'median', got {name!r}")


def summarize(values: Sequence[float]) -> Summary:
    """Summary of `values` with the sample (n-1) standard deviation.

    Empty input gives n=0 and every other field None; a single value gives
    min = max = mean = median = that value and stddev None (undefined for n < 2).
    """
    n = len(values)
    if n == 0:
        return Summary(n=0, min=None, max=None, mean=None, median=None, stddev=None)
    return Summary(
        n=n,
        min=float(min(values)),
        max=float(max(values)),
        mean=mean(values),
        median=median(values),
        stddev=float(statistics.stdev(values)) if n >= 2 else None,
    )
