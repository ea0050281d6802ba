"""From what the phases of a trial produced to its status, verdict and reason.

Status precedence when several things go wrong: infra-error > agent-error > timeout >
eval-error > passed/failed. An exception that ends a trial early gets its status from
:data:`FAILURE_STATUSES`, the one table that maps errors to statuses.
"""

from __future__ import annotations

import traceback
from collections.abc import Sequence
from dataclasses import dataclass

from proctor.drive.driver import TurnOutcome
from proctor.drive.policy import AnsweringFailed
from proctor.errors import AgentError, EvaluatorError, ProctorError, WorkspaceError
from proctor.evaluators.combiners import COMBINERS, below_threshold
from proctor.execute.context import Interrupted
from proctor.models.trial import (
    NOT_EVALUATED_HERE,
    ErrorInfo,
    EvaluatorResult,
    TrialStatus,
    not_evaluated,
)
from proctor.util.text import plural

FAILURE_STATUSES: tuple[tuple[type[BaseException], TrialStatus], ...] = (
    (Interrupted, "infra-error"),
    (AnsweringFailed, "infra-error"),
    (WorkspaceError, "infra-error"),
    (AgentError, "agent-error"),
    (EvaluatorError, "eval-error"),
    (ProctorError, "infra-error"),
    (BaseException, "infra-error"),
)
"""Error type → the status of a trial it ends (the first type that matches). An answering
model that fails says nothing about the agent (infra-error); a CLI that cannot be launched or
driven does (agent-error)."""
EXPECTED = (AnsweringFailed, WorkspaceError, AgentError, EvaluatorError)
"""Errors whose message says it all: recorded without a traceback."""


@dataclass(frozen=True)
class Verdict:
    status: TrialStatus
    passed: bool | None
    score: float | None
    reason: str
    error: ErrorInfo | None = None


def failure_verdict(exc: BaseException) -> Verdict:
    """The verdict of a trial that an exception ended."""
    status = next(s for kind, s in FAILURE_STATUSES if isinstance(exc, kind))
    if isinstance(exc, Interrupted):
        return Verdict(
            status, None, None, "interrupted: the run was stopped before this trial ended"
        )
    if isinstance(exc, EXPECTED):
        error = ErrorInfo(type=type(exc).__name__, message=str(exc), traceback=None)
        return Verdict(status, None, None, str(exc), error)
    error = ErrorInfo(
        type=type(exc).__name__,
        message=str(exc),
        traceback="".join(traceback.format_exception(exc)),
    )
    return Verdict(status, None, None, f"harness error: {type(exc).__name__}: {exc}", error)


def verdict_reason(
    passed: bool,
    score: float,
    threshold: float,
    results: list[EvaluatorResult],
    *,
    combiner: str = "gated-mean",
    labels: Sequence[str | None] = (),
) -> str:
    """Why a trial passed or failed, by its ``combiner``; each evaluator named by its label
    (``labels``: the case's evaluators' in order, one per result), else its ``use``."""
    named = len(labels) == len(results)

    def told(index: int, result: EvaluatorResult) -> str:
        return f"{(labels[index] if named else None) or result.use}: {result.message}"

    failed_gates = [told(i, r) for i, r in enumerate(results) if r.gate and not r.passed]
    if failed_gates:
        return "gate failed: " + "; ".join(failed_gates)
    failing = [told(i, r) for i, r in enumerate(results) if not r.passed and r.counted]
    if combiner == "all-pass":
        counted = sum(r.counted and not r.error for r in results)
        if passed:
            return f"every evaluator passed ({counted} of {counted})"
        return f"not every evaluator passed ({len(failing)} of {counted} failed: " + (
            "; ".join(failing) + ")"
        )
    if passed:
        return f"score {score:g} >= {threshold:g}"
    return f"score {score:g} < {threshold:g}" + (" (" + "; ".join(failing) + ")" if failing else "")


def agent_failure(outcome: TurnOutcome, exit_code: int | None, failure: str | None) -> str | None:
    """Why the agent itself failed, or None."""
    if failure is not None:
        return failure
    if outcome.kind == "exited" and exit_code is not None and exit_code != 0:
        return f"agent exited with code {exit_code} before its turn ended"
    if outcome.kind == "exited" and exit_code is None:
        return "agent closed its terminal and did not exit"
    if outcome.kind == "turn-end" and exit_code != 0:
        how = "did not exit" if exit_code is None else f"exited with code {exit_code}"
        return f"agent {how} when asked to quit"
    return None


def none_ran(results: Sequence[EvaluatorResult]) -> bool:
    """Whether the trial has evaluators and none of them ran under its condition (each entry's
    ``conditions`` names others): nothing judged it, and it is skipped, not passed."""
    return bool(results) and all(r.details.get("notRun") for r in results)


def decide(
    outcome: TurnOutcome,
    exit_code: int | None,
    failure: str | None,
    results: list[EvaluatorResult],
    *,
    combiner: str,
    threshold: float,
    timeout_sec: float,
    unevaluated: str = "",
    labels: Sequence[str | None] = (),
) -> Verdict:
    """The verdict of a trial whose phases all ran. A trial the run did not evaluate
    (``unevaluated``: the cause, such as ``--no-evaluate``) that ended normally is
    ``skipped``: recorded, not scored, its reason naming the cause."""
    errored = [r for r in results if r.error]
    counted = [r for r in results if not r.error and r.counted]  # metrics-only results aside
    passed, score = COMBINERS[combiner](counted, threshold)
    failed_agent = agent_failure(outcome, exit_code, failure)
    if failed_agent is not None:
        return Verdict("agent-error", None, None, failed_agent)
    if outcome.kind == "timeout":
        reason = f"agent did not finish within {timeout_sec:g}s"
        return Verdict("timeout", False, below_threshold(score, threshold), reason)
    if outcome.kind == "over-budget":  # judged after evaluation, by the same rule: failed
        reason = "over budget: the agent was stopped mid-turn"
        return Verdict("failed", False, below_threshold(score, threshold), reason)
    if unevaluated:
        return Verdict("skipped", None, None, not_evaluated(unevaluated))
    if none_ran(results):
        return Verdict("skipped", None, None, NOT_EVALUATED_HERE)
    if errored:
        reason = "; ".join(f"{r.use}: {r.message}" for r in errored)
        return Verdict("eval-error", None, None, reason)
    if outcome.kind == "unanswered" and outcome.question is not None:
        reason = f"unanswered question: {outcome.question.text}"
        reason += f" ({outcome.detail})" if outcome.detail else ""
        return Verdict("failed", False, below_threshold(score, threshold), reason)
    reason = verdict_reason(passed, score, threshold, results, combiner=combiner, labels=labels)
    return Verdict("passed" if passed else "failed", passed, score, reason)


def talked_verdict(
    outcome: TurnOutcome,
    exit_code: int | None,
    failure: str | None,
    results: list[EvaluatorResult],
    *,
    skipped: str | None,
    error: str | None,
    turns_done: int,
    timeout_sec: float,
    agent_error: str | None = None,
    threshold: float = 60.0,
    stopped_at: str | None = None,
) -> Verdict:
    """The verdict of a trial an eval written as code drove: its gates decide, not how the
    agent's last turn ended (a turn the test expected to park is its business). An agent that
    failed in a turn (``agent_error``: it exited, in any turn, without the test declaring that
    exit expected) is ``agent-error``, as in every trial; the test's own error is
    ``eval-error``; running out of time, ``timeout``; ``t.skip``, ``skipped``. The score is
    the mean of the assertions' scores (a soft one's as it scored); a failed trial's is capped
    just below ``threshold``, the case's pass threshold, as any failed trial's is."""
    unknown_code = "agent exited before its turn ended"  # a terminal session's, known at its end
    if agent_error is not None and unknown_code in agent_error and outcome.kind == "exited":
        if exit_code == 0 and failure is None:
            agent_error = None  # it quit cleanly (a /exit the test sent): no crash, as in a case
        elif exit_code:
            known = f"agent exited with code {exit_code} before its turn ended"
            agent_error = agent_error.replace(unknown_code, known, 1)
    if agent_error is not None and skipped is None:
        return Verdict("agent-error", None, None, agent_error)
    if error is not None:
        return Verdict("eval-error", None, None, error)
    if outcome.kind == "timeout":
        at = f" (the test was at {stopped_at})" if stopped_at else ""
        reason = f"the eval did not finish within {timeout_sec:g}s{at}"
        return Verdict("timeout", False, 0.0, reason)
    if skipped is not None:
        return Verdict("skipped", None, None, skipped)
    hard = [r for r in results if r.gate and r.counted]
    if not hard:
        if turns_done == 0:
            # The agent is asked to quit only after a turn: without one, its exit says nothing.
            real = failure is not None or outcome.kind == "exited"
            why = (agent_failure(outcome, exit_code, failure) if real else None) or (
                "no turn completed (no message was sent, or each turn parked on a request "
                "nobody answered)"
            )
            return Verdict("failed", False, 0.0, f"no explicit gate, and {why}")
        return Verdict("passed", True, 100.0, "no explicit gate; a turn completed")
    failed = [r for r in hard if not r.passed]
    # Every assertion as it scored, a soft one's too; the result carrying the test's t.metric
    # values (proctor.evals.conversation.EVAL_METRICS) is no assertion.
    scored = [r.score for r in results if not r.error and r.use != "eval-metrics"]
    score = round(sum(scored) / len(scored), 4) if scored else 0.0
    if failed:
        reason = "gate failed: " + "; ".join(r.message for r in failed[:5])
        return Verdict("failed", False, below_threshold(score, threshold), reason)
    return Verdict("passed", True, score, f"{plural(len(hard), 'gate')} passed")
