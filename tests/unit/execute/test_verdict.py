"""From the phases' output to a trial's status: the one table of failures, and precedence."""

from __future__ import annotations

import pytest

from proctor.agents.protocol import Question
from proctor.drive.driver import TurnOutcome
from proctor.drive.policy import AnsweringFailed
from proctor.errors import AgentError, ConfigError, EvaluatorError, WorkspaceError
from proctor.execute.context import Interrupted
from proctor.execute.verdict import FAILURE_STATUSES, decide, failure_verdict
from proctor.models.trial import EvaluatorResult


def result(passed: bool, *, gate: bool = False, error: bool = False) -> EvaluatorResult:
    score = 100.0 if passed else 0.0
    return EvaluatorResult(use="x", passed=passed, score=score, gate=gate, error=error, message="m")


def verdict(
    outcome: str, exit_code: int | None, results: list[EvaluatorResult], failure: str | None = None
) -> tuple[str, bool | None, float | None, str]:
    question = Question("Which?") if outcome == "unanswered" else None
    v = decide(
        TurnOutcome(outcome, question=question),  # type: ignore[arg-type]
        exit_code,
        failure,
        results,
        combiner="gated-mean",
        threshold=60,
        timeout_sec=5,
    )
    return v.status, v.passed, v.score, v.reason


@pytest.mark.parametrize(
    ("exc", "status", "traceback"),
    [
        (Interrupted(), "infra-error", False),
        (AnsweringFailed("answering model x failed: 401"), "infra-error", False),
        (WorkspaceError("unsafe zip"), "infra-error", False),
        (AgentError("the 'claude' CLI was not found"), "agent-error", False),
        (EvaluatorError("judge failed"), "eval-error", False),
        (ConfigError("bad"), "infra-error", True),
        (RuntimeError("bug"), "infra-error", True),
        (KeyboardInterrupt(), "infra-error", True),
    ],
)
def test_each_error_has_one_status(exc: BaseException, status: str, traceback: bool) -> None:
    v = failure_verdict(exc)
    assert (v.status, v.passed, v.score) == (status, None, None)
    assert (v.error is not None and v.error.traceback is not None) == traceback


def test_the_table_ends_with_a_catch_all() -> None:
    assert FAILURE_STATUSES[-1] == (BaseException, "infra-error")


def test_a_finished_turn_and_a_clean_exit_pass_on_their_evaluators() -> None:
    assert verdict("turn-end", 0, [result(True)])[:3] == ("passed", True, 100.0)
    assert verdict("turn-end", 0, [result(False)])[:3] == ("failed", False, 0.0)


def test_agent_failures_come_before_everything_else() -> None:
    assert verdict("turn-end", 0, [result(True)], failure="quota exhausted: x")[0] == "agent-error"
    assert (
        verdict("exited", 3, [result(True)])[3] == "agent exited with code 3 before its turn ended"
    )
    assert verdict("turn-end", None, [result(True)])[3] == "agent did not exit when asked to quit"


def test_a_timeout_fails_with_a_score_below_the_threshold() -> None:
    status, passed, score, reason = verdict("timeout", None, [result(True)])
    assert (status, passed) == ("timeout", False) and score == 59.0
    assert reason == "agent did not finish within 5s"


def test_an_evaluator_error_discards_the_verdict() -> None:
    assert verdict("turn-end", 0, [result(True), result(False, error=True)])[:3] == (
        "eval-error",
        None,
        None,
    )


def test_an_unanswered_question_fails_even_with_passing_evaluators() -> None:
    status, passed, score, reason = verdict("unanswered", None, [result(True)])
    assert (status, passed, score) == ("failed", False, 59.0)
    assert reason == "unanswered question: Which?"


def test_an_answer_naming_no_option_says_so_in_the_reason() -> None:
    outcome = TurnOutcome(
        "unanswered", question=Question("Which?"), detail='the answer "Deny" is none of its options'
    )
    v = decide(
        outcome, None, None, [result(True)], combiner="gated-mean", threshold=60, timeout_sec=5
    )
    assert (v.status, v.reason) == (
        "failed",
        'unanswered question: Which? (the answer "Deny" is none of its options)',
    )


def _reason(combiner: str, results: list[EvaluatorResult], labels: list[str | None]) -> str:
    v = decide(
        TurnOutcome("turn-end"),
        0,
        None,
        results,
        combiner=combiner,
        threshold=60,
        timeout_sec=5,
        labels=labels,
    )
    return v.reason


def test_the_reason_is_the_combiners_and_names_evaluators_by_label() -> None:
    """All-pass fails a trial whose score is above the threshold: its reason says why (not a
    comparison of the score that is false); a labelled evaluator is named by its label."""
    results = [result(True), result(True), result(False)]
    told = _reason("all-pass", results, [None, "b", "tests"])
    assert told == "not every evaluator passed (1 of 3 failed: tests: m)"
    assert _reason("all-pass", results[:2], [None, "b"]) == "every evaluator passed (2 of 2)"
    # The control: the gated mean passes 66.7 against 60, by its score.
    assert _reason("gated-mean", results, [None, "b", "tests"]) == "score 66.6667 >= 60"
    below = _reason("gated-mean", [result(False), result(True), result(False)], [None, "b", None])
    assert below == "score 33.3333 < 60 (x: m; x: m)"
    gate = _reason("all-pass", [result(False, gate=True)], ["unit tests"])
    assert gate == "gate failed: unit tests: m"


def test_a_trial_not_evaluated_names_its_cause() -> None:
    v = decide(
        TurnOutcome("turn-end"),
        0,
        None,
        [],
        combiner="gated-mean",
        threshold=60,
        timeout_sec=5,
        unevaluated="--no-evaluate",
    )
    assert (v.status, v.reason) == (
        "skipped",
        "not evaluated: the run was told not to evaluate this case (--no-evaluate)",
    )
