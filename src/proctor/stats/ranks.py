"""Exact rank tests of two samples of a measure: the sign test of pairs, the rank-sum test of
two independent samples. Exact counts, no large-sample approximation: they are the tests a
claim from few samples needs."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import groupby
from math import comb

from proctor.stats.rates import mcnemar_exact_p

__all__ = ["RANK_SUM_MOST", "rank_sum_direction", "rank_sum_exact_p", "sign_test_p"]

RANK_SUM_MOST = 60
"""The most values, both sides together, :func:`rank_sum_exact_p` counts through: its count
grows fast (a hundredth of a second at 60, a tenth at 100, seconds at 200), and a report
compares every group on several measures."""


def sign_test_p(first: Sequence[float], second: Sequence[float]) -> tuple[float, int, int]:
    """The exact sign test of paired values, two-sided, and its counts: the pairs where the
    first is higher and where it is lower (pairs alike do not count), each way 1/2 under no
    difference, as McNemar's test of outcomes (:func:`mcnemar_exact_p`): all of 3 pairs one
    way give 0.25, of 6 0.03125. The counts give its direction: the first higher in more pairs
    than lower, or lower. Raises ValueError for unequal lengths."""
    if len(first) != len(second):
        raise ValueError(f"paired values need equal lengths, got {len(first)} and {len(second)}")
    higher = sum(a > b for a, b in zip(first, second, strict=True))
    lower = sum(a < b for a, b in zip(first, second, strict=True))
    return mcnemar_exact_p(higher, lower), higher, lower


def rank_sum_exact_p(first: Sequence[float], second: Sequence[float]) -> float:
    """The Wilcoxon-Mann-Whitney rank-sum test of two independent samples, exact and
    two-sided, ties given their mean rank: the share of the C(n1 + n2, n1) ways to split the
    pooled values into sides of n1 and n2 whose first side's rank sum lies at least as far from
    its mean, n1 (n1 + n2 + 1) / 2, as the one observed. The two sides wholly apart give
    2 / C(n1 + n2, n1): 0.1 for 3 against 3, 0.029 for 4 against 4. 1.0 when a side is empty
    or every value is alike. Raises ValueError for more than :data:`RANK_SUM_MOST` values."""
    n1, n2 = len(first), len(second)
    if n1 + n2 > RANK_SUM_MOST:
        raise ValueError(f"at most {RANK_SUM_MOST} values in all, got {n1 + n2}")
    if n1 == 0 or n2 == 0:
        return 1.0
    # Each run of tied values as (how many, their mean rank doubled: an integer).
    runs: list[tuple[float, int, int]] = []
    start = 0
    for value, tied in groupby(sorted([*first, *second])):
        m = len(list(tied))
        runs.append((value, m, 2 * start + m + 1))
        start += m
    doubled = {value: rank for value, _, rank in runs}
    observed = sum(doubled[value] for value in first)
    centre = n1 * (n1 + n2 + 1)
    # ways[j]: the ways to pick j values by their doubled rank sum, one `width`-bit slot per
    # sum (a count of C(n1 + n2, j) fits) packed into one integer: adding a run of m tied
    # values of doubled rank r adds C(m, c) ways of picking c of them, each c · r more.
    width = 8 * ((n1 + n2) // 8 + 1)
    ways = [1] + [0] * n1
    for _, m, rank in runs:
        grown = list(ways)
        for c in range(1, min(m, n1) + 1):
            weight, shift = comb(m, c), c * rank * width
            for j in range(c, n1 + 1):
                if ways[j - c]:
                    grown[j] += (ways[j - c] * weight) << shift
        ways = grown
    packed = ways[n1].to_bytes((ways[n1].bit_length() + 7) // 8 or 1, "little")
    step = width // 8
    far = abs(observed - centre)
    extreme = sum(
        int.from_bytes(packed[i : i + step], "little")
        for i in range(0, len(packed), step)
        if abs(i // step - centre) >= far
    )
    return min(1.0, extreme / comb(n1 + n2, n1))


def rank_sum_direction(first: Sequence[float], second: Sequence[float]) -> int:
    """The direction of the rank-sum test (:func:`rank_sum_exact_p`): 1 when the first
    sample's rank sum, ties at their mean rank, lies above its mean under no difference, n1
    (n1 + n2 + 1) / 2 (the first ranked higher), -1 below it, 0 at it or when a side is
    empty. [1, 2, 3] against [4, 5, 6] is -1."""
    n1, n2 = len(first), len(second)
    if n1 == 0 or n2 == 0:
        return 0
    doubled: dict[float, int] = {}
    start = 0
    for value, tied in groupby(sorted([*first, *second])):
        m = len(list(tied))
        doubled[value] = 2 * start + m + 1
        start += m
    away = sum(doubled[value] for value in first) - n1 * (n1 + n2 + 1)
    return (away > 0) - (away < 0)
