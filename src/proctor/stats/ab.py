"""A/B comparison of two conditions: sample-level verdicts with bootstrap CIs, per-case verdicts."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from proctor.stats.bootstrap import (
    Interval,
    paired_bootstrap_delta_ci,
    unpaired_bootstrap_delta_ci,
)
from proctor.stats.descriptive import statistic_named
from proctor.stats.ranks import (
    RANK_SUM_MOST,
    rank_sum_direction,
    rank_sum_exact_p,
    sign_test_p,
)
from proctor.stats.rates import (
    fisher_exact_p,
    mcnemar_exact_p,
    stability,
    wilson_delta_interval,
    wilson_paired_delta_interval,
)

__all__ = [
    "CaseVerdict",
    "Comparison",
    "Verdict",
    "alpha_of",
    "classify_case",
    "compare_samples",
    "p_value_text",
]

Verdict = Literal["improved", "regressed", "unchanged", "insufficient-data"]
CaseVerdict = Literal["improved", "regressed", "unchanged", "flaky", "insufficient-data"]


@dataclass(frozen=True)
class Comparison:
    """Outcome of comparing one metric between treatment and baseline.

    `treatment`, `baseline` and `delta` (treatment - baseline) are None when a side is
    empty; `ci` is the CI of the delta (a score interval for a rate, else a bootstrap's),
    None when there are too few samples for a claim. `exact_p` is the exact test's two-sided
    p-value (of a rate McNemar's of the discordant pairs when paired, Fisher's otherwise; of
    another measure the sign test of the pairs when paired, the rank-sum test otherwise), None
    without a CI or past :data:`~proctor.stats.ranks.RANK_SUM_MOST` unpaired values: a claim
    needs it at most 1 - confidence, the test pointing the way the CI does, as well as a CI that
    excludes 0, so a comparison can keep its CI and make no claim (a withheld claim with
    `exact_p` at most 1 - confidence is one whose test pointed the other way).
    """

    metric: str
    n_treatment: int
    n_baseline: int
    treatment: float | None
    baseline: float | None
    delta: float | None
    ci: Interval | None
    verdict: str
    note: str
    exact_p: float | None = None


def alpha_of(confidence: float) -> float:
    """The p-value a claim at ``confidence`` needs at most, 1 - confidence, rounded to 12
    places: 1 - 0.9 is 0.09999999999999998 in floating point, which would refuse p = 0.1."""
    return round(1.0 - confidence, 12)


def p_value_text(p: float, alpha: float) -> str:
    """``p`` with 3 significant digits, or as many more as it takes to read on its side of
    ``alpha``: 0.0500095 against 0.05 reads ``0.05001``, never ``0.05`` (which a claim would
    take); 0.25 reads ``0.25``."""
    for digits in range(3, 18):
        text = f"{p:.{digits}g}"
        if (float(text) <= alpha) == (p <= alpha):
            return text
    return repr(p)


def _verdict(ci: Interval, higher_is_better: bool) -> Verdict:
    if ci.low > 0:
        return "improved" if higher_is_better else "regressed"
    if ci.high < 0:
        return "regressed" if higher_is_better else "improved"
    return "unchanged"


def compare_samples(
    metric: str,
    treatment: Sequence[float],
    baseline: Sequence[float],
    *,
    higher_is_better: bool,
    statistic: Literal["mean", "median"] = "mean",
    min_samples: int = 3,
    seed: int = 0,
    paired: bool = False,
    resamples: int = 2000,
    confidence: float = 0.95,
) -> Comparison:
    """Compare `statistic` of treatment vs baseline; claim a change only if the delta CI excludes 0.

    The mean of outcomes that are all 0 or 1 is a proportion: its delta gets a score interval
    (Newcombe's: :func:`~proctor.stats.rates.wilson_paired_delta_interval` for pairs,
    :func:`~proctor.stats.rates.wilson_delta_interval` otherwise), which widens with few
    samples where a percentile bootstrap shrinks to a point (three pairs that all passed on
    both sides would "prove" no drop at all). Other measures get a bootstrap CI.

    A change is claimed only when an exact test (:func:`_exact_test`) agrees at the same
    level: three pairs where only the treatment passed give a score interval of [+0.21, +1]
    but p = 0.25 by McNemar's exact test, and three pairs that each took one more tool call
    the bootstrap's [1, 1] but p = 0.25 by the sign test: each is "insufficient-data", the
    interval kept. The test must agree in direction too: an interval above 0 with a sign test
    that finds most pairs lower (p ≤ 1 - confidence all the same) is "insufficient-data",
    the interval kept, its note saying they disagree. Unpaired, a measure other than a rate
    takes the rank-sum test, up to :data:`~proctor.stats.ranks.RANK_SUM_MOST` values in all
    (past them, the interval alone).

    With fewer than `min_samples` on either side (including empty) the verdict is
    "insufficient-data" and `ci` is None. Raises ValueError for an unknown statistic,
    min_samples < 1, or unequal lengths when `paired`.
    """
    stat = statistic_named(statistic)
    if min_samples < 1:
        raise ValueError(f"min_samples must be >= 1, got {min_samples}")
    if paired and len(treatment) != len(baseline):
        raise ValueError(
            f"paired samples need equal lengths, got {len(treatment)} and {len(baseline)}"
        )
    t_value = stat(treatment) if treatment else None
    b_value = stat(baseline) if baseline else None
    delta = t_value - b_value if t_value is not None and b_value is not None else None
    n_t, n_b = len(treatment), len(baseline)

    def result(
        ci: Interval | None, verdict: Verdict, note: str, exact_p: float | None = None
    ) -> Comparison:
        return Comparison(metric, n_t, n_b, t_value, b_value, delta, ci, verdict, note, exact_p)

    if min(n_t, n_b) < min_samples:
        # Paired samples are counted in pairs (both sides have as many); unpaired ones by side.
        few = (
            f"{n_t} {'pair' if n_t == 1 else 'pairs'}: fewer than {min_samples}, no claim."
            if paired
            else f"{n_t} vs {n_b} samples: fewer than {min_samples} on one side, no claim."
        )
        return result(None, "insufficient-data", few)
    rate = statistic == "mean" and _outcomes(treatment) and _outcomes(baseline)
    if rate:
        ci = _proportion_delta_ci(treatment, baseline, paired, confidence)
        what = "score interval of the proportions' delta"
    else:
        delta_ci = paired_bootstrap_delta_ci if paired else unpaired_bootstrap_delta_ci
        ci = delta_ci(
            treatment,
            baseline,
            statistic=stat,
            resamples=resamples,
            confidence=confidence,
            seed=seed,
        )
        what = f"CI of the {statistic} delta"
    if ci is None:  # cannot happen with samples on both sides; never claim without a CI
        raise ValueError("no confidence interval for non-empty samples")
    if ci.low != ci.high and what.startswith("CI"):  # a bootstrap's, over data that vary
        too_few = _too_few_to_claim(n_t, n_b, paired, confidence)
        if too_few is not None:
            return result(None, "insufficient-data", too_few)
    exact = (_exact_test if rate else _rank_test)(treatment, baseline, paired)
    verdict = _verdict(ci, higher_is_better)
    direction = "higher" if higher_is_better else "lower"
    excludes = "includes" if verdict == "unchanged" else "excludes"
    shown = f"{confidence:.0%} {what} [{ci.low:.4g}, {ci.high:.4g}] {excludes} 0"
    exact_p = None if exact is None else exact[0]
    alpha = alpha_of(confidence)
    if exact is not None and verdict != "unchanged" and exact[0] > alpha:
        # The interval alone would claim a change the exact test does not support.
        note = (
            f"{shown}, but {exact[1]} gives p = {p_value_text(exact[0], alpha)}, and a "
            f"{confidence:.0%} claim needs p ≤ {alpha:.6g}: no claim."
        )
        return result(ci, "insufficient-data", note, exact_p)
    if exact is not None and verdict != "unchanged" and exact[2] != (1 if ci.low > 0 else -1):
        # Both significant, but they point opposite ways: most pairs went down while the
        # median went up (a few pairs far up), say. Neither direction is the treatment's.
        side = {1: "above", -1: "below"}[1 if ci.low > 0 else -1]
        moved = {1: "higher", -1: "lower", 0: "neither higher nor lower"}[exact[2]]
        note = (
            f"{shown} ({side} it), but {exact[1]} gives p = {p_value_text(exact[0], alpha)} "
            f"the other way (the treatment {moved}): the interval and the exact test disagree "
            "in direction, no claim."
        )
        return result(ci, "insufficient-data", note, exact_p)
    note = f"{shown} ({direction} is better): {verdict}."
    return result(ci, verdict, note, exact_p)


def _exact_test(
    treatment: Sequence[float], baseline: Sequence[float], paired: bool
) -> tuple[float, str, int]:
    """The exact test of two rates' difference, two-sided, what it was and its direction (1:
    the treatment's rate higher, -1 lower, 0 alike): McNemar's of the discordant pairs (the
    sign test: only the treatment passed against only the baseline), or unpaired Fisher's of
    the two shares. Its p-value needs no large-sample approximation, where a score interval,
    built from one, can exclude 0 on evidence an exact test calls chance: all of 3 discordant
    pairs one way (p = 0.25), of 5 (p = 0.0625); it takes 6 (p = 0.031) for p ≤ 0.05."""
    if paired:
        pairs = list(zip(treatment, baseline, strict=True))
        up, down = pairs.count((1.0, 0.0)), pairs.count((0.0, 1.0))
        return (
            mcnemar_exact_p(up, down),
            f"McNemar's exact test of the {up + down} discordant pairs ({up} vs {down})",
            (up > down) - (up < down),
        )
    after, before = (int(sum(treatment)), len(treatment)), (int(sum(baseline)), len(baseline))
    away = after[0] * before[1] - before[0] * after[1]
    return (
        fisher_exact_p(after, before),
        f"Fisher's exact test of {after[0]}/{after[1]} vs {before[0]}/{before[1]}",
        (away > 0) - (away < 0),
    )


def _rank_test(
    treatment: Sequence[float], baseline: Sequence[float], paired: bool
) -> tuple[float, str, int] | None:
    """The exact test of a measure other than a rate, two-sided, what it was and its
    direction (1: the treatment higher, -1 lower, 0 neither): the sign test of the pairs that
    differ (only the direction of each pair's difference counts; its direction, the way more
    of them went), or the rank-sum test of two independent samples (the treatment ranked
    higher or lower); None past :data:`~proctor.stats.ranks.RANK_SUM_MOST` unpaired values. A
    bootstrap interval of three pairs that each moved by the same amount is that one value and
    excludes 0, yet the sign test gives p = 0.25, as McNemar's does of three pairs where only
    one side passed. Neither test is of the median: 15 of 20 pairs a little lower, 5 far
    higher, can move the median up while the sign test finds the treatment lower."""
    if paired:
        p, higher, lower = sign_test_p(treatment, baseline)
        return (
            p,
            f"the sign test of the {higher + lower} pairs that differ ({higher} vs {lower})",
            (higher > lower) - (higher < lower),
        )
    if len(treatment) + len(baseline) > RANK_SUM_MOST:
        return None
    return (
        rank_sum_exact_p(treatment, baseline),
        f"the rank-sum test of {len(treatment)} vs {len(baseline)} samples",
        rank_sum_direction(treatment, baseline),
    )


def _too_few_to_claim(n_t: int, n_b: int, paired: bool, confidence: float) -> str | None:
    """Why samples this small allow no claim from a bootstrap interval of data that vary
    (every resample giving the same delta, the interval is that one value, and exact), None
    when they allow one. A claim needs the most lopsided data to be significant by an exact rank
    test that assumes nothing of the distribution: every pair moved the same way (the sign
    test: 6 pairs at 95%), or the two sides wholly apart (the rank-sum test: 4 against 4).
    Below that a bootstrap interval claims a change far more often than it says (three
    pairs one way, p = 0.25 by the sign test, made "improved" with the plain interval)."""
    alpha = alpha_of(confidence)
    if paired:
        p = min(1.0, 2.0 * 0.5**n_t)
        if p <= alpha:
            return None
        return (
            f"{n_t} pairs: too few for a claim (even all {n_t} one way is p = "
            f"{p_value_text(p, alpha)} by "
            f"the sign test, and a {confidence:.0%} interval needs p ≤ {alpha:.6g}): no claim."
        )
    p = min(1.0, 2.0 / math.comb(n_t + n_b, n_t))
    if p <= alpha:
        return None
    return (
        f"{n_t} vs {n_b} samples: too few for a claim (even the two sides wholly apart is "
        f"p = {p_value_text(p, alpha)} by the rank-sum test, and a {confidence:.0%} interval needs "
        f"p ≤ {alpha:.3g}): no claim."
    )


def _outcomes(values: Sequence[float]) -> bool:
    """Whether every value is an outcome, 0 or 1 (a pass, a hit)."""
    return all(value == 0.0 or value == 1.0 for value in values)


def _proportion_delta_ci(
    treatment: Sequence[float], baseline: Sequence[float], paired: bool, confidence: float
) -> Interval | None:
    if paired:
        pairs = list(zip(treatment, baseline, strict=True))
        found = wilson_paired_delta_interval(
            pairs.count((1.0, 1.0)),
            pairs.count((1.0, 0.0)),
            pairs.count((0.0, 1.0)),
            pairs.count((0.0, 0.0)),
            confidence=confidence,
        )
    else:
        found = wilson_delta_interval(
            (int(sum(treatment)), len(treatment)),
            (int(sum(baseline)), len(baseline)),
            confidence=confidence,
        )
    return None if found is None else Interval(found[0], found[1], confidence)


def classify_case(
    treatment_outcomes: Sequence[bool], baseline_outcomes: Sequence[bool]
) -> CaseVerdict:
    """Per-case verdict from pass/fail outcomes under each condition.

    "improved"/"regressed" when the treatment pass rate is higher/lower; on equal rates
    "unchanged" if both sides are stable (all-pass or all-fail), else "flaky";
    "insufficient-data" when either side is empty.
    """
    n_t, n_b = len(treatment_outcomes), len(baseline_outcomes)
    if n_t == 0 or n_b == 0:
        return "insufficient-data"
    p_t, p_b = sum(map(bool, treatment_outcomes)), sum(map(bool, baseline_outcomes))
    if p_t * n_b > p_b * n_t:
        return "improved"
    if p_t * n_b < p_b * n_t:
        return "regressed"
    stable = {"stable-pass", "stable-fail"}
    if stability(p_t, n_t) in stable and stability(p_b, n_b) in stable:
        return "unchanged"
    return "flaky"
