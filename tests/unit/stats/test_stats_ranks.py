"""Exact rank tests: the sign test of pairs, the rank-sum test of two independent samples."""

from __future__ import annotations

import itertools
import random

import pytest

from proctor.stats.ranks import RANK_SUM_MOST, rank_sum_exact_p, sign_test_p


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
