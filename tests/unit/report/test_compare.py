"""``proctor compare`` logic: choosing conditions, comparing runs, Markdown."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

import pytest

import proctor.report.ab.runs as compare
from proctor.errors import ConfigError
from proctor.models.trial import TrialRecord
from proctor.report.ab import (
    ab_gate,
    analyse_ab,
    compare_conditions,
    compare_runs,
    render_ab_markdown,
    render_runs_markdown,
)
from proctor.report.ab import sides as ab_compare
from proctor.report.ab.markdown import ab_overall_table
from tests.unit.report.test_ab_fixtures import AB_FIXTURES, load, mismatches, records_of

RUNS = load("runs_compare.json")
BEFORE, AFTER = records_of(RUNS["baselineRun"]), records_of(RUNS["candidateRun"])


def fixture(name: str) -> list[TrialRecord]:
    return next(f for f in AB_FIXTURES if f.name == name).records


def test_compare_conditions_defaults_to_the_baseline_condition() -> None:
    records = fixture("01_treatment_better")
    report = compare_conditions(records)
    assert (report.treatment, report.baseline) == ("with-plugin", "baseline")
    assert report.pair_from == "chosen"  # neither named: the pair chosen by the rule
    assert report.model_copy(update={"pair_from": None}) == analyse_ab(
        records, "with-plugin", "baseline"
    )


def test_compare_conditions_of_an_empty_run_is_refused() -> None:
    with pytest.raises(ConfigError):
        compare_conditions([])


# comparing runs


def runs_actual(
    before: list[TrialRecord] = BEFORE, after: list[TrialRecord] = AFTER, min_samples: int = 3
) -> dict[str, Any]:
    return compare_runs(before, after, min_samples=min_samples).model_dump(
        mode="json", by_alias=True
    )


def test_runs_agree_with_the_hand_worked_fixture() -> None:
    assert mismatches(RUNS["expected"], runs_actual()) == []


@contextmanager
def mean_instead_of_median() -> Iterator[None]:
    broken = tuple((n, m, h, "mean") for n, m, h, _ in ab_compare.METRICS)
    with mock.patch.object(ab_compare, "METRICS", broken):
        yield


def _median_as_mean() -> dict[str, Any]:
    with mean_instead_of_median():
        return runs_actual()


def _errors_as_failures() -> dict[str, Any]:
    after = [
        r.model_copy(update={"status": "failed"}) if r.status == "infra-error" else r for r in AFTER
    ]
    return runs_actual(after=after)


def _ignore_condition() -> dict[str, Any]:
    with mock.patch.object(compare, "_groups", lambda rs: _groups_by_case(rs)):
        return runs_actual()


def _groups_by_case(records: list[TrialRecord]) -> dict[tuple[str, str, str], list[TrialRecord]]:
    groups: dict[tuple[str, str, str], list[TrialRecord]] = {}
    for r in records:
        groups.setdefault((r.case, r.agent, "default"), []).append(r)
    return groups


RUN_CONTROLS: dict[str, Callable[[], dict[str, Any]]] = {
    "swapped-runs": lambda: runs_actual(AFTER, BEFORE),
    "median-replaced-by-mean": _median_as_mean,
    "error-counted-as-failure": _errors_as_failures,
    "claims-below-three-samples": lambda: runs_actual(min_samples=1),
    "groups-ignore-condition": _ignore_condition,
}


@pytest.mark.parametrize("name", list(RUN_CONTROLS))
def test_broken_run_comparison_disagrees_with_the_fixture(name: str) -> None:
    assert mismatches(RUNS["expected"], RUN_CONTROLS[name]())


def test_two_empty_runs_compare_to_nothing() -> None:
    result = compare_runs([], [])
    assert result.groups == [] and result.only_in_baseline == [] == result.only_in_candidate
    assert set(result.summary.values()) == {0}
    assert {c.verdict for c in result.overall.values()} == {"insufficient-data"}


def test_runs_with_nothing_in_common_are_only_listed() -> None:
    result = compare_runs(BEFORE[:1], AFTER[-1:])
    assert result.groups == []
    assert [o.case for o in result.only_in_baseline] == ["c-improve"]
    assert [o.case for o in result.only_in_candidate] == ["c-new"]


def test_min_samples_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="min_samples"):
        compare_runs([], [], min_samples=0)


# Markdown


def test_ab_markdown_prints_denominators_and_withholds_small_claims() -> None:
    text = render_ab_markdown(analyse_ab(fixture("07_few_samples"), "with-plugin", "baseline"))
    assert "| pass rate | 2/2 (100%) | 0/2 (0%) | +100 pts | no CI | n=2 |" in text
    assert "fewer than 3 pairs: no claim" in text
    assert "## By repository" in text and "## By framework" not in text  # only "(none)"


def test_ab_markdown_lists_incomplete_pairs_with_reasons() -> None:
    text = render_ab_markdown(analyse_ab(fixture("06_error_side"), "with-plugin", "baseline"))
    assert "| `fix-add` | scripted | 2 | baseline eval-error |" in text
    assert "| `fix-add` | scripted | 3/3 | 2/3 | 1 |" in text


def test_ab_markdown_says_why_a_measure_over_few_pairs_makes_no_claim() -> None:
    """Three pairs are enough samples, too few for a bootstrap's claim: the verdict says so,
    not "fewer than 3 pairs", which would be untrue."""
    text = render_ab_markdown(analyse_ab(fixture("06_error_side"), "with-plugin", "baseline"))
    assert (
        "| median elapsed (s) | 12.00 | 16.00 | -4.00 | no CI | n=3 | 3 pairs: too few for a claim |"
        in (text)
    )


def test_ab_markdown_of_an_empty_report_renders() -> None:
    text = render_ab_markdown(analyse_ab([], "t", "b"))
    assert "0 complete, 0 incomplete" in text and "| pass rate | 0/0 | 0/0 |" in text


def test_runs_markdown_prints_denominators_and_one_sided_groups() -> None:
    text = render_runs_markdown(compare_runs(BEFORE, AFTER))
    assert "| `c-improve` | scripted | default | 1/3 | 3/3 |" in text
    assert "| pass rate | 80% | 60% | -20 pts |" in text  # the mean of the groups' rates
    assert "| 0/0 | fewer than 3 scored trials: no claim |" in text  # c-few
    assert "- `c-gone` / scripted / default (2 trials)" in text
    assert "- `c-new` / scripted / default (1 trial)" in text
    assert "| 0/1 |" in text  # c-improve: errors before/after


def test_runs_markdown_counts_one_noun_for_what_a_claim_needs() -> None:
    """The overall comparison's samples are groups: its rule, its withheld verdicts and its
    count of verdicts say so in one noun, and "insufficient-data" (the JSON's) reads "no
    claim", where they said "Claims need 3 groups", "fewer than 3 samples: no claim", "5
    pairs: too few for a claim" and "insufficient-data 1"."""
    text = render_runs_markdown(compare_runs(BEFORE, AFTER))
    assert "Claims need at least 3 groups (6 for a figure that varies)." in text
    assert (
        "| pass rate | 80% | 60% | -20 pts | no CI | n=5 | 5 groups: too few for a claim |" in text
    )
    assert (
        "| file hit rate | n/a | n/a | n/a | no CI | n=0 | fewer than 3 groups: no claim |" in text
    )
    assert "(improved 1, regressed 1, unchanged 1, flaky 1, no claim 1)" in text
    assert "samples" not in text and "insufficient-data" not in text and "pairs" not in text


def test_runs_markdown_of_nothing_renders() -> None:
    text = render_runs_markdown(compare_runs([], []))
    assert "in both runs: 0" in text and text.count("None.") == 2


def _trials(case: str, status: str, count: int) -> list[TrialRecord]:
    return [
        TrialRecord(case=case, agent="a", repeat=i, status=status, passed=status == "passed")
        for i in range(1, count + 1)
    ]


def test_the_overall_pass_rate_is_not_moved_by_the_mix_of_cases() -> None:
    # Simpson's paradox: an easy case that always passes and a hard one that always fails, run
    # 10 and 4 times before, 4 and 10 times after. Pooled, the pass rate falls from 71% to
    # 29%; no case changed, and the comparison must say so.
    before = _trials("easy", "passed", 10) + _trials("hard", "failed", 4)
    after = _trials("easy", "passed", 4) + _trials("hard", "failed", 10)
    overall = compare_runs(before, after, min_samples=2).overall["passRate"]
    assert (overall.baseline, overall.treatment, overall.delta) == (0.5, 0.5, 0.0)
    assert overall.verdict == "unchanged"
    assert (overall.n_treatment, overall.n_baseline) == (2, 2)  # the groups are the samples


def test_an_excluded_trial_is_not_counted_as_an_error() -> None:
    before = _trials("c", "passed", 3)
    after = _trials("c", "passed", 3) + _trials("c", "skipped", 1)
    (group,) = compare_runs(before, after).groups
    assert (group.before_errors, group.after_errors) == (0, 0)
    crashed = _trials("c", "agent-error", 1)
    (group,) = compare_runs(before, after[:3] + crashed).groups
    assert group.after_errors == 1


def _under(condition: str, trials: list[TrialRecord]) -> list[TrialRecord]:
    return [t.model_copy(update={"condition": condition}) for t in trials]


def test_a_case_run_under_one_condition_in_each_run_is_one_group() -> None:
    # A baseline run, then a run of the change as a condition of its own.
    before = _under("baseline", _trials("c", "failed", 4) + _trials("d", "passed", 3))
    after = _under("with-plugin", _trials("c", "passed", 4) + _trials("d", "passed", 3))
    result = compare_runs(before, after)
    assert [(g.case, g.condition, g.candidate_condition) for g in result.groups] == [
        ("c", "baseline", "with-plugin"),
        ("d", "baseline", "with-plugin"),
    ]
    assert result.only_in_baseline == [] == result.only_in_candidate
    (c, _) = result.groups
    assert (c.before_passes, c.after_passes, c.classification) == (0, 4, "improved")
    text = render_runs_markdown(result)
    assert "| `c` | a | baseline → with-plugin | 0/4 | 4/4 |" in text
    assert "2 ran under one condition in each run" in text
    # A run of two conditions says nothing of which stands for which: matched by name only.
    both = after + _under("other", _trials("c", "passed", 4))
    matched = compare_runs(before, both)
    assert [(g.case, g.candidate_condition) for g in matched.groups] == [("d", "with-plugin")]
    assert [o.condition for o in matched.only_in_candidate] == ["other", "with-plugin"]
    # The same condition in both runs stays a group of its own name.
    (same, _) = compare_runs(before, _under("baseline", after)).groups
    assert same.candidate_condition is None


def test_the_overall_pass_rate_of_stable_groups_takes_the_paired_score_interval() -> None:
    """Every group passing all or none of its trials in both runs: each group's rate is a 0 or a
    1, and the groups' delta gets Newcombe's paired score interval, as pairs of trials do (a
    bootstrap of three groups that all passed in both runs would give [0, 0])."""
    cases = ("a", "b", "c")
    before = [t for case in cases for t in _trials(case, "passed", 3)]
    after = list(before)
    overall = compare_runs(before, after).overall["passRate"]
    assert (overall.ci_low, overall.ci_high) == pytest.approx((-0.5615, 0.5615), abs=1e-4)
    assert overall.note.startswith("95% score interval")
    mixed = [t for case in cases for t in _trials(case, "passed", 2) + _trials(case, "failed", 1)]
    overall = compare_runs(before, mixed).overall["passRate"]
    assert overall.note.startswith("95% CI of the mean delta")  # rates of 2/3: a bootstrap


def test_ab_markdown_never_shows_an_interval_excluding_zero_as_reaching_it() -> None:
    """6 pairs: the treatment passed all 6, the baseline 3 (a=3, b=3): Newcombe's interval is
    [+0.0056, +81] points, just above 0; rounded to whole points its lower bound read `+0`, an
    interval that seemed to reach the 0 it excludes. The interval is kept, but its 3 discordant
    pairs, all one way, are p = 0.25 by McNemar's exact test: no claim."""
    trials = [
        {"case": f"c{pair}", "agent": "scripted", "condition": condition, "repeat": 1,
         "status": status, "passed": status == "passed", "score": 0}
        for pair in range(6)
        for condition, status in (
            ("with-plugin", "passed"), ("baseline", "passed" if pair < 3 else "failed"))
    ]  # fmt: skip
    report = analyse_ab(records_of(trials), "with-plugin", "baseline")
    rate = report.overall.comparisons["passRate"]
    assert rate.ci_low is not None and 0 < rate.ci_low < 0.0001
    assert (rate.verdict, rate.exact_p) == ("insufficient-data", 0.25)
    row = next(line for line in render_ab_markdown(report).splitlines() if "| pass rate" in line)
    assert "| +50 pts | [+0.006, +81] pts |" in row, row
    assert row.endswith("| exact test p = 0.25: no claim |"), row


def test_a_claim_withheld_for_pointing_the_other_way_says_so_in_the_markdown() -> None:
    """20 pairs of tool calls (see SPLIT_BASELINE in the stats tests): the median rose by 49
    with an interval above 0, while 15 of the 20 pairs went down (the sign test: p = 0.0414).
    A p-value under 0.05 beside "no claim" would read as a contradiction: the row says the
    test pointed the other way, as the viewer's and the HTML report's figures do."""
    from proctor.report.ab.markdown import comparison_figure
    from tests.unit.stats.test_stats_ab import SPLIT_BASELINE, SPLIT_TREATMENT

    trials = [
        {"case": f"c{pair}", "agent": "scripted", "condition": condition, "repeat": 1,
         "status": "passed", "passed": True, "score": 0, "toolCalls": int(calls)}
        for pair, (after, before) in enumerate(zip(SPLIT_TREATMENT, SPLIT_BASELINE, strict=True))
        for condition, calls in (("with-plugin", after), ("baseline", before))
    ]  # fmt: skip
    report = analyse_ab(records_of(trials), "with-plugin", "baseline")
    calls = report.overall.comparisons["toolCalls"]
    assert (calls.verdict, calls.delta) == ("insufficient-data", 49.0)
    assert calls.exact_p == pytest.approx(0.0414, abs=1e-4)
    assert "disagree in direction" in calls.note
    row = next(line for line in render_ab_markdown(report).splitlines() if "| median tool" in line)
    assert row.endswith("| exact test p = 0.0414 the other way: no claim |"), row
    assert comparison_figure(calls).startswith("55 → 104 (+49, CI [")
    assert comparison_figure(calls).endswith("; exact test p = 0.0414 the other way: no claim)")


def test_bound_text_keeps_a_digit_of_a_bound_that_rounds_to_zero() -> None:
    from proctor.util.text import bound_text

    assert [bound_text(x) for x in (0.00556, -0.00556, 0.0, -0.0, 13.1, 0.5)] == [
        "+0.006", "-0.006", "0", "0", "+13", "+1"]  # fmt: skip
    assert [bound_text(x, 3, signed=False) for x in (5.56e-05, 0.131, 0.0)] == [
        "0.00006", "0.131", "0.000"]  # fmt: skip


def test_bound_text_keeps_one_digit_of_a_bound_that_rounds_up_into_the_next() -> None:
    """0.00096 to its first significant digit is 0.001: not 0.0010, two digits of which one
    is only the carry of the rounding."""
    from proctor.util.text import bound_text, seconds_text

    assert [bound_text(x) for x in (0.0096, -0.00096, 0.0095, 0.00094)] == [
        "+0.01", "-0.001", "+0.01", "+0.0009"]  # fmt: skip
    assert seconds_text(0.00096, signed=True, bound=True) == "+0.001"
    assert bound_text(0.0000996, 3, signed=False) == "0.0001"


def test_bound_text_shows_a_float_s_own_rounding_of_zero_as_zero() -> None:
    """0.1 + 0.2 - 0.3 is no bound of 6e-17: a figure's last bits are not a digit to keep."""
    from proctor.util.text import bound_text

    assert bound_text(0.1 + 0.2 - 0.3, 3, signed=False) == "0.000"
    assert bound_text(-(0.1 + 0.2 - 0.3)) == "0"
    assert bound_text(2e-9, 3, signed=False) == "0.000000002"  # past the noise: kept


def _one_way(pairs: int) -> list[TrialRecord]:
    """``pairs`` pairs of one case where only the treatment passed."""
    return records_of([
        {"case": "fix", "agent": "scripted", "condition": condition, "repeat": repeat,
         "status": status, "passed": status == "passed", "score": 0}
        for repeat in range(1, pairs + 1)
        for condition, status in (("with-plugin", "passed"), ("baseline", "failed"))
    ])  # fmt: skip


@pytest.mark.parametrize(
    ("pairs", "verdict", "shown"),
    [
        (3, "insufficient-data", "exact test p = 0.25: no claim"),
        (5, "insufficient-data", "exact test p = 0.0625: no claim"),
        (6, "improved", "improved"),
    ],
)
def test_a_pass_rate_claim_needs_mcnemars_exact_test_in_every_view(
    pairs: int, verdict: str, shown: str
) -> None:
    """Only the treatment passed, in every pair: Newcombe's interval excludes 0 from 3 pairs
    on, but McNemar's exact test reaches p ≤ 0.05 only at 6 (2 · 0.5⁶ = 0.031). The verdict is
    the overall's, the case's and the slice's alike, and the Markdown's row (the HTML report's
    and the viewer's) says it; the A/B gate, on the interval, passes all the same."""
    records = _one_way(pairs)
    report = analyse_ab(records, "with-plugin", "baseline")
    for group in (report.overall, report.cases[0]):
        rate = group.comparisons["passRate"]
        assert rate.verdict == verdict and rate.ci_low is not None and rate.ci_low > 0
    assert report.to_dict()["overall"]["comparisons"]["passRate"]["exactP"] == 2 * 0.5**pairs
    _, rows = ab_overall_table(report)
    assert rows[0][0] == "pass rate" and rows[0][-1] == shown
    gate = ab_gate(records, "with-plugin", "baseline", max_pass_rate_drop=0.0)
    assert gate.passed and gate.ci_low is not None and gate.ci_low > 0


def _calls(pairs: int, treatment_calls: int, baseline_calls: int) -> list[TrialRecord]:
    """``pairs`` pairs of one case where only the treatment passed, each side's trials
    making the same number of tool calls."""
    return records_of([
        {"case": "fix", "agent": "scripted", "condition": condition, "repeat": repeat,
         "status": status, "passed": status == "passed", "score": 0, "toolCalls": calls,
         "process": {"steps": {"toolCalls": calls}}}
        for repeat in range(1, pairs + 1)
        for condition, status, calls in (
            ("with-plugin", "passed", treatment_calls), ("baseline", "failed", baseline_calls))
    ])  # fmt: skip


def test_a_paired_measure_claims_no_more_than_the_pass_rate_beside_it() -> None:
    """Three pairs, each one tool call more under the treatment: the bootstrap's interval is
    [+1, +1], yet the sign test of the 3 pairs gives p = 0.25, as McNemar's does of the pass
    rate's 3 pairs beside it: neither is claimed (the median was `regressed`)."""
    report = analyse_ab(_calls(3, 1, 0), "with-plugin", "baseline")
    calls = report.overall.comparisons["toolCalls"]
    assert (calls.ci_low, calls.ci_high, calls.verdict) == (1.0, 1.0, "insufficient-data")
    assert calls.exact_p == 0.25 and "the sign test of the 3 pairs that differ" in calls.note
    _, rows = ab_overall_table(report)
    verdicts = {row[0]: row[-1] for row in rows}
    assert verdicts["median tool calls"] == verdicts["pass rate"] == "exact test p = 0.25: no claim"
    six = analyse_ab(_calls(6, 1, 0), "with-plugin", "baseline").overall.comparisons
    assert (six["toolCalls"].verdict, six["passRate"].verdict) == ("regressed", "improved")


def test_the_ab_markdown_says_what_a_rates_claim_takes() -> None:
    """8 discordant pairs against 1 are claimed (p = 0.039): "at least 6 such pairs, all one
    way" said otherwise."""
    records = records_of([
        {"case": f"c{pair}", "agent": "scripted", "condition": condition, "repeat": 1,
         "status": status, "passed": status == "passed", "score": 0}
        for pair in range(9)
        for condition, status in (
            ("with-plugin", "passed" if pair < 8 else "failed"),
            ("baseline", "failed" if pair < 8 else "passed"))
    ])  # fmt: skip
    report = analyse_ab(records, "with-plugin", "baseline")
    assert report.overall.comparisons["passRate"].verdict == "improved"
    markdown = render_ab_markdown(report)
    assert "at least 6 such pairs all one way, or more with some the other way (8 against 1)" in (
        markdown
    )
    assert "such pairs, all one way." not in markdown


def test_a_groups_withheld_claim_shows_its_exact_test_in_the_markdown_and_the_viewer() -> None:
    """A group's 0/3 → 3/3: the score interval [+21, +100] points excludes 0, Fisher's exact
    test gives p = 0.1; its row and the viewer's figure said the interval alone beside the
    classification `improved`. 8/35 → 4/6: p = 0.0500095 reads 0.05001, never 0.05."""
    from proctor.report.ab.markdown import comparison_figure

    comparison = compare_runs(_trials("fix", "failed", 3), _trials("fix", "passed", 3))
    group = comparison.groups[0]
    rate = group.comparisons["passRate"]
    assert (rate.verdict, rate.exact_p) == ("insufficient-data", pytest.approx(0.1))
    row = next(line for line in render_runs_markdown(comparison).splitlines() if "`fix`" in line)
    assert "| +100 pts [+21, +100] pts (exact test p = 0.1: no claim) |" in row, row
    assert comparison_figure(rate) == (
        "0% → 100% (+100 pts, CI [+21, +100] pts; exact test p = 0.1: no claim)"
    )
    before = _trials("fix", "passed", 8) + _trials("fix", "failed", 27)
    after = _trials("fix", "passed", 4) + _trials("fix", "failed", 2)
    near = compare_runs(before, after).groups[0].comparisons["passRate"]
    assert near.exact_p == pytest.approx(0.0500095, abs=1e-7)
    assert comparison_figure(near).endswith("; exact test p = 0.05001: no claim)")
