"""The repeat check's comparison: what it finds between two repetitions' trial records, what
it ignores (time, tokens, dollars, model-backed evaluators), and a control that never compares."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from proctor.models.process import (
    ContextMetrics,
    Effort,
    Orientation,
    ProcessMetrics,
    RuleResult,
    StepCounts,
)
from proctor.models.trajectory import ModelUsage
from proctor.models.trial import EvaluatorResult, Timings, TrialRecord, TrialStatus
from proctor.session.repeat_comparison import (
    EXCLUDED_PROCESS_FIELDS,
    MODEL_BACKED,
    Comparison,
    Presence,
    compare_repetitions,
    model_backed_uses,
)
from proctor.session.repeat_result import RepeatCheck, Repetition

BACKED = frozenset({"llm-judge"})
Compare = Callable[..., Comparison]


def trial(
    *,
    case: str = "fix",
    repeat: int = 1,
    status: TrialStatus = "passed",
    score: float = 75.5,
    coverage: float = 75.5,
    recall: float = 0.5,
    fired: bool = True,
    rework: int | bool = 0,
    judge: float | None = 80.0,
    seconds: float = 0.5,
    tokens: int = 10,
    total_ms: float = 1000.0,
) -> TrialRecord:
    evaluators = [
        EvaluatorResult(use="command", passed=True, score=100.0, metrics={"exit_code": 0.0}),
        EvaluatorResult(use="external", passed=True, score=score, metrics={"coverage": coverage}),
    ]
    if judge is not None:
        evaluators.append(EvaluatorResult(use="llm-judge", passed=True, score=judge))
    return TrialRecord(
        case=case,
        agent="scripted",
        repeat=repeat,
        status=status,
        evaluators=evaluators,
        timings=Timings(total_ms=total_ms, agent_ms=total_ms / 2),
        usage={"scripted": ModelUsage(input_tokens=tokens, responses=2)},
        process=ProcessMetrics(
            is_task=True,
            steps=StepCounts(tool_calls=3, reads=1, edits=1, by_kind={"read": 1, "edit": 1}),
            orientation=Orientation(
                reads_before_first_edit=1, steps_before_first_edit=1, seconds_to_first_edit=seconds
            ),
            context=ContextMetrics(recall=recall, first_relevant_seconds=seconds / 2),
            effort=Effort(
                elapsed_seconds=seconds * 3,
                tool_calls=3,
                tokens={"scripted": ModelUsage(input_tokens=tokens)},
                cost=tokens / 1000,
            ),
        ),
        rules=[
            RuleResult(rule="unverified", fired=fired, value=False),
            RuleResult(rule="rework", fired=False, value=rework, threshold=3),
        ],
    )


def only_difference(comparison: Comparison) -> tuple[str, Any, Any]:
    assert len(comparison.differences) == 1, comparison.differences
    found = comparison.differences[0]
    return found.path, found.first, found.other


def test_identical_records_have_no_difference() -> None:
    comparison = compare_repetitions([trial()], [trial()], model_backed=BACKED)
    assert comparison.differences == []
    assert (comparison.trials, comparison.evaluators) == (1, 2)


@pytest.mark.parametrize(
    ("changed", "path", "first", "other"),
    [
        ({"score": 75.25}, "evaluators[1] (external).score", 75.5, 75.25),
        ({"coverage": 70.0}, "evaluators[1] (external).metrics.coverage", 75.5, 70.0),
        ({"recall": 1.0}, "process.context.recall", 0.5, 1.0),
        ({"fired": False}, "rules.unverified.fired", True, False),
        ({"rework": 1}, "rules.rework.value", 0, 1),
    ],
)
def test_a_changed_result_metric_or_rule_is_named(
    changed: dict[str, Any], path: str, first: Any, other: Any
) -> None:
    comparison = compare_repetitions([trial()], [trial(**changed)], model_backed=BACKED)
    assert only_difference(comparison) == (path, first, other)


def test_the_first_difference_is_one_sentence_naming_trial_path_and_both_values() -> None:
    comparison = compare_repetitions(
        [trial()], [trial(score=75.25)], repetition=3, model_backed=BACKED
    )
    assert comparison.differences[0].sentence() == (
        "trial fix/scripted/default/1: evaluators[1] (external).score is 75.5 in "
        "repetition 1 and 75.25 in repetition 3"
    )


def test_floats_are_compared_exactly_and_types_matter() -> None:
    near = compare_repetitions([trial(recall=0.3)], [trial(recall=0.1 + 0.2)], model_backed=BACKED)
    assert only_difference(near)[0] == "process.context.recall"
    typed = compare_repetitions([trial(rework=1)], [trial(rework=True)], model_backed=BACKED)
    assert only_difference(typed) == ("rules.rework.value", 1, True)


def test_time_token_and_cost_fields_are_ignored() -> None:
    first = trial(seconds=0.5, tokens=10, total_ms=1000.0)
    other = trial(seconds=9.25, tokens=99, total_ms=7777.0)
    assert compare_repetitions([first], [other], model_backed=BACKED).differences == []
    assert EXCLUDED_PROCESS_FIELDS == (
        "orientation.secondsToFirstEdit",
        "context.firstRelevantSeconds",
        "effort.elapsedSeconds",
        "effort.tokens",
        "effort.cost",
    )


def test_a_model_backed_evaluator_is_ignored_and_listed() -> None:
    comparison = compare_repetitions([trial(judge=80.0)], [trial(judge=20.0)], model_backed=BACKED)
    assert comparison.differences == []
    assert [(e.what, e.reason) for e in comparison.excluded] == [
        ("fix: evaluators[2] (llm-judge)", MODEL_BACKED)
    ]
    assert comparison.evaluators == 2


def test_the_judge_is_compared_when_not_declared_model_backed() -> None:
    """Control: the same records differ once the judge counts as deterministic."""
    comparison = compare_repetitions(
        [trial(judge=80.0)], [trial(judge=20.0)], model_backed=frozenset()
    )
    assert only_difference(comparison)[0] == "evaluators[2] (llm-judge).score"


def test_the_registry_declares_the_judge_model_backed() -> None:
    uses = model_backed_uses()
    assert "llm-judge" in uses and "command" not in uses and "external" not in uses


def test_status_is_compared_and_a_judged_verdict_may_flip() -> None:
    plain = compare_repetitions(
        [trial(judge=None)], [trial(judge=None, status="failed")], model_backed=BACKED
    )
    assert only_difference(plain) == ("status", "passed", "failed")
    judged = compare_repetitions([trial()], [trial(status="failed")], model_backed=BACKED)
    assert judged.differences == []
    timed_out = compare_repetitions([trial()], [trial(status="timeout")], model_backed=BACKED)
    assert only_difference(timed_out) == ("status", "passed", "timeout")


def test_trials_are_matched_by_key_and_a_missing_one_is_a_difference() -> None:
    first = [trial(repeat=1), trial(repeat=2)]
    assert compare_repetitions(first, first[::-1], model_backed=BACKED).differences == []
    missing = compare_repetitions(first, [trial(repeat=2)], model_backed=BACKED)
    assert only_difference(missing) == ("trial", Presence.PRESENT, Presence.ABSENT)
    assert missing.differences[0].sentence() == (
        "trial fix/scripted/default/1: the trial is present in repetition 1 and absent in "
        "repetition 2"
    )
    extra = compare_repetitions([trial(repeat=1)], first, model_backed=BACKED)
    assert only_difference(extra) == ("trial", Presence.ABSENT, Presence.PRESENT)


def test_an_evaluator_is_named_by_its_label() -> None:
    comparison = compare_repetitions(
        [trial()],
        [trial(score=1.0)],
        model_backed=BACKED,
        labels={"fix": [None, "coverage", None]},
    )
    assert only_difference(comparison)[0] == 'evaluators[1] (external, "coverage").score'


def test_the_check_exits_1_on_a_difference_and_names_the_first() -> None:
    found = compare_repetitions([trial()], [trial(score=1.0, recall=1.0)], model_backed=BACKED)
    runs = [Repetition(n, Path(f"out/run-{n}"), 0) for n in (1, 2)]
    check = RepeatCheck(2, runs, 1, 2, differences=found.differences)
    assert check.exit_code == 1 and check.verdict == "different (2 differences)"
    assert f"- first difference: {found.differences[0].sentence()}" in check.markdown()
    data = check.to_dict()
    assert data["identical"] is False and data["differenceCount"] == 2
    assert data["firstDifference"]["path"] == "evaluators[1] (external).score"
    same = RepeatCheck(2, runs, 1, 2)
    assert same.exit_code == 0 and same.to_dict()["firstDifference"] is None
    assert RepeatCheck(3, runs[:1], interrupted=True).exit_code == 130


def never_compares(
    first: Sequence[TrialRecord], other: Sequence[TrialRecord], **_: Any
) -> Comparison:
    """A broken comparison: it counts the trials and finds nothing."""
    return Comparison(len(first), 0, [], [])


def finds_changes(compare: Compare) -> None:
    for changed in ({"score": 1.0}, {"coverage": 1.0}, {"recall": 1.0}, {"fired": False}):
        comparison = compare([trial()], [trial(**changed)], model_backed=BACKED)
        assert len(comparison.differences) == 1, changed


def test_the_comparison_finds_each_change() -> None:
    finds_changes(compare_repetitions)


def test_control_a_comparison_that_never_compares_fails_the_same_assertions() -> None:
    with pytest.raises(AssertionError):
        finds_changes(never_compares)


def test_an_interrupted_check_counts_the_repetitions_that_finished(tmp_path: Path) -> None:
    check = RepeatCheck(3, interrupted=True)
    check.runs = [
        Repetition(1, tmp_path / "r1", 0),
        Repetition(2, tmp_path / "r2", 130, finished=False),
    ]
    assert check.verdict == "interrupted after 1 of 3 repetitions finished"
    assert check.exit_code == 130
    check.trials, check.evaluators = 17, 3  # what the first repetition ran
    assert "- nothing compared: fewer than two repetitions finished" in check.markdown()
    assert "trials compared" not in check.markdown()
    data = check.to_dict()
    assert (data["trialsCompared"], data["evaluatorsCompared"], data["identical"]) == (0, 0, False)
    assert f"- 2: `{tmp_path / 'r2'}` (its own exit code 130, interrupted)" in check.markdown()
    # Stopped as it wrote its reports, every trial ended: compared, and said interrupted.
    check.runs[1] = Repetition(2, tmp_path / "r2", 130)
    assert "(its own exit code 130, interrupted after its trials ended)" in check.markdown()
    check.runs[1] = Repetition(2, tmp_path / "r2", 0, finished=False)  # cut before its end
    assert f"- 2: `{tmp_path / 'r2'}` (its own exit code 0, interrupted)" in check.markdown()
    check.runs[1] = Repetition(2, tmp_path / "r2", 130, finished=False)
    check.runs.insert(1, Repetition(2, tmp_path / "r1b", 0))  # two finished: compared
    assert "- trials compared: 17 per repetition" in check.markdown()
    assert check.to_dict()["trialsCompared"] == 17
    # Cut short before its run folder was written (the run's start): said so.
    check.runs[-1] = Repetition(3, None, 130, finished=False)
    assert "- 3: interrupted" in check.markdown() and check.finished == 2


def not_run(record: TrialRecord) -> TrialRecord:
    """``record`` with its judge left out under its condition (an entry's ``conditions``)."""
    left_out = EvaluatorResult(
        use="llm-judge",
        passed=True,
        score=0.0,
        counted=False,
        message="not run under condition 'default' (it runs under with-x)",
        details={"notRun": True},
    )
    return record.model_copy(update={"evaluators": [*record.evaluators[:2], left_out]})


def test_an_evaluator_not_run_under_the_condition_is_not_counted_nor_lets_status_flip() -> None:
    """No model judged the trial: its status is compared as any deterministic trial's, and
    the evaluator that did not run is not counted as compared. The control: the judge that
    ran lets the verdict flip."""
    comparison = compare_repetitions(
        [not_run(trial())], [not_run(trial(status="failed"))], model_backed=BACKED
    )
    assert only_difference(comparison) == ("status", "passed", "failed")
    assert comparison.evaluators == 2
    assert comparison.excluded == []  # never ran: not left out either
    judged = compare_repetitions([trial()], [trial(status="failed")], model_backed=BACKED)
    assert judged.differences == []
    assert [e.what for e in judged.excluded] == ["fix: evaluators[2] (llm-judge)"]
