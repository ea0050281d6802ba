"""A/B verdicts: insufficient data, direction handling, CI-based claims, per-case labels."""

from __future__ import annotations

import pytest

from proctor.stats import alpha_of, classify_case, compare_samples, p_value_text

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


def test_a_deterministic_difference_from_three_pairs_keeps_its_interval_but_no_claim() -> None:
    """Every pair giving the same delta, every resample does too: the interval is that one
    value (a scripted agent's two extra steps), yet three pairs all one way are p = 0.25 by
    the sign test, as three pairs where only one side passed are by McNemar's: no claim, the
    interval kept. Six pairs are p = 0.031: regressed."""
    result = compare_samples(
        "toolCalls", [7.0] * 3, [5.0] * 3, higher_is_better=False, statistic="median", paired=True
    )
    assert (result.verdict, result.exact_p) == ("insufficient-data", 0.25)
    assert result.ci is not None and result.ci.low == result.ci.high == 2.0
    assert result.note == (
        "95% CI of the median delta [2, 2] excludes 0, but the sign test of the 3 pairs that "
        "differ (3 vs 0) gives p = 0.25, and a 95% claim needs p ≤ 0.05: no claim."
    )
    six = compare_samples(
        "toolCalls", [7.0] * 6, [5.0] * 6, higher_is_better=False, statistic="median", paired=True
    )
    assert (six.verdict, six.exact_p) == ("regressed", 0.03125)


def test_a_paired_measure_claims_only_what_the_sign_test_supports() -> None:
    """Eight pairs whose mean's interval excludes 0 [+3.1, +9] with 6 against 2 by the sign
    test (p = 0.29): no claim; pairs alike do not count (7 alike and 6 one way: p = 0.031,
    regressed)."""
    treatment = [10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0]
    baseline = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 16.5, 17.5]
    result = compare_samples(
        "toolCalls", treatment, baseline, higher_is_better=False, statistic="mean", paired=True
    )
    assert result.ci is not None and result.ci.low > 0
    assert (result.verdict, result.exact_p) == ("insufficient-data", pytest.approx(0.2890625))
    assert "the sign test of the 8 pairs that differ (6 vs 2) gives p = 0.289" in result.note
    alike = compare_samples(
        "toolCalls",
        [7.0] * 6 + [5.0] * 7,
        [5.0] * 13,
        higher_is_better=False,
        statistic="mean",
        paired=True,
    )
    assert (alike.verdict, alike.exact_p) == ("regressed", 0.03125)


def test_an_unpaired_measure_claims_only_what_the_rank_sum_test_supports() -> None:
    """Three trials against three, each side alike: the bootstrap's interval is the one
    delta, but the rank-sum test gives 2 / C(6, 3) = 0.1, as Fisher's does of 3/3 vs 0/3;
    four against four, 2 / C(8, 4) = 0.029: regressed."""
    three = compare_samples(
        "toolCalls", [1.0] * 3, [0.0] * 3, higher_is_better=False, statistic="median"
    )
    assert (three.verdict, three.exact_p) == ("insufficient-data", pytest.approx(0.1))
    assert "the rank-sum test of 3 vs 3 samples gives p = 0.1" in three.note
    assert three.ci is not None and three.ci.low == three.ci.high == 1.0
    four = compare_samples("toolCalls", [1.0] * 4, [0.0] * 4, higher_is_better=False)
    assert (four.verdict, four.exact_p) == ("regressed", pytest.approx(2 / 70))


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
    samples and the exact test, three pairs claim a change far more often than 5%."""
    from proctor.stats import ab, bootstrap

    monkeypatch.setattr(bootstrap, "expanded_tail", lambda n, confidence: (1 - confidence) / 2)
    monkeypatch.setattr(ab, "_too_few_to_claim", lambda *args: None)
    monkeypatch.setattr(ab, "_rank_test", lambda *args: None)
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


def _pairs(both: int, up: int, down: int, neither: int) -> tuple[list[float], list[float]]:
    """Paired outcomes from the four counts: both passed, only the treatment, only the
    baseline, neither (treatment's list, baseline's list)."""
    counts = ((1.0, 1.0, both), (1.0, 0.0, up), (0.0, 1.0, down), (0.0, 0.0, neither))
    pairs = [(t, b) for t, b, count in counts for _ in range(count)]
    return [t for t, _ in pairs], [b for _, b in pairs]


@pytest.mark.parametrize(
    ("both", "up", "down", "neither", "exact_p", "verdict"),
    [
        # 3 of 3 discordant one way: 2 * 0.5**3 = 0.25. Newcombe's interval [+0.21, +1]
        # excludes 0, and used to make it "improved".
        (0, 3, 0, 0, 0.25, "insufficient-data"),
        (0, 0, 3, 0, 0.25, "insufficient-data"),
        # 5 of 5: 2 * 0.5**5 = 0.0625 > 0.05, the interval [+0.39, +1] notwithstanding.
        (0, 5, 0, 0, 0.0625, "insufficient-data"),
        # 6 of 6: 2 * 0.5**6 = 0.03125 <= 0.05, and the interval [+0.45, +1]: a claim.
        (0, 6, 0, 0, 0.03125, "improved"),
        (0, 0, 6, 0, 0.03125, "regressed"),
        # Concordant pairs do not count: 5 of 5 discordant among 15 pairs, interval
        # [+0.049, +0.54], p = 0.0625.
        (5, 5, 0, 5, 0.0625, "insufficient-data"),
        # Mixed: 7 against 1, p = 2 * (1 + 8) / 2**8 = 0.0703125, interval [+0.058, +0.96].
        (0, 7, 1, 0, 0.0703125, "insufficient-data"),
        # 8 against 1, p = 2 * (1 + 9) / 2**9 = 0.0390625, interval [+0.13, +0.96].
        (0, 8, 1, 0, 0.0390625, "improved"),
        # 10 against 2: p = 2 * (1 + 12 + 66) / 2**12 = 0.03857421875.
        (0, 10, 2, 0, 0.03857421875, "improved"),
        # The interval includes 0 (4 against 1): unchanged, whatever the test (p = 0.375).
        (0, 4, 1, 0, 0.375, "unchanged"),
    ],
)
def test_a_paired_rate_claims_only_what_mcnemars_exact_test_supports(
    both: int, up: int, down: int, neither: int, exact_p: float, verdict: str
) -> None:
    treatment, baseline = _pairs(both, up, down, neither)
    result = compare_samples("passRate", treatment, baseline, higher_is_better=True, paired=True)
    assert result.exact_p == pytest.approx(exact_p, rel=1e-12)
    assert result.verdict == verdict
    assert result.ci is not None  # the interval is kept, a claim or not


def test_a_withheld_rate_claim_says_why() -> None:
    treatment, baseline = _pairs(0, 3, 0, 0)
    result = compare_samples("passRate", treatment, baseline, higher_is_better=True, paired=True)
    assert result.note == (
        "95% score interval of the proportions' delta [0.2059, 1] excludes 0, but McNemar's "
        "exact test of the 3 discordant pairs (3 vs 0) gives p = 0.25, and a 95% claim needs "
        "p ≤ 0.05: no claim."
    )


def test_an_unpaired_rate_claims_only_what_fishers_exact_test_supports() -> None:
    """3/3 against 0/3: Newcombe's hybrid interval [+0.21, +1] excludes 0, but Fisher's exact
    test gives 2 / C(6, 3) = 0.1; 4/4 against 0/4 gives 2 / C(8, 4) = 0.0286, a claim."""
    three = compare_samples("passRate", [1.0] * 3, [0.0] * 3, higher_is_better=True)
    assert (three.verdict, three.exact_p) == ("insufficient-data", pytest.approx(0.1))
    assert "Fisher's exact test of 3/3 vs 0/3 gives p = 0.1" in three.note
    four = compare_samples("passRate", [0.0] * 4, [1.0] * 4, higher_is_better=True)
    assert (four.verdict, four.exact_p) == ("regressed", pytest.approx(2 / 70))


def test_every_comparison_with_a_ci_gets_an_exact_test() -> None:
    result = compare_samples("score", BETTER, BASE, higher_is_better=True)
    assert result.verdict == "improved" and result.exact_p == pytest.approx(2 / 12870)
    many = compare_samples("score", [2.0] * 60, [0.0] * 41, higher_is_better=False)
    assert (many.verdict, many.exact_p) == ("regressed", None)  # past RANK_SUM_MOST values
    few = compare_samples("passRate", [1.0, 1.0], [0.0, 0.0], higher_is_better=True, paired=True)
    assert (few.verdict, few.exact_p) == ("insufficient-data", None)


def test_a_p_value_just_above_the_threshold_never_reads_as_it() -> None:
    """Fisher's exact test of 4/6 vs 8/35 gives p = 0.0500095: with 3 digits it read
    "p = 0.05 … needs p ≤ 0.05: no claim"."""
    result = compare_samples(
        "passRate", [1.0] * 4 + [0.0] * 2, [1.0] * 8 + [0.0] * 27, higher_is_better=True
    )
    assert result.exact_p == pytest.approx(0.0500095, abs=1e-7)
    assert result.verdict == "insufficient-data"
    assert "gives p = 0.05001, and a 95% claim needs p ≤ 0.05: no claim." in result.note
    assert p_value_text(0.0500095, 0.05) == "0.05001"
    assert p_value_text(0.25, 0.05) == "0.25" and p_value_text(0.0390625, 0.05) == "0.0391"
    assert p_value_text(0.05, 0.05) == "0.05"


def test_a_p_value_at_the_threshold_of_a_90_percent_claim_is_claimed() -> None:
    """1 - 0.9 is 0.09999999999999998 in floating point: p = 0.1 (the rank-sum test of 3 vs 3
    wholly apart, Fisher's of 3/3 vs 0/3) reaches it."""
    assert alpha_of(0.9) == 0.1
    rate = compare_samples("passRate", [1.0] * 3, [0.0] * 3, higher_is_better=True, confidence=0.9)
    assert (rate.verdict, rate.exact_p) == ("improved", pytest.approx(0.1))
    calls = compare_samples(
        "toolCalls",
        [1.0] * 3,
        [0.0] * 3,
        higher_is_better=False,
        statistic="median",
        confidence=0.9,
    )
    assert (calls.verdict, calls.exact_p) == ("regressed", pytest.approx(0.1))
    varying = compare_samples(  # the rank-sum bound of data that vary: 2 / C(6, 3) = 0.1
        "score", BETTER[:3], BASE[:3], higher_is_better=True, confidence=0.9
    )
    assert varying.verdict == "improved" and varying.ci is not None


# 20 pairs of tool calls. 5 pairs where the baseline made 1 call and the treatment 200; 15
# where the treatment made one call fewer: 10 → 9, 20 → 19, …, 150 → 149. Sorted, the baseline
# is 1 ×5, 10, 20, …, 150: its median the mean of the 10th and 11th, (50 + 60) / 2 = 55; the
# treatment is 9, 19, …, 149, 200 ×5: (99 + 109) / 2 = 104. The median rose by 49, and every
# resample of pairs holding one of the 5 keeps it up (the 200s leave the bottom of the
# baseline's values for the top of the treatment's), so the interval lies above 0. But 15 of
# the 20 pairs went down: the sign test gives 2 · (C(20,0) + … + C(20,5)) / 2^20 = 2 · 21700 /
# 1048576 = 0.0414, significant the other way.
SPLIT_BASELINE = [1.0] * 5 + [10.0 * k for k in range(1, 16)]
SPLIT_TREATMENT = [200.0] * 5 + [10.0 * k - 1 for k in range(1, 16)]


def test_a_claim_needs_the_exact_test_to_point_the_way_the_interval_does() -> None:
    """The interval of the median's delta lies above 0 (more tool calls: "regressed"), while
    the sign test finds the treatment lower in 15 of 20 pairs (p = 0.0414): each is
    significant, in opposite directions, and neither is claimed; the interval is kept."""
    c = compare_samples(
        "toolCalls",
        SPLIT_TREATMENT,
        SPLIT_BASELINE,
        higher_is_better=False,
        statistic="median",
        paired=True,
    )
    assert (c.treatment, c.baseline, c.delta) == (104.0, 55.0, 49.0)
    assert c.ci is not None and c.ci.low > 0
    assert c.exact_p == pytest.approx(2 * 21700 / 2**20)
    assert c.verdict == "insufficient-data"
    assert c.note == (
        f"95% CI of the median delta [{c.ci.low:.4g}, {c.ci.high:.4g}] excludes 0 (above it), "
        "but the sign test of the 20 pairs that differ (5 vs 15) gives p = 0.0414 the other "
        "way (the treatment lower): the interval and the exact test disagree in direction, "
        "no claim."
    )
    # Mirrored, the interval below 0 and the sign test higher: no claim either.
    mirrored = compare_samples(
        "toolCalls",
        [-v for v in SPLIT_TREATMENT],
        [-v for v in SPLIT_BASELINE],
        higher_is_better=False,
        statistic="median",
        paired=True,
    )
    assert mirrored.ci is not None and mirrored.ci.high < 0
    assert mirrored.verdict == "insufficient-data"
    assert "(below it)" in mirrored.note and "(the treatment higher)" in mirrored.note
    # The 15 pairs alone agree with their interval: a claim.
    agreed = compare_samples(
        "toolCalls",
        SPLIT_TREATMENT[5:],
        SPLIT_BASELINE[5:],
        higher_is_better=False,
        statistic="median",
        paired=True,
    )
    assert agreed.verdict == "improved", agreed.note
