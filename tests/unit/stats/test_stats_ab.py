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
    result = compare_samples("score", BETTER[:4], BASE[:4], higher_is_better=True, min_samples=4)
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


def test_three_pairs_of_jitter_one_way_make_no_claim() -> None:
    """Three pairs that all moved the same way are p = 0.25 by the sign test: a plain
    percentile bootstrap of the medians called them "improved" (every resample keeps the
    pairs' order)."""
    result = compare_samples(
        "elapsedSeconds",
        [10.0, 20.0, 30.0],
        [10.4, 20.1, 30.2],
        higher_is_better=False,
        statistic="median",
        paired=True,
    )
    assert (result.verdict, result.ci) == ("insufficient-data", None)
    assert "3 pairs: too few for a claim" in result.note and "p = 0.25" in result.note
    six = compare_samples(  # the control: six pairs one way are p = 0.031
        "elapsedSeconds",
        [10.0, 20.0, 30.0, 40.0, 50.0, 60.0],
        [10.4, 20.1, 30.2, 40.3, 50.2, 60.1],
        higher_is_better=False,
        statistic="median",
        paired=True,
    )
    assert six.verdict == "improved"


def test_two_sides_wholly_apart_need_four_samples_each_for_a_claim() -> None:
    three = compare_samples("score", BETTER[:3], BASE[:3], higher_is_better=True)
    assert three.verdict == "insufficient-data" and "p = 0.1 by the rank-sum test" in three.note
    four = compare_samples("score", BETTER[:4], BASE[:4], higher_is_better=True)
    assert four.verdict == "improved"  # 2 / C(8, 4) = 0.029


def test_a_deterministic_difference_is_still_claimed_from_three_pairs() -> None:
    """Every pair giving the same delta, every resample does too: the interval is that one
    value, exact (a scripted agent's two extra steps), and the rule for data that vary does
    not apply."""
    result = compare_samples(
        "toolCalls", [7.0] * 3, [5.0] * 3, higher_is_better=False, statistic="median", paired=True
    )
    assert result.verdict == "regressed"
    assert result.ci is not None and result.ci.low == result.ci.high == 2.0


def _false_claims(n: int, *, paired: bool, draws: int = 150) -> float:
    import random

    rng = random.Random(7)
    claims = 0
    for seed in range(draws):
        treatment = [rng.lognormvariate(0, 0.5) for _ in range(n)]
        baseline = [rng.lognormvariate(0, 0.5) for _ in range(n)]
        verdict = compare_samples(
            "elapsedSeconds",
            treatment,
            baseline,
            higher_is_better=False,
            statistic="median",
            paired=paired,
            seed=seed,
            resamples=400,
        ).verdict
        claims += verdict in ("improved", "regressed")
    return claims / draws


@pytest.mark.parametrize(("n", "paired"), [(3, True), (6, True), (8, True), (4, False), (6, False)])
def test_with_no_true_difference_a_change_is_rarely_claimed(n: int, paired: bool) -> None:
    """Both sides drawn from one distribution: a 95% interval should claim a change about 5%
    of the time (at most 10% over 150 seeded draws). The plain percentile interval claimed
    one 27% of the time at three pairs and 12% at three against three."""
    assert _false_claims(n, paired=paired) <= 0.10


def test_the_plain_percentile_interval_claims_too_often(monkeypatch: pytest.MonkeyPatch) -> None:
    """The control for the test above: with the plain tail and without the rule on too few
    samples, three pairs claim a change far more often than 5%."""
    from proctor.stats import ab, bootstrap

    monkeypatch.setattr(bootstrap, "expanded_tail", lambda n, confidence: (1 - confidence) / 2)
    monkeypatch.setattr(ab, "_too_few_to_claim", lambda *args: None)
    assert _false_claims(3, paired=True) > 0.15


@pytest.mark.parametrize(
    ("df", "quantile"), [(1, 12.7062), (2, 4.3027), (4, 2.7764), (7, 2.3646), (29, 2.0452)]
)
def test_student_t_quantiles_match_the_tables(df: int, quantile: float) -> None:
    from proctor.stats.bootstrap import t_quantile

    assert t_quantile(0.975, df) == pytest.approx(quantile, abs=5e-5)


def test_the_expanded_tail_narrows_toward_the_plain_one_as_samples_grow() -> None:
    from proctor.stats.bootstrap import expanded_tail

    tails = [expanded_tail(n, 0.95) for n in (3, 5, 10, 50, 1000)]
    assert tails == sorted(tails) and tails[0] < 1e-6
    assert 0.0245 < tails[-1] < 0.025


def test_too_few_pairs_counts_pairs() -> None:
    """Paired samples are as many on both sides: the note counts pairs, not two sides."""
    result = compare_samples("score", [1.0, 2.0], [2.0, 3.0], higher_is_better=True, paired=True)
    assert result.verdict == "insufficient-data"
    assert result.note == "2 pairs: fewer than 3, no claim."
    one = compare_samples("score", [1.0], [2.0], higher_is_better=True, paired=True)
    assert one.note == "1 pair: fewer than 3, no claim."
