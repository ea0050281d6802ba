"""Pass rates and pass@k / pass^k estimators for repeated trials of one case."""

from __future__ import annotations

from collections.abc import Iterator
from math import comb, sqrt
from statistics import NormalDist
from typing import Literal

__all__ = [
    "Stability",
    "fisher_exact_p",
    "mcnemar_exact_p",
    "pass_at_k",
    "pass_at_k_table",
    "pass_hat_k",
    "pass_hat_k_table",
    "pass_rate",
    "stability",
    "wilson_delta_interval",
    "wilson_interval",
    "wilson_paired_delta_interval",
]

Stability = Literal["stable-pass", "stable-fail", "flaky", "no-data"]


def _check_counts(passes: int, n: int) -> None:
    if n < 0 or passes < 0:
        raise ValueError(f"counts must be non-negative, got passes={passes}, n={n}")
    if passes > n:
        raise ValueError(f"passes ({passes}) exceeds trials ({n})")


def _check_k(n: int, c: int, k: int) -> None:
    _check_counts(c, n)
    if not 1 <= k <= n:
        raise ValueError(f"k must satisfy 1 <= k <= n, got k={k}, n={n}")


def pass_rate(passes: int, n: int) -> float | None:
    """Fraction of trials that passed; None when n == 0.

    Raises ValueError for negative counts or passes > n, which signal a counting bug.
    """
    _check_counts(passes, n)
    if n == 0:
        return None
    return passes / n


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k: chance that k of the n trials, drawn without replacement, include a pass.

    Computed as (C(n, k) - C(n-c, k)) / C(n, k) in exact integers; 0.0 when c == 0 and
    1.0 when n - c < k. Raises ValueError if k < 1, k > n (so always for n == 0), c > n,
    or a count is negative.
    """
    _check_k(n, c, k)
    total = comb(n, k)
    return (total - comb(n - c, k)) / total


def pass_hat_k(n: int, c: int, k: int) -> float:
    """Unbiased pass^k, the chance that k independent runs all pass: C(c, k) / C(n, k).

    Equals the share of k-subsets of the n trials that are all passes; 0.0 when c < k and
    1.0 when c == n. Raises ValueError under the same conditions as `pass_at_k`.
    """
    _check_k(n, c, k)
    return comb(c, k) / comb(n, k)


def _subset_ratios(n: int, m: int) -> Iterator[float]:
    """C(m, k) / C(n, k) for k = 1..n, in O(n): each is the one before times (m-k+1)/(n-k+1).

    The exact binomials of every k cost O(n^2) big-integer work (16 s for n = 10,000); the
    running product agrees with them to within about k ulps, far below the six decimals the
    tables keep, and reaches exactly 0 at the first k > m.
    """
    ratio = 1.0
    for k in range(1, n + 1):
        ratio *= (m - k + 1) / (n - k + 1) if m >= k else 0.0
        yield ratio


def pass_at_k_table(n: int, c: int) -> dict[int, float]:
    """`pass_at_k(n, c, k)` for every k in 1..n; empty dict when n == 0."""
    _check_counts(c, n)
    if c == 0:
        return dict.fromkeys(range(1, n + 1), 0.0)
    return {k: 1.0 - q for k, q in enumerate(_subset_ratios(n, n - c), start=1)}


def pass_hat_k_table(n: int, c: int) -> dict[int, float]:
    """`pass_hat_k(n, c, k)` for every k in 1..n; empty dict when n == 0."""
    _check_counts(c, n)
    return dict(enumerate(_subset_ratios(n, c), start=1))


def stability(passes: int, n: int) -> Stability:
    """Classify repeated outcomes as "stable-pass", "stable-fail", "flaky" or "no-data" (n == 0).

    Raises ValueError for negative counts or passes > n.
    """
    _check_counts(passes, n)
    if n == 0:
        return "no-data"
    if passes == n:
        return "stable-pass"
    if passes == 0:
        return "stable-fail"
    return "flaky"


def _z(confidence: float) -> float:
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    return NormalDist().inv_cdf(0.5 + confidence / 2)


def wilson_interval(
    successes: int, n: int, *, confidence: float = 0.95
) -> tuple[float, float] | None:
    """Wilson's score interval of a proportion, ``successes`` of ``n``; None when n == 0.

    Unlike a percentile bootstrap of the 0/1 outcomes, it never shrinks to a point: three
    successes of three give [0.44, 1], not [1, 1]. Raises ValueError for counts as
    :func:`pass_rate` does.
    """
    _check_counts(successes, n)
    if n == 0:
        return None
    z = _z(confidence)
    share, z2 = successes / n, z * z
    centre = (share + z2 / (2 * n)) / (1 + z2 / n)
    half = z * sqrt(share * (1 - share) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    # Exact at the ends: 0 of n starts at 0, n of n ends at 1 (the formula's rounding aside).
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return low, high


def wilson_delta_interval(
    after: tuple[int, int], before: tuple[int, int], *, confidence: float = 0.95
) -> tuple[float, float] | None:
    """Newcombe's hybrid score interval of the difference of two independent proportions,
    ``after`` minus ``before``, each given as (successes, n): built from the two Wilson
    intervals, it stays inside [-1, 1] and does not shrink to a point when both sides are all
    successes (or all failures). None when either side has no trial."""
    first, second = (
        wilson_interval(*after, confidence=confidence),
        wilson_interval(*before, confidence=confidence),
    )
    if first is None or second is None:
        return None
    p1, p2 = after[0] / after[1], before[0] / before[1]
    (l1, u1), (l2, u2) = first, second
    delta = p1 - p2
    low = delta - sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    high = delta + sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    return max(-1.0, low), min(1.0, high)


def wilson_paired_delta_interval(
    both: int, first_only: int, second_only: int, neither: int, *, confidence: float = 0.95
) -> tuple[float, float] | None:
    """Newcombe's square-and-add interval (his method 10, 1998) of the difference of two paired
    proportions, first minus second, from the four counts of the pairs: both succeeded, only
    the first, only the second, neither. Built from the Wilson interval of each side and the
    correlation of the pairs, it widens with few pairs as an unpaired score interval does:
    three pairs that all succeeded on both sides give [-0.56, +0.56], where a bootstrap of the
    pairs gives [0, 0]. None when there is no pair."""
    for count in (both, first_only, second_only, neither):
        if count < 0:
            raise ValueError(f"counts must be non-negative, got {count}")
    n = both + first_only + second_only + neither
    if n == 0:
        return None
    first_n, second_n = both + first_only, both + second_only
    first = wilson_interval(first_n, n, confidence=confidence)
    second = wilson_interval(second_n, n, confidence=confidence)
    assert first is not None and second is not None  # n > 0
    (l1, u1), (l2, u2) = first, second
    p1, p2 = first_n / n, second_n / n
    # phi: the pairs' correlation, with Newcombe's correction (none when a margin is empty).
    margins = first_n * (n - first_n) * second_n * (n - second_n)
    phi = 0.0
    if margins > 0:
        cross = both * neither - first_only * second_only
        if cross > n / 2:
            phi = (cross - n / 2) / sqrt(margins)
        elif cross < 0:
            phi = cross / sqrt(margins)
    delta = p1 - p2
    down = (p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2
    up = (u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2
    return max(-1.0, delta - sqrt(max(down, 0.0))), min(1.0, delta + sqrt(max(up, 0.0)))


def mcnemar_exact_p(first_only: int, second_only: int) -> float:
    """McNemar's exact test of two paired proportions, two-sided: the sign test of the
    discordant pairs (only the first succeeded, only the second), each side 1/2 under no
    difference. p = min(1, 2 · P(X ≤ min(first_only, second_only))), X ~ Binomial(m, 1/2),
    m the discordant pairs: 3 of 3 one way give 0.25, 5 of 5 0.0625, 6 of 6 0.03125; 1.0
    with no discordant pair. Raises ValueError for a negative count."""
    for count in (first_only, second_only):
        if count < 0:
            raise ValueError(f"counts must be non-negative, got {count}")
    m = first_only + second_only
    tail = sum(comb(m, i) for i in range(min(first_only, second_only) + 1))
    return min(1.0, 2 * tail / (1 << m))


def fisher_exact_p(after: tuple[int, int], before: tuple[int, int]) -> float:
    """Fisher's exact test of two independent proportions, two-sided, each given as
    (successes, n): the sum of the probabilities, the margins fixed, of every table no more
    likely than the one observed (as R's ``fisher.test`` and SciPy's sum them). 3/3 against
    0/3 give 0.1; 1.0 when a side has no trial or no outcome differs. Raises ValueError for
    counts as :func:`pass_rate` does."""
    _check_counts(*after)
    _check_counts(*before)
    (x, n1), (y, n2) = after, before
    total, successes = n1 + n2, x + y
    if n1 == 0 or n2 == 0:
        return 1.0
    # Each table's weight C(n1, k) · C(n2, successes - k), in exact integers.
    weights = [comb(n1, k) * comb(n2, successes - k) for k in range(successes + 1)]
    seen = weights[x]
    extreme = sum(w for w in weights if w <= seen)
    return min(1.0, extreme / comb(total, successes))
