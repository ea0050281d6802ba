"""Degenerate and edge inputs of the A/B functions: each documented behaviour pinned."""

from __future__ import annotations

from typing import Any
from unittest import mock

import pytest

import proctor.report.ab.analysis as ab
from proctor.models.run import AnnotationsRecord
from proctor.models.trial import TrialAnnotation, TrialRecord
from proctor.report.ab.analysis import ab_gate, analyse_ab
from proctor.report.ab.measures import (
    elapsed_seconds,
    first_relevant_file,
    first_relevant_seconds,
    tool_calls,
    total_tokens,
)
from proctor.report.ab.pairs import pair_trials, side_of
from proctor.report.ab.sides import classify_outcomes, compare_sides
from proctor.report.annotations import apply_annotations
from proctor.stats import Comparison, Interval


def trial(
    condition: str = "t",
    repeat: int = 1,
    status: str = "passed",
    *,
    case: str = "c",
    agent: str = "a",
    **fields: Any,
) -> TrialRecord:
    return TrialRecord.model_validate(
        {"case": case, "agent": agent, "condition": condition, "repeat": repeat, "status": status}
        | fields
    )


# measures


def test_elapsed_prefers_process_then_agent_ms_then_none() -> None:
    assert (
        elapsed_seconds(trial(process={"effort": {"elapsedSeconds": 3}}, timings={"agentMs": 9000}))
        == 3.0
    )
    assert (
        elapsed_seconds(
            trial(process={"effort": {"elapsedSeconds": None}}, timings={"agentMs": 9000})
        )
        == 9.0
    )
    assert elapsed_seconds(trial(timings={"agentMs": 1500})) == 1.5
    assert elapsed_seconds(trial()) is None


def test_a_timed_out_trial_took_at_least_its_agent_time() -> None:
    """Its events stop at the last one written (one event: 0 s); the agent worked on until
    the time limit stopped it at 4 s. A trial that finished keeps its events' span."""
    timed_out = trial(
        status="timeout", process={"effort": {"elapsedSeconds": 0.0}}, timings={"agentMs": 4001}
    )
    assert elapsed_seconds(timed_out) == 4.001
    longer = trial(
        status="timeout", process={"effort": {"elapsedSeconds": 5.0}}, timings={"agentMs": 4001}
    )
    assert elapsed_seconds(longer) == 5.0
    finished = trial(process={"effort": {"elapsedSeconds": 0.5}}, timings={"agentMs": 4001})
    assert elapsed_seconds(finished) == 0.5


def test_a_transcript_with_no_time_span_gives_the_agent_time() -> None:
    """Every event at one instant (the scripted agent's plan of no step): a span of 0 s
    measured nothing, and counted as the fastest trial of its group; the agent time, as for
    a transcript with no times, stands in, and with no agent time either it is unknown."""
    instant = trial(process={"effort": {"elapsedSeconds": 0.0}}, timings={"agentMs": 4001})
    assert elapsed_seconds(instant) == 4.001
    assert elapsed_seconds(trial(process={"effort": {"elapsedSeconds": 0.0}})) is None


def test_tool_calls_prefer_process_steps_then_record() -> None:
    assert tool_calls(trial(process={"steps": {"toolCalls": 4}}, toolCalls=7)) == 4
    assert tool_calls(trial(toolCalls=7)) == 7, "no process metrics: the record's count"
    assert tool_calls(trial()) == 0


def test_tokens_sum_four_fields_over_models_and_zero_without_usage() -> None:
    usage = {
        "m1": {"inputTokens": 1, "outputTokens": 2, "cacheReadTokens": 4, "cacheWriteTokens": 8},
        "m2": {"inputTokens": 16},
    }
    assert total_tokens(trial(usage=usage)) == 31
    assert total_tokens(trial()) == 0


def test_first_relevant_seconds_is_none_without_process_or_value() -> None:
    assert first_relevant_seconds(trial()) is None
    assert first_relevant_seconds(trial(process={"context": {}})) is None
    assert first_relevant_seconds(trial(process={"context": {"firstRelevantSeconds": 2}})) == 2.0


@pytest.mark.parametrize(
    ("context", "expected"),
    [
        ({"firstRelevantFile": "b", "expectedFiles": ["a", "b"], "filesRead": ["a", "b"]}, "b"),
        ({"firstRelevantStep": 0, "expectedFiles": ["b"], "filesRead": ["a", "b"]}, None),
        ({}, None),
    ],
)
def test_first_relevant_file(context: dict[str, Any], expected: str | None) -> None:
    assert first_relevant_file(trial(process={"context": context})) == expected
    assert first_relevant_file(trial()) is None


def test_a_version_1_record_keeps_the_first_relevant_file_it_was_read_with() -> None:
    context = {"firstRelevantStep": 0, "expectedFiles": ["b", "a"], "filesRead": ["a", "b"]}
    data = TrialRecord.upgrade({"process": {"context": context}}, 1)
    assert data["process"]["context"]["firstRelevantFile"] == "a"


# pairing


def test_pairing_empty_input_gives_nothing() -> None:
    assert pair_trials([], "t", "b") == ([], [])


def test_pairing_the_same_condition_twice_is_refused() -> None:
    with pytest.raises(ValueError, match="same condition"):
        pair_trials([trial()], "t", "t")


def test_other_conditions_are_not_part_of_the_pair() -> None:
    pairs, incomplete = pair_trials([trial("t"), trial("b"), trial("other")], "t", "b")
    assert len(pairs) == 1 and incomplete == []


@pytest.mark.parametrize(
    ("records", "reason"),
    [
        (
            [trial("t", status="agent-error"), trial("b", status="infra-error")],
            "treatment agent-error; baseline infra-error",
        ),
        ([trial("t", status="skipped"), trial("b")], "treatment skipped"),
        ([trial("b", status="eval-error")], "missing treatment; baseline eval-error"),
        ([trial("t"), trial("t"), trial("b")], "2 treatment trials for one repeat"),
    ],
)
def test_unusable_sides_are_reported_with_a_reason(records: list[TrialRecord], reason: str) -> None:
    pairs, incomplete = pair_trials(records, "t", "b")
    assert pairs == [] and [i.reason for i in incomplete] == [reason]


def test_a_side_a_person_excluded_is_said_so_not_skipped() -> None:
    """``proctor annotate --verdict excluded`` reads the trial back as ``skipped``; the pair's
    reason says a person left it out, not that the run skipped it."""
    mark = TrialAnnotation(trial="c/a/b/1", verdict="excluded", note="drifted", at="now")
    records = apply_annotations(
        [trial("t"), trial("b", status="failed")], AnnotationsRecord(annotations=[mark])
    )
    _, incomplete = pair_trials(records, "t", "b")
    assert [i.reason for i in incomplete] == ["baseline excluded by hand"]
    assert incomplete[0].baseline_status == "skipped"


def test_duplicate_side_has_no_single_status() -> None:
    _, incomplete = pair_trials([trial("t"), trial("t", status="failed"), trial("b")], "t", "b")
    assert incomplete[0].treatment_status is None and incomplete[0].baseline_status == "passed"


def test_planned_repeats_that_never_ran_on_either_side_are_incomplete() -> None:
    planned = [("c", "a", cond, r) for cond in ("t", "b", "other") for r in (1, 2, 3)]
    records = [trial("t", 1), trial("b", 1), trial("t", 2)]
    pairs, incomplete = pair_trials(records, "t", "b", planned)
    assert [p.repeat for p in pairs] == [1]
    assert [(i.repeat, i.reason) for i in incomplete] == [
        (2, "missing baseline"),
        (3, "neither side ran (the run stopped before this repeat)"),
    ]
    # Without the plan, the repeat nobody started cannot be seen.
    assert [i.repeat for i in pair_trials(records, "t", "b")[1]] == [2]
    # A planned repeat of other conditions only is no pair of these two.
    assert pair_trials([], "t", "b", [("c", "a", "other", 1)]) == ([], [])


def test_the_aggregate_lists_never_started_pairs_of_its_matrix() -> None:
    from proctor.models.config import Gate
    from proctor.report.aggregate import aggregate

    cells = [("c", "a", cond, r) for cond in ("t", "b") for r in (1, 2)]
    suite = aggregate(
        [trial("t", 1), trial("b", 1)], Gate(), run_id="r", interrupted=True, cells=cells
    )
    assert suite.ab is not None
    assert [(i.repeat, i.treatment_status) for i in suite.ab.incomplete] == [(2, None)]


def test_timeout_pairs_as_a_failure() -> None:
    pairs, _ = pair_trials([trial("t", status="timeout"), trial("b")], "t", "b")
    assert pairs[0].treatment.passed is False and pairs[0].delta.success == -1


def test_pair_labels_take_the_baseline_then_fill_from_the_treatment() -> None:
    t = trial("t", labels={"repository": "r-t", "bucket": "small"})
    b = trial("b", labels={"repository": "r-b"})
    labels = pair_trials([t, b], "t", "b")[0][0].labels
    assert (labels.repository, labels.bucket) == ("r-b", "small")


# analysis


def test_empty_analysis_is_empty_and_claims_nothing() -> None:
    report = analyse_ab([], "t", "b")
    assert (report.pairs, report.incomplete, report.cases) == ([], [], [])
    assert report.by_dimension == {d: {} for d in ab.DIMENSIONS}
    assert report.overall.pairs == 0
    assert {c.verdict for c in report.overall.comparisons.values()} == {"insufficient-data"}
    assert report.overall.comparisons["passRate"].delta is None


def test_a_case_with_only_incomplete_pairs_is_still_listed() -> None:
    report = analyse_ab([trial("t", status="agent-error"), trial("b")], "t", "b")
    (case,) = report.cases
    assert (case.pairs, case.incomplete, case.classification) == (0, 1, "insufficient-data")
    assert "0 complete pairs" in case.note


def test_min_samples_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="min_samples"):
        analyse_ab([], "t", "b", min_samples=0)


def test_report_json_uses_camel_case() -> None:
    records = [trial("t", labels={"goalShape": "fix"}), trial("b")]
    data = analyse_ab(records, "t", "b").to_dict()
    assert {"byDimension", "minSamples", "overall", "incomplete"} <= set(data)
    assert {"treatmentPasses", "baselinePasses"} <= set(data["overall"])
    assert {"nTreatment", "ciLow", "ciHigh"} <= set(data["overall"]["comparisons"]["passRate"])
    assert "goalShape" in data["pairs"][0]["labels"]
    assert "firstRelevantSeconds" in data["pairs"][0]["delta"]


def test_the_seed_makes_the_report_reproducible() -> None:
    records = [trial(c, r, s) for r in range(1, 6) for c, s in (("t", "passed"), ("b", "failed"))]
    records[0] = trial("t", 1, "failed")
    assert analyse_ab(records, "t", "b", seed=7) == analyse_ab(records, "t", "b", seed=7)


# comparisons and gate


def test_paired_sides_must_have_equal_lengths() -> None:
    with pytest.raises(ValueError, match="differ in length"):
        compare_sides([side_of(trial())], [], paired=True, seed=0, min_samples=1)


def test_unpaired_empty_sides_claim_nothing() -> None:
    result = compare_sides([], [], paired=False, seed=0, min_samples=1)
    assert {c.verdict for c in result.values()} == {"insufficient-data"}


def test_classification_needs_min_samples_on_the_smaller_side() -> None:
    assert classify_outcomes([True] * 3, [False] * 2, 3, "x")[0] == "insufficient-data"
    assert classify_outcomes([True] * 3, [False] * 3, 3, "x") == (
        "improved",
        "3/3 vs 0/3 passed: improved.",
    )


@pytest.mark.parametrize("drop", [-0.01, 1.01])
def test_gate_refuses_a_drop_outside_zero_to_one(drop: float) -> None:
    with pytest.raises(ValueError, match="max_pass_rate_drop"):
        ab_gate([], "t", "b", drop)


def test_gate_without_trials_fails() -> None:
    result = ab_gate([], "t", "b", 0.1)
    assert not result.passed and result.pairs == 0
    assert result.message.startswith("no complete 't'/'b' pair (0 incomplete pairs)")


def test_gate_lower_bound_at_the_threshold_passes_despite_rounding() -> None:
    rounded = Comparison(
        metric="passRate",
        n_treatment=3,
        n_baseline=3,
        treatment=0.7,
        baseline=0.8,
        delta=0.7 - 0.8,
        ci=Interval(low=0.7 - 0.8, high=0.0, confidence=0.95),
        verdict="unchanged",
        note="",
    )
    assert 0.7 - 0.8 < -0.1  # the float the tolerance is for
    records = [trial(c, r) for r in range(1, 4) for c in ("t", "b")]
    with mock.patch.object(ab, "compare_values", return_value={"passRate": rounded}):
        assert ab_gate(records, "t", "b", 0.1).passed
        assert not ab_gate(records, "t", "b", 0.09).passed


def test_the_gate_delta_is_rounded_once_not_taken_from_the_rounded_rates() -> None:
    # 2/3 - 1/3 = 0.333333; the rates as rounded, 0.666667 - 0.333333, gave 0.333334.
    records = [trial("t", r, "failed" if r == 3 else "passed") for r in range(1, 4)]
    records += [trial("b", r, "passed" if r == 1 else "failed") for r in range(1, 4)]
    assert ab_gate(records, "t", "b", 1.0).delta == 0.333333


def test_three_identical_passing_pairs_cannot_rule_out_a_drop() -> None:
    # Three pairs that all passed on both sides are consistent with a treatment that passes
    # 44% of the time: the score interval says so, where a bootstrap of the pairs gave [0, 0]
    # and passed a gate allowing no drop.
    records = [trial(c, r) for r in range(1, 4) for c in ("t", "b")]
    result = ab_gate(records, "t", "b", 0.0)
    assert not result.passed and "beyond" in result.message
    assert result.ci_low == pytest.approx(-0.5615, abs=1e-4)
    assert result.ci_high == pytest.approx(0.5615, abs=1e-4)
    assert ab_gate(records, "t", "b", 0.6).passed


def test_public_names() -> None:
    assert set(ab.__all__) == {"DIMENSIONS", "UNLABELLED", "ab_gate", "analyse_ab"}


def test_a_case_the_plan_never_ran_under_both_conditions_is_no_pair() -> None:
    planned = [("x", "a", cond, r) for cond in ("default", "treat") for r in (1, 2)]
    planned += [("y", "a", "default", r) for r in (1, 2)]
    records = [trial(cond, r, case="x") for cond in ("default", "treat") for r in (1, 2)]
    records += [trial("default", r, case="y") for r in (1, 2)]
    pairs, incomplete = pair_trials(records, "treat", "default", planned)
    assert [(p.case, p.repeat) for p in pairs] == [("x", 1), ("x", 2)] and incomplete == []
    # Without the plan the run cannot tell, and y is listed as missing its treatment.
    _, unknown = pair_trials(records, "treat", "default")
    assert [(i.case, i.reason) for i in unknown] == [("y", "missing treatment")] * 2


@pytest.mark.parametrize(
    ("metric", "value", "shown"),
    [
        ("elapsedSeconds", 0.3333, "0.33"),  # two decimals, as suite.md's elapsed s
        ("elapsedSeconds", 12.0, "12.00"),
        ("firstRelevantSeconds", 0.034, "0.03"),
        ("elapsedSeconds", 0.004, "0.00"),
        ("elapsedSeconds", -0.0071, "-0.01"),
        ("toolCalls", -0.04, "-0.04"),
        ("tokens", 2.5, "2.5"),
        ("tokens", 1600.0, "1,600"),
        ("searchSteps", 3.0, "3"),
    ],
)
def test_small_figures_keep_their_digits_and_sign(metric: str, value: float, shown: str) -> None:
    from proctor.report.ab.markdown import _num

    assert _num(metric, value) == shown and _num(metric, value) not in ("0.0", "-0.0")
    if value:  # a bound of a CI that is not 0 never reads as 0
        assert float(_num(metric, value, True, bound=True).replace(",", "")) != 0


def test_the_gate_says_the_allowed_drop_as_it_was_given() -> None:
    records = [trial(c, r) for r in range(1, 4) for c in ("t", "b")]
    message = ab_gate(records, "t", "b", 0.3195).message
    assert "the allowed drop of 0.3195" in message  # not 0.32, which the bound may equal
    assert "the allowed drop of 0.1:" in ab_gate(records, "t", "b", 0.1).message


def test_seconds_in_pairs_and_comparisons_carry_no_float_noise() -> None:
    """Sums and differences of measured seconds are kept to a microsecond: 1.234567 s against
    2.003994 s is a delta of -0.769427, not -0.7694270000000001, and 107.581 ms of agent time
    is 0.107581 s, not 0.10758100000000001. A comparison's delta is that of the sides shown."""
    import json
    import re

    from proctor.models.io import model_to_json
    from proctor.report.ab.runs import compare_runs

    seconds = [(1.234567, 2.003994), (2.003994, 1.567893), (5.123456, 3.120462)]
    records = [
        trial(cond, repeat, process={"effort": {"elapsedSeconds": value}})
        for repeat, pair in enumerate(seconds, 1)
        for cond, value in zip(("t", "b"), pair, strict=True)
    ]
    report = analyse_ab(records, "t", "b", min_samples=1)
    assert report.pairs[0].delta.elapsed_seconds == -0.769427
    elapsed = report.overall.comparisons["elapsedSeconds"]
    assert (elapsed.treatment, elapsed.baseline, elapsed.delta) == (2.003994, 2.003994, 0.0)
    agent = [trial("t", 1, timings={"agentMs": 107.581}), trial("b", 1, timings={"agentMs": 1.0})]
    assert side_of(agent[0]).elapsed_seconds == 0.107581
    assert analyse_ab(agent, "t", "b", min_samples=1).pairs[0].delta.elapsed_seconds == 0.106581
    before = [
        trial("t", r, process={"effort": {"elapsedSeconds": s}})
        for r, s in ((1, 1.0), (2, 3.005988))
    ]
    after = [
        trial("t", r, process={"effort": {"elapsedSeconds": s}})
        for r, s in ((1, 2.0), (2, 1.234567))
    ]
    group = compare_runs(before, after, min_samples=1).groups[0].comparisons["elapsedSeconds"]
    assert (group.treatment, group.baseline, group.delta) == (1.617284, 2.002994, -0.38571)
    text = model_to_json(report)
    noisy = re.findall(r'"(?!ci)\w+": (-?\d+\.\d{7,})', text)
    assert noisy == [], noisy
    assert json.loads(text)["pairs"][2]["delta"]["elapsedSeconds"] == 2.002994


def test_the_note_of_too_few_samples_counts_in_the_singular_and_plural() -> None:
    from proctor.report.ab.sides import classify_outcomes

    one = classify_outcomes([True], [False, True], 3, "scored trial", " on the smaller side")
    assert one == (
        "insufficient-data",
        "1 scored trial on the smaller side: fewer than 3 samples, no claim.",
    )
    none = classify_outcomes([], [], 1, "complete pair")
    assert none[1] == "0 complete pairs: fewer than 1 sample, no claim."


def test_the_gate_message_keeps_a_digit_of_a_lower_bound_just_below_zero() -> None:
    """Five pairs (both passed 1, only the treatment 3, neither 1): the interval's lower bound
    is -0.000285, so a gate allowing no drop fails; the message read `CI [-0.000, …]; the lower
    bound is beyond the allowed drop of 0`, a bound that looked like 0 said to be beyond 0."""
    outcomes = [("passed", "passed")] + [("passed", "failed")] * 3 + [("failed", "failed")]
    records = [
        trial(condition, repeat, status)
        for repeat, sides in enumerate(outcomes, start=1)
        for condition, status in zip(("t", "b"), sides, strict=True)
    ]
    result = ab_gate(records, "t", "b", 0.0)
    assert not result.passed and result.ci_low is not None and -0.0003 < result.ci_low < 0
    assert "95% CI [-0.0003, +0.832]" in result.message, result.message
    assert "beyond the allowed drop of 0: failed" in result.message
