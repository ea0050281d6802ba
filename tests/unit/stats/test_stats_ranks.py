"""Exact rank tests: the sign test of pairs, the rank-sum test of two independent samples."""

from __future__ import annotations

import itertools
import random

import pytest

from proctor.stats.ranks import (
    RANK_SUM_MOST,
    rank_sum_direction,
    rank_sum_exact_p,
    sign_test_p,
)


def _rank_sum_by_hand(first: list[float], second: list[float]) -> float:
    """Every split of the pooled values counted one by one, ties at their mean rank."""
    pooled = sorted(first + second)
    rank = {v: sum(i + 1 for i, x in enumerate(pooled) if x == v) / pooled.count(v) for v in pooled}
    values = first + second
    centre = len(first) * (len(values) + 1) / 2
    far = abs(sum(rank[v] for v in first) - centre)
    splits = list(itertools.combinations(range(len(values)), len(first)))
    extreme = sum(abs(sum(rank[values[i]] for i in s) - centre) >= far - 1e-9 for s in splits)
    return extreme / len(splits)


def test_the_rank_sum_test_counts_every_split_as_by_hand() -> None:
    rng = random.Random(3)
    for _ in range(150):
        first = [float(rng.randint(0, 4)) for _ in range(rng.randint(1, 6))]
        second = [float(rng.randint(0, 4)) for _ in range(rng.randint(1, 6))]
        assert rank_sum_exact_p(first, second) == pytest.approx(
            _rank_sum_by_hand(first, second), abs=1e-12
        )


def test_the_rank_sum_test_of_sides_wholly_apart() -> None:
    assert rank_sum_exact_p([1.0] * 3, [0.0] * 3) == pytest.approx(0.1)
    assert rank_sum_exact_p([1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]) == pytest.approx(2 / 70)
    assert rank_sum_exact_p([], [1.0]) == 1.0 and rank_sum_exact_p([1.0] * 3, [1.0] * 3) == 1.0
    with pytest.raises(ValueError, match=f"at most {RANK_SUM_MOST} values"):
        rank_sum_exact_p([0.0] * RANK_SUM_MOST, [1.0])


def test_the_sign_test_counts_the_pairs_that_differ() -> None:
    assert sign_test_p([2.0, 2.0, 2.0], [1.0, 1.0, 1.0]) == (0.25, 3, 0)
    assert sign_test_p([2.0] * 6 + [1.0] * 4, [1.0] * 10) == (0.03125, 6, 0)
    assert sign_test_p([1.0, 3.0], [2.0, 2.0]) == (1.0, 1, 1)
    with pytest.raises(ValueError, match="equal lengths"):
        sign_test_p([1.0], [])


def test_the_rank_sum_test_says_which_side_ranked_higher() -> None:
    """Its p-value is two-sided; the direction is the first side's rank sum against its mean
    under no difference, n1 (n1 + n2 + 1) / 2: [1, 2, 3] against [4, 5, 6] sums 6 against 10.5;
    ties at their mean rank ([1, 5] against [3, 3]: ranks 1 + 4 against 2.5 + 2.5, at it)."""
    assert rank_sum_direction([1.0, 2.0, 3.0], [4.0, 5.0, 6.0]) == -1
    assert rank_sum_direction([4.0, 5.0, 6.0], [1.0, 2.0, 3.0]) == 1
    assert rank_sum_direction([1.0, 5.0], [3.0, 3.0]) == 0
    assert rank_sum_direction([], [1.0]) == 0 and rank_sum_direction([2.0] * 3, [2.0] * 3) == 0
    # Ties: [1, 2, 2] against [2, 3]: ranks 1, 3, 3 (the three 2s share 2, 3, 4) sum 7, its
    # mean 3 · 6 / 2 = 9: the first ranked lower.
    assert rank_sum_direction([1.0, 2.0, 2.0], [2.0, 3.0]) == -1
