"""Descriptive statistics: known values, and the empty/degenerate contract."""

from __future__ import annotations

import math
import statistics

import pytest

from proctor.stats import Summary, mean, median, statistic_named, strict_median, summarize


def test_summarize_empty_is_all_none() -> None:
    assert summarize([]) == Summary(n=0, min=None, max=None, mean=None, median=None, stddev=None)


def test_summarize_single_value_has_no_stddev() -> None:
    assert summarize([4.5]) == Summary(n=1, min=4.5, max=4.5, mean=4.5, median=4.5, stddev=None)


def test_summarize_known_values() -> None:
    summary = summarize([2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0])
    assert summary.n == 8
    assert summary.min == 2.0
    assert summary.max == 9.0
    assert summary.mean == 5.0
    assert summary.median == 4.5
    assert summary.stddev == pytest.approx(math.sqrt(32 / 7))


def test_stddev_is_sample_not_population() -> None:
    summary = summarize([1.0, 3.0])
    assert summary.stddev == pytest.approx(math.sqrt(2.0))
    assert summary.stddev != pytest.approx(statistics.pstdev([1.0, 3.0]))


def test_summarize_constant_list_has_zero_spread() -> None:
    summary = summarize([0.1] * 7)
    assert summary.mean == 0.1
    assert summary.median == 0.1
    assert summary.stddev == 0.0


def test_summarize_accepts_ints_and_returns_floats() -> None:
    summary = summarize([3, 1, 2])
    assert summary == Summary(n=3, min=1.0, max=3.0, mean=2.0, median=2.0, stddev=1.0)
    assert isinstance(summary.min, float)


def test_median_empty_is_none() -> None:
    assert median([]) is None


@pytest.mark.parametrize(
    ("values", "expected"),
    [([5.0], 5.0), ([3.0, 1.0, 2.0], 2.0), ([4.0, 1.0, 3.0, 2.0], 2.5), ([-1.0, 1.0], 0.0)],
)
def test_median_matches_definition(values: list[float], expected: float) -> None:
    assert median(values) == expected
    assert median(values) == statistics.median(values)


def test_mean_and_strict_median_raise_on_empty() -> None:
    with pytest.raises(ValueError, match="empty"):
        mean([])
    with pytest.raises(ValueError, match="empty"):
        strict_median([])


def test_strict_median_agrees_with_median() -> None:
    assert strict_median([4.0, 1.0, 3.0, 2.0]) == median([4.0, 1.0, 3.0, 2.0]) == 2.5
    assert strict_median([7.0]) == 7.0


def test_mean_of_constant_list_is_exactly_that_constant() -> None:
    values = [0.1] * 3
    assert math.fsum(values) / len(values) != 0.1
    assert mean(values) == 0.1


def test_mean_matches_statistics_mean() -> None:
    values = [0.3, 1.7, -2.25, 8.0, 1e-3]
    assert mean(values) == pytest.approx(statistics.mean(values))


def test_statistic_named_is_the_one_table_of_comparison_statistics() -> None:
    assert statistic_named("mean") is mean
    assert statistic_named("median") is strict_median
    with pytest.raises(ValueError, match="'mean' or 'median', got 'mode'"):
        statistic_named("mode")
    with pytest.raises(ValueError, match="empty"):
        statistic_named("median")([])


def test_compare_samples_and_compare_runs_share_statistic_named() -> None:
    import proctor.report.ab.runs as runs
    import proctor.stats.ab as ab

    assert ab.statistic_named is runs.statistic_named is statistic_named
    assert not hasattr(ab, "_STATISTICS")
