"""pass rate, pass@k and pass^k, checked against direct enumeration of k-subsets."""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from fractions import Fraction
from itertools import combinations

import pytest

from proctor.stats import (
    pass_at_k,
    pass_at_k_table,
    pass_hat_k,
    pass_hat_k_table,
    pass_rate,
    stability,
)
from proctor.stats.rates import wilson_paired_delta_interval

GRID = [(n, c, k) for n in range(1, 7) for c in range(n + 1) for k in range(1, n + 1)]


def _outcomes(n: int, c: int) -> list[bool]:
    """n outcomes with exactly c passes, in a shuffled (but fixed) order."""
    outcomes = [True] * c + [False] * (n - c)
    random.Random(n * 31 + c).shuffle(outcomes)
    return outcomes


def _enumerated(n: int, c: int, k: int) -> tuple[Fraction, Fraction]:
    """(share of k-subsets with any pass, share of k-subsets with all passes)."""
    outcomes = _outcomes(n, c)
    subsets = list(combinations(outcomes, k))
    any_pass = sum(any(subset) for subset in subsets)
    all_pass = sum(all(subset) for subset in subsets)
    return Fraction(any_pass, len(subsets)), Fraction(all_pass, len(subsets))


def _close(value: float, exact: Fraction) -> bool:
    return math.isclose(value, float(exact), rel_tol=1e-12, abs_tol=1e-15)


@pytest.mark.parametrize(("n", "c", "k"), GRID)
def test_pass_at_k_matches_enumeration(n: int, c: int, k: int) -> None:
    assert _close(pass_at_k(n, c, k), _enumerated(n, c, k)[0])


@pytest.mark.parametrize(("n", "c", "k"), GRID)
def test_pass_hat_k_matches_enumeration(n: int, c: int, k: int) -> None:
    assert _close(pass_hat_k(n, c, k), _enumerated(n, c, k)[1])


def test_enumeration_check_rejects_naive_pass_at_k() -> None:
    mismatches = [(n, c, k) for n, c, k in GRID if not _close(c / n, _enumerated(n, c, k)[0])]
    assert (4, 1, 2) in mismatches


def test_enumeration_check_rejects_with_replacement_pass_hat_k() -> None:
    mismatches = [
        (n, c, k) for n, c, k in GRID if not _close((c / n) ** k, _enumerated(n, c, k)[1])
    ]
    assert (4, 2, 2) in mismatches


def test_grid_covers_every_small_case() -> None:
    assert len(GRID) == sum((n + 1) * n for n in range(1, 7))


def test_pass_at_k_known_values() -> None:
    assert pass_at_k(10, 0, 5) == 0.0
    assert pass_at_k(10, 10, 1) == 1.0
    assert pass_at_k(10, 6, 5) == 1.0
    assert pass_at_k(10, 3, 1) == pytest.approx(0.3)
    assert pass_at_k(4, 1, 2) == 0.5


def test_pass_hat_k_known_values() -> None:
    assert pass_hat_k(10, 10, 10) == 1.0
    assert pass_hat_k(10, 3, 4) == 0.0
    assert pass_hat_k(4, 2, 2) == pytest.approx(1 / 6)


def test_pass_at_k_is_exact_for_large_n() -> None:
    value = pass_at_k(200, 1, 100)
    assert value == 0.5
    assert 0.0 < pass_at_k(1000, 1, 1) < 0.0011


@pytest.mark.parametrize("fn", [pass_at_k, pass_hat_k])
@pytest.mark.parametrize(
    ("n", "c", "k"), [(0, 0, 1), (3, 1, 0), (3, 1, 4), (3, 4, 1), (3, -1, 1), (-1, 0, 1)]
)
def test_k_estimators_reject_invalid_input(
    fn: Callable[[int, int, int], float], n: int, c: int, k: int
) -> None:
    with pytest.raises(ValueError):
        fn(n, c, k)


def test_tables_are_empty_for_no_trials() -> None:
    assert pass_at_k_table(0, 0) == {}
    assert pass_hat_k_table(0, 0) == {}


def test_tables_cover_every_k() -> None:
    assert pass_at_k_table(3, 1) == {k: pytest.approx(pass_at_k(3, 1, k)) for k in (1, 2, 3)}
    assert pass_hat_k_table(3, 2) == {1: pytest.approx(2 / 3), 2: pytest.approx(1 / 3), 3: 0.0}


def test_tables_agree_with_the_exact_binomials() -> None:
    for n in range(1, 60):
        for c in range(n + 1):
            at, hat = pass_at_k_table(n, c), pass_hat_k_table(n, c)
            for k in range(1, n + 1):
                assert at[k] == pytest.approx(pass_at_k(n, c, k), abs=1e-12)
                assert hat[k] == pytest.approx(pass_hat_k(n, c, k), abs=1e-12)
    # Exactly 0 once k exceeds the passes (pass^k) or the failures (1 - pass@k).
    assert pass_hat_k_table(10, 3)[4] == 0.0
    assert pass_at_k_table(10, 7)[4] == 1.0


def test_tables_of_ten_thousand_trials() -> None:
    # One group of 10,000 repeats: exact big-integer binomials took 16 s for these tables.
    at, hat = pass_at_k_table(10_000, 9_990), pass_hat_k_table(10_000, 9_990)
    assert at[1] == pytest.approx(0.999) and at[11] == 1.0
    assert hat[1] == pytest.approx(0.999) and hat[10_000] == 0.0
    assert hat[100] == pytest.approx(pass_hat_k(10_000, 9_990, 100), rel=1e-9)


def test_tables_are_monotone_in_k() -> None:
    at = pass_at_k_table(6, 2)
    hat = pass_hat_k_table(6, 4)
    assert all(at[k] <= at[k + 1] for k in range(1, 6))
    assert all(hat[k] >= hat[k + 1] for k in range(1, 6))


@pytest.mark.parametrize("table", [pass_at_k_table, pass_hat_k_table])
def test_tables_reject_invalid_counts(table: Callable[[int, int], dict[int, float]]) -> None:
    with pytest.raises(ValueError):
        table(2, 3)


def test_pass_rate_values_and_empty() -> None:
    assert pass_rate(0, 0) is None
    assert pass_rate(3, 4) == 0.75
    assert pass_rate(0, 5) == 0.0
    assert pass_rate(5, 5) == 1.0


@pytest.mark.parametrize(("passes", "n"), [(5, 4), (-1, 4), (0, -1), (1, 0)])
def test_pass_rate_rejects_impossible_counts(passes: int, n: int) -> None:
    with pytest.raises(ValueError):
        pass_rate(passes, n)


@pytest.mark.parametrize(
    ("passes", "n", "expected"),
    [
        (0, 0, "no-data"),
        (3, 3, "stable-pass"),
        (0, 3, "stable-fail"),
        (1, 3, "flaky"),
        (1, 1, "stable-pass"),
        (0, 1, "stable-fail"),
    ],
)
def test_stability_labels(passes: int, n: int, expected: str) -> None:
    assert stability(passes, n) == expected


def test_stability_rejects_impossible_counts() -> None:
    with pytest.raises(ValueError):
        stability(4, 3)


def test_paired_delta_interval_reproduces_the_published_example() -> None:
    # Fagerland, Lydersen and Laake's worked example (complete response before and after
    # consolidation therapy): 59 both, 6 first only, 16 second only, 80 neither gives an
    # estimate of -0.0621 with the square-and-add interval (-0.1186, -0.0046).
    low, high = wilson_paired_delta_interval(59, 6, 16, 80)  # type: ignore[misc]
    assert (round(low, 4), round(high, 4)) == (-0.1186, -0.0046)


def test_paired_delta_interval_never_shrinks_to_a_point() -> None:
    # Three pairs that all passed on both sides: a bootstrap of the pairs says [0, 0]; the score
    # interval says a drop to 44% is not ruled out.
    low, high = wilson_paired_delta_interval(3, 0, 0, 0)  # type: ignore[misc]
    assert low == pytest.approx(-0.5615, abs=1e-4) and high == pytest.approx(0.5615, abs=1e-4)
    assert wilson_paired_delta_interval(0, 0, 0, 0) is None
    with pytest.raises(ValueError):
        wilson_paired_delta_interval(1, -1, 0, 0)


def test_paired_delta_interval_covers_at_its_level() -> None:
    # Simulated coverage of the 95% interval on correlated pairs, against a bootstrap of the
    # pairs, which covers far less at small n (the reason the A/B pass rate left it).
    rng = random.Random(3)
    hits = trials = 0
    for p_first, p_second in ((0.9, 0.9), (0.8, 0.6), (0.95, 0.75)):
        for _ in range(400):
            pairs = []
            for _ in range(8):
                shared = rng.random()
                pairs.append((shared < p_first, shared < p_second))
            counts = (
                pairs.count((True, True)),
                pairs.count((True, False)),
                pairs.count((False, True)),
                pairs.count((False, False)),
            )
            low, high = wilson_paired_delta_interval(*counts)  # type: ignore[misc]
            hits += low <= p_first - p_second <= high
            trials += 1
    assert hits / trials >= 0.93


@pytest.mark.parametrize(
    ("first_only", "second_only", "expected"),
    [(0, 0, 1.0), (3, 0, 0.25), (0, 5, 0.0625), (6, 0, 0.03125), (7, 1, 0.0703125),
     (2, 2, 1.0), (10, 2, 0.03857421875)],
)  # fmt: skip
def test_mcnemar_exact_p_is_the_two_sided_sign_test(
    first_only: int, second_only: int, expected: float
) -> None:
    from proctor.stats.rates import mcnemar_exact_p

    assert mcnemar_exact_p(first_only, second_only) == pytest.approx(expected, rel=1e-12)


def test_fisher_exact_p_matches_the_enumerated_tables() -> None:
    """Two-sided: every table of the same margins no more likely than the observed one. 3/5 vs
    1/5: tables of 4 successes, weights C(5,k)·C(5,4−k) = 5, 50, 100, 50, 5 of 210, the
    observed (k=3) 50, so p = (5 + 50 + 50 + 5) / 210."""
    from proctor.stats.rates import fisher_exact_p

    assert fisher_exact_p((3, 3), (0, 3)) == pytest.approx(0.1)
    assert fisher_exact_p((3, 5), (1, 5)) == pytest.approx(110 / 210)
    assert fisher_exact_p((2, 4), (2, 4)) == 1.0
    assert fisher_exact_p((0, 0), (2, 4)) == 1.0
    with pytest.raises(ValueError):
        fisher_exact_p((4, 3), (0, 3))
