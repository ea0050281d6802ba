"""Percentile bootstrap: reproducibility, degenerate inputs, and coverage sanity with controls."""

from __future__ import annotations

import random
import statistics
from collections.abc import Callable, Sequence

import pytest

from proctor.stats import (
    Interval,
    bootstrap_ci,
    bootstrap_pass_rate_ci,
    expanded_bootstrap_ci,
    mean,
    paired_bootstrap_delta_ci,
    strict_median,
    unpaired_bootstrap_delta_ci,
)

SAMPLE = [3.1, 4.7, 2.2, 5.9, 4.4, 3.8, 6.1, 2.9, 4.0, 5.2]


def test_empty_input_gives_none() -> None:
    assert bootstrap_ci([]) is None
    assert bootstrap_pass_rate_ci([]) is None
    assert paired_bootstrap_delta_ci([], []) is None
    assert unpaired_bootstrap_delta_ci([], [1.0]) is None
    assert unpaired_bootstrap_delta_ci([1.0], []) is None


def test_single_value_collapses_to_it() -> None:
    assert bootstrap_ci([2.5]) == Interval(2.5, 2.5, 0.95)
    assert bootstrap_pass_rate_ci([True], confidence=0.9) == Interval(1.0, 1.0, 0.9)
    assert paired_bootstrap_delta_ci([3.0], [1.0]) == Interval(2.0, 2.0, 0.95)
    assert unpaired_bootstrap_delta_ci([3.0], [1.0]) == Interval(2.0, 2.0, 0.95)


def test_constant_list_gives_that_constant() -> None:
    assert bootstrap_ci([0.1] * 9) == Interval(0.1, 0.1, 0.95)
    assert bootstrap_ci([0.1] * 9, strict_median) == Interval(0.1, 0.1, 0.95)


class CountingMean:
    """The mean, counting how often the bootstrap asked for it."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, values: Sequence[float]) -> float:
        self.calls += 1
        return mean(values)


def test_constant_samples_skip_resampling_and_give_what_resampling_gives() -> None:
    values = [0.1] * 9  # fsum(values) / 9 is not exactly 0.1: the point must be the statistic's
    resampled = sorted(mean(random.Random(0).choices(values, k=9)) for _ in range(50))
    counting = CountingMean()
    assert bootstrap_ci(values, counting) == Interval(resampled[0], resampled[-1], 0.95)
    assert counting.calls == 1
    paired = CountingMean()
    assert paired_bootstrap_delta_ci([1.0] * 5, [0.0] * 5, statistic=paired) == (
        Interval(1.0, 1.0, 0.95)
    )
    assert paired.calls == 2
    unpaired = CountingMean()
    assert unpaired_bootstrap_delta_ci([1.0] * 5, [0.0] * 3, statistic=unpaired) == (
        Interval(1.0, 1.0, 0.95)
    )
    assert unpaired.calls == 2


def test_one_differing_value_resamples_every_time() -> None:
    """Control for the shortcut: a sample that is constant but for its last value."""
    counting = CountingMean()
    ci = bootstrap_ci([1.0] * 9 + [0.0], counting, resamples=300)
    assert ci is not None and ci.low < ci.high
    assert counting.calls == 300
    paired = CountingMean()
    paired_bootstrap_delta_ci([1.0] * 5, [0.0] * 4 + [1.0], statistic=paired, resamples=40)
    assert paired.calls == 80


def test_non_constant_list_gives_a_real_interval() -> None:
    ci = bootstrap_ci(SAMPLE)
    assert ci is not None
    assert ci.low < ci.high


def test_same_seed_reproduces_the_interval() -> None:
    assert bootstrap_ci(SAMPLE, seed=7) == bootstrap_ci(SAMPLE, seed=7)
    assert unpaired_bootstrap_delta_ci(SAMPLE, SAMPLE[::-1], seed=3) == (
        unpaired_bootstrap_delta_ci(SAMPLE, SAMPLE[::-1], seed=3)
    )


def test_different_seeds_usually_differ() -> None:
    intervals = {bootstrap_ci(SAMPLE, seed=seed) for seed in range(5)}
    assert len(intervals) > 1


def test_ci_contains_sample_mean_but_not_a_far_value() -> None:
    ci = bootstrap_ci(SAMPLE)
    assert ci is not None
    assert ci.contains(statistics.mean(SAMPLE))
    assert not ci.contains(statistics.mean(SAMPLE) + 3 * statistics.stdev(SAMPLE))


def test_mean_ci_stays_within_data_range() -> None:
    ci = bootstrap_ci(SAMPLE, resamples=500)
    assert ci is not None
    assert min(SAMPLE) <= ci.low <= ci.high <= max(SAMPLE)


def test_higher_confidence_gives_a_wider_nested_interval() -> None:
    narrow = bootstrap_ci(SAMPLE, confidence=0.8, seed=1)
    wide = bootstrap_ci(SAMPLE, confidence=0.99, seed=1)
    assert narrow is not None and wide is not None
    assert wide.low <= narrow.low <= narrow.high <= wide.high
    assert wide.high - wide.low > narrow.high - narrow.low


def test_custom_statistic_is_used() -> None:
    skewed = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 100.0]
    by_median = bootstrap_ci(skewed, strict_median)
    by_mean = bootstrap_ci(skewed, mean)
    assert by_median is not None and by_mean is not None
    assert by_median.low == 1.0
    assert by_mean.high > 10.0


@pytest.mark.parametrize(("resamples", "confidence"), [(0, 0.95), (10, 0.0), (10, 1.0)])
def test_invalid_settings_raise(resamples: int, confidence: float) -> None:
    with pytest.raises(ValueError):
        bootstrap_ci(SAMPLE, resamples=resamples, confidence=confidence)


def test_pass_rate_ci_all_pass_all_fail_and_mixed() -> None:
    assert bootstrap_pass_rate_ci([True] * 5) == Interval(1.0, 1.0, 0.95)
    assert bootstrap_pass_rate_ci([False] * 5) == Interval(0.0, 0.0, 0.95)
    mixed = bootstrap_pass_rate_ci([True, False, True, True, False, True, False, True])
    assert mixed is not None
    assert 0.0 <= mixed.low < 5 / 8 < mixed.high <= 1.0


def test_paired_requires_equal_lengths() -> None:
    with pytest.raises(ValueError, match="equal lengths"):
        paired_bootstrap_delta_ci([1.0, 2.0], [1.0])
    with pytest.raises(ValueError, match="equal lengths"):
        paired_bootstrap_delta_ci([], [1.0])


def test_pairing_removes_shared_case_noise() -> None:
    baseline = SAMPLE
    treatment = [value + 1.0 for value in baseline]
    paired = paired_bootstrap_delta_ci(treatment, baseline)
    unpaired = unpaired_bootstrap_delta_ci(treatment, baseline)
    assert paired is not None and unpaired is not None
    assert paired.low == pytest.approx(1.0) and paired.high == pytest.approx(1.0)
    assert unpaired.low < 1.0 < unpaired.high
    assert unpaired.low < 0.0


def test_identical_samples_give_a_delta_ci_around_zero() -> None:
    ci = unpaired_bootstrap_delta_ci(SAMPLE, SAMPLE)
    assert ci is not None
    assert ci.low < 0.0 < ci.high


def _coverage(confidence: float) -> float:
    """Share of 90 synthetic normal samples (n=20, mean 10) whose mean CI covers 10."""
    rng = random.Random(12345)
    hits = 0
    trials = 90
    for trial in range(trials):
        sample = [rng.gauss(10.0, 2.0) for _ in range(20)]
        ci = bootstrap_ci(sample, resamples=250, confidence=confidence, seed=trial)
        assert ci is not None
        hits += ci.contains(10.0)
    return hits / trials


def test_coverage_is_near_nominal() -> None:
    assert 0.8 <= _coverage(0.9) <= 0.98


def test_coverage_check_detects_a_too_narrow_interval() -> None:
    assert _coverage(0.3) < 0.6


def test_an_interpolated_bound_shows_no_float_noise() -> None:
    """2,000 resamples put the 2.5th percentile at position 49.975, which binary floats hold
    as 49.97500000000000142: interpolated between two medians, a bound read with a tail of
    float noise (the plain tail, as a one-sample interval takes it); a delta's expanded tail is no round position, and its bound keeps ten decimals."""
    # Steps of the tasks before and after a change, as `history --changes` compares them.
    after = [38.0, 35.0, 9.0, 24.0, 39.0, 31.0]
    before = [39.0, 1.0, 31.0, 17.0]
    interval = unpaired_bootstrap_delta_ci(after, before, statistic=strict_median)
    assert interval is not None
    assert (interval.low, interval.high) == (-29.0482302097, 37.5)
    single = bootstrap_ci([8.0, 29.0, 22.0, 16.0, 13.0, 5.0], strict_median)
    assert single is not None
    assert all(len(repr(bound)) <= 7 for bound in (single.low, single.high)), single


def _small_sample_coverage(interval: Callable[..., Interval | None]) -> float:
    """Share of 300 normal samples of five scores (mean 70) whose 95% interval covers 70."""
    rng = random.Random(2024)
    hits = 0
    for trial in range(300):
        sample = [rng.gauss(70.0, 15.0) for _ in range(5)]
        ci = interval(sample, resamples=400, seed=trial)
        assert ci is not None
        hits += ci.contains(70.0)
    return hits / 300


def test_a_mean_of_few_scores_gets_an_interval_that_covers_as_it_says() -> None:
    """Five scores: the expanded interval covers the true mean about as often as it says
    (0.91 of 300; a bootstrap interval never reaches past the scores' range, so a little
    less than 95%); the plain percentile interval, the control, far less often (0.83)."""
    assert _small_sample_coverage(expanded_bootstrap_ci) >= 0.9
    assert _small_sample_coverage(bootstrap_ci) < 0.85


def test_an_expanded_interval_holds_the_plain_one_and_needs_two_values() -> None:
    scores = [60.0, 100.0, 80.0, 90.0, 70.0, 100.0]
    plain, expanded = bootstrap_ci(scores), expanded_bootstrap_ci(scores)
    assert plain is not None and expanded is not None
    assert expanded.low < plain.low and plain.high < expanded.high
    assert expanded_bootstrap_ci([100.0]) is None  # one score is no interval
    assert expanded_bootstrap_ci([]) is None
    same = expanded_bootstrap_ci([80.0, 80.0])
    assert same is not None and (same.low, same.high) == (80.0, 80.0)
