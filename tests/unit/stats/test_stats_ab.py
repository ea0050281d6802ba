"""A/B verdicts: insufficient data, direction handling, CI-based claims, per-case labels."""

from __future__ import annotations

import pytest

from proctor.stats import classify_case, compare_samples

BASE = [10.0, 11.0, 9.5, 10.5, 10.2, 9.8, 10.1, 10.4]
BETTER = [value + 5.0 for value in BASE]
NOISY = [9.0, 12.0, 10.0, 11.5, 8.5, 10.9, 9.6, 11.1]


def test_too_few_samples_is_insufficient_data() -> None:
    result = compare_samples("score", [1.0, 2.0], BASE[:5], higher_is_better=True)
    assert result.verdict == "insufficient-data"
    assert result.ci is None
    assert result.note == "2 vs 5 samples: fewer than 3 on one side, no claim."
    assert (result.n_treatment, result.n_baseline) == (2, 5)
    assert result.treatment == 1.5
    assert result.delta == pytest.approx(1.5 - sum(BASE[:5]) / 5)


def test_empty_side_has_no_estimate() -> None:
    result = compare_samples("score", [], BASE, higher_is_better=True)
    assert result.verdict == "insufficient-data"
    assert result.treatment is None
    assert result.delta is None
    assert result.baseline == pytest.approx(sum(BASE) / len(BASE))


def test_clear_increase_is_improved_when_higher_is_better() -> None:
    result = compare_samples("score", BETTER, BASE, higher_is_better=True)
    assert result.verdict == "improved"
    assert result.ci is not None and result.ci.low > 0
    assert result.delta == pytest.approx(5.0)
    assert "excludes 0" in result.note


def test_clear_increase_is_regressed_when_lower_is_better() -> None:
    result = compare_samples("cost", BETTER, BASE, higher_is_better=False)
    assert result.verdict == "regressed"


def test_clear_decrease_directions() -> None:
    assert compare_samples("cost", BASE, BETTER, higher_is_better=False).verdict == "improved"
    assert compare_samples("score", BASE, BETTER, higher_is_better=True).verdict == "regressed"


def test_overlapping_samples_are_unchanged() -> None:
    result = compare_samples("score", NOISY, BASE, higher_is_better=True)
    assert result.verdict == "unchanged"
    assert result.ci is not None and result.ci.contains(0.0)
    assert "includes 0" in result.note


def test_identical_constant_samples_are_unchanged() -> None:
    result = compare_samples("turns", [4.0] * 3, [4.0] * 3, higher_is_better=False)
    assert result.verdict == "unchanged"
    assert result.delta == 0.0


def test_median_statistic_and_paired_mode() -> None:
    result = compare_samples(
        "latency", BETTER, BASE, higher_is_better=False, statistic="median", paired=True
    )
    assert result.verdict == "regressed"
    assert result.ci is not None
    assert result.ci.low == pytest.approx(5.0) and result.ci.high == pytest.approx(5.0)


def test_same_seed_same_comparison() -> None:
    first = compare_samples("score", NOISY, BASE, higher_is_better=True, seed=4)
    assert first == compare_samples("score", NOISY, BASE, higher_is_better=True, seed=4)


def test_min_samples_threshold_is_inclusive() -> None:
    result = compare_samples("score", BETTER[:3], BASE[:3], higher_is_better=True)
    assert result.verdict != "insufficient-data"


def test_invalid_arguments_raise() -> None:
    with pytest.raises(ValueError, match="statistic"):
        compare_samples("x", BASE, BASE, higher_is_better=True, statistic="mode")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="min_samples"):
        compare_samples("x", BASE, BASE, higher_is_better=True, min_samples=0)
    with pytest.raises(ValueError, match="equal lengths"):
        compare_samples("x", BASE, BASE[:4], higher_is_better=True, paired=True)


@pytest.mark.parametrize(
    ("treatment", "baseline", "expected"),
    [
        ([True, True], [True, False], "improved"),
        ([False, False, True], [True, True, True], "regressed"),
        ([True, True, True], [True], "unchanged"),
        ([False, False], [False, False, False], "unchanged"),
        ([True, False], [False, True], "flaky"),
        ([True, False], [True, False, True, False], "flaky"),
        ([], [True], "insufficient-data"),
        ([True], [], "insufficient-data"),
        ([], [], "insufficient-data"),
    ],
)
def test_classify_case(treatment: list[bool], baseline: list[bool], expected: str) -> None:
    assert classify_case(treatment, baseline) == expected


def test_classify_case_compares_rates_not_counts() -> None:
    assert classify_case([True, False], [True, False, False, False]) == "improved"
    assert classify_case([True] * 3 + [False], [True] * 2 + [False] * 2) == "improved"
