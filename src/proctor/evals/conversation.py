"""Running one eval case as a trial's conversation: the test function gets ``t`` over the
trial's session, under the case's timeout; what it recorded becomes the trial's evaluator
results (one per assertion), its metrics and logs."""

from __future__ import annotations

import asyncio
import sys
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from proctor.drive.driver import TurnOutcome
from proctor.drive.talk import Talk, Talked
from proctor.evals.arguments import argument_error
from proctor.evals.awaited import (
    LeftRunning,
    NotAwaited,
    ThreadLeftRunning,
    left_running,
    left_thread,
    quiet_cancelled_futures,
    tasks_of_the_test,
    unawaited,
)
from proctor.evals.context import TestContext
from proctor.evals.define import TestFn
from proctor.evals.frames import raised_below
from proctor.evals.judges import JudgeError
from proctor.evals.loaders import project_root
from proctor.evals.names import near_names
from proctor.evaluators.gates.assertions import Assertion, RequireFailed, Skipped
from proctor.evaluators.gates.matching import calls_of
from proctor.models.io import write_record
from proctor.models.trial import (
    EvalAssertionRecord,
    EvalResultRecord,
    EvalToolCall,
    EvaluatorResult,
)
from proctor.scripted.offered import played_steps
from proctor.scripted.plan import NOTHING_LEFT
from proctor.scripted.turns import overplayed, says_nothing_left, unplayed
from proctor.util.cutting import masked_short
from proctor.util.masking import mask
from proctor.util.text import joined_lines

MODEL_REQUESTS = "model-requests.jsonl"
"""The scripted model server's request log in the trial's folder (``paths.model_requests``)."""
EVAL_RESULT = "eval.json"
"""Beside ``trial.json``: the case's assertions, logs, metrics and inputs as the test saw them."""


@dataclass(frozen=True)
class EvalCaseRun:
    """What a worker needs to run one eval case (iterations are the trial's repeats)."""

    id: str
    test: TestFn
    iterations: int
    timeout_sec: float
    judge: str | None = None
    verbose: bool = False
    picked: tuple[int, ...] = ()
    """The iterations chosen (repeat n runs iteration ``picked[n - 1]``); all when empty."""
    plan: dict[str, Any] | None = None
    """The plan the case's agent or model plays, as its eval wrote it (None when a real model
    ignores it): iteration ``i`` plays variant ``i``, whichever iterations run with it."""

    def iteration(self, repeat: int) -> int:
        return self.picked[repeat - 1] if 0 < repeat <= len(self.picked) else repeat

    def run_id(self, repeat: int) -> str:
        return f"{self.id}/{self.iteration(repeat)}" if self.iterations > 1 else self.id


def to_result(a: Assertion) -> EvaluatorResult:
    score = a.score if a.score is not None else (1.0 if a.passed else 0.0)
    return EvaluatorResult(
        use="eval",
        passed=a.passed,
        score=round(100 * score, 4),
        gate=not a.soft,
        weight=0.0 if not a.soft else 1.0,
        counted=not a.soft,
        message=a.name if a.passed else f"{a.name}: {a.message}{_at(a)}",
        details={
            "name": a.name,
            "soft": a.soft,
            "score": a.score,
            "turn": a.turn,
            "why": a.message,
            "at": a.at,
            # A judge's kind: the findings ledger takes up what an earlier release named
            # ``judge.<kind>`` alone (see proctor.report.checks.earlier_checks).
            **({"judge": a.judge} if a.judge else {}),
            **({"bar": a.bar} if a.bar is not None else {}),
        },
    )


EVAL_METRICS = "eval-metrics"
"""The ``use`` of the evaluator result that carries a case's ``t.metric`` values into
``trial.json``: measurements, never part of the verdict, rolled up by name as an ``external``
program's metrics without a ``scoreMetric`` are."""
METRIC_PREFIX = "eval."
"""What a ``t.metric`` name is prefixed with in ``trial.json`` and the reports (``eval.calls``),
so that it never adds up with a metric of proctor's own evaluators (``exit_code``, …)."""


def metrics_result(metrics: dict[str, float]) -> EvaluatorResult | None:
    """The result carrying the test's ``t.metric`` values (see :data:`EVAL_METRICS`); None
    when it recorded none."""
    if not metrics:
        return None
    named = {f"{METRIC_PREFIX}{name}": value for name, value in metrics.items()}
    shown = ", ".join(f"{name} {value:g}" for name, value in named.items())
    return EvaluatorResult(
        use=EVAL_METRICS,
        passed=True,
        score=100.0,
        gate=False,
        weight=0.0,
        counted=False,
        message=f"t.metric: {shown} (not scored)",
        metrics=named,
    )


def _at(a: Assertion) -> str:
    """`` (at FILE:LINE)``: where the test called a failed gate, as an error names its line."""
    return f" (at {a.at})" if a.at else ""


def conversation_for(case: EvalCaseRun) -> Callable[[Talk], Talked]:
    def converse(talk: Talk) -> Talked:
        t = TestContext(
            talk,
            iteration=case.iteration(talk.repeat),
            iterations=case.iterations,
            judge_model=case.judge,
            on_log=(lambda m: _stream_log(case.run_id(talk.repeat), m)) if case.verbose else None,
        )
        left = max(talk.deadline - time.monotonic(), 0.01)
        # What the test prints goes to stderr: stdout is proctor's (its --json). This runs in
        # the trial's own worker process, so nothing else writes to stdout meanwhile; a test
        # left running past its time may still print, so then stdout stays sent to stderr
        # until the worker ends with the trial.
        shown, sys.stdout = sys.stdout, sys.stderr
        ended = run_with_watchdog(case.test, t, left)
        t._returned = True  # a test left behind out of time records nothing that counts
        if not isinstance(ended, OutOfTime):
            sys.stdout = shown
        skipped = error = None
        timed_out = isinstance(ended, OutOfTime)
        if isinstance(ended, Skipped):
            skipped = str(ended) or "skipped"
        elif isinstance(ended, JudgeError):
            where = _test_line(ended)  # the judge's call in the eval file
            error = f"{ended} (at {where.filename}:{where.lineno})"
        elif ended is not None and not isinstance(ended, (OutOfTime, RequireFailed)):
            where = _test_line(ended)
            if (
                isinstance(ended, NotAwaited | LeftRunning | ThreadLeftRunning)
                and ended.where is not None
            ):
                where = ended.where  # the line of the call, not of the check after the test
            # Raised in a module of the project the eval file calls (a helper): its line too.
            inner = _helper_line(traceback.extract_tb(ended.__traceback__), where)
            helper = f", raised at {inner.filename}:{inner.lineno}" if inner else ""
            # An exception without a message (a bare ``assert``) is shown by its line's code.
            code = ((inner or where).line or "").strip()
            said = (str(ended) or code) + (near_names(ended) or "")
            error = f"{type(ended).__name__}: {said} (at {where.filename}:{where.lineno}{helper})"
            # t.send(timout_ms=...): the near ones named; t.check(1, 2, "x"): which are keywords.
            # Still a TypeError, named so as an argument of the wrong type is.
            misspelt = argument_error(ended)
            if misspelt is not None:
                error = f"TypeError: {misspelt} (at {where.filename}:{where.lineno}{helper})"
        seen = list(t.recorded.late)
        late = _late(seen)
        if late is not None and error is None and not skipped and not timed_out:
            error = late
        turns = t.turns
        last = TurnOutcome("timeout") if timed_out else TurnOutcome("turn-end")
        if not timed_out and turns and turns[-1].outcome in ("exited", "timeout", "interrupted"):
            # (an interrupted turn's terminal session is stopped: it is asked nothing more)
            last = TurnOutcome(turns[-1].outcome)  # type: ignore[arg-type]
        stopped_at = t._stopped_at if timed_out else None
        if last.kind == "timeout" and not timed_out and t._turns[-1].at:
            # The agent's turn ran out of the case's time, and the test went on to return.
            stopped_at = f"{t._turns[-1].at}, in turn {len(turns)}"
        # A failed t.require stopped the test: the sends after it were written, not forgotten.
        stopped = isinstance(ended, RequireFailed)
        ended_well = not (timed_out or skipped or error or stopped or t._agent_failure())
        # Named by the iteration's variant in the plan as written (a/2 run alone plays the
        # second, though its generated plan.json holds only that one).
        unplayed = _unplayed(case.plan, case.iteration(talk.repeat), t) if ended_well else None
        warnings = [unplayed] if unplayed else []
        idle = _overplayed(case.plan, case.iteration(talk.repeat), t)
        if idle:
            warnings.append(idle)
        if late is not None and error != late:
            warnings.append(late)
        if ended_well and not turns and not unplayed and t.recorded.assertions:
            warnings.append(NO_MESSAGE)
        if t._gave_back is not None and error is None and not timed_out:
            warnings.append(_gave_back(case.test, t._gave_back))
        _write_eval_json(talk, t, case, skipped, error, warnings)
        # A gate recorded from now on comes after the verdict: said on stderr, as it comes.
        t._on_late = lambda a: _warn_late(case.run_id(talk.repeat), a)
        for gate in t.recorded.late[len(seen) :]:
            _warn_late(case.run_id(talk.repeat), gate)
        return Talked(
            outcome=last,
            results=[to_result(a) for a in list(t.recorded.assertions)]
            + [m for m in [metrics_result(dict(t.recorded.metrics))] if m is not None],
            skipped=skipped,
            error=error,
            turns_done=sum(1 for turn in turns if turn.ok),
            # An agent that exits in any turn, not only the last, crashed: agent-error, unless
            # the test declared that exit expected (turn.expect_exit()).
            agent_error=t._agent_failure(),
            stopped_at=stopped_at,
            warnings=warnings,
        )

    return converse


def _late(gates: list[Assertion]) -> str | None:
    """The sentence for gates the test recorded after it returned, or None."""
    if not gates:
        return None
    first = gates[0]
    more = f" (and {len(gates) - 1} more)" if len(gates) > 1 else ""
    return (
        f"the gate {first.name}{more} was recorded after the test returned, by a task or "
        "thread the test left running, so it could not decide the case; wait for what records "
        f"it before the test returns{_at(first)}"
    )


def _warn_late(run_id: str, gate: Assertion) -> None:
    """A gate recorded after its case was decided (a thread the test left running)."""
    print(
        f"proctor: warning: {run_id}: the gate {gate.name}{_at(gate)} was recorded after the "
        "case was decided, by a thread the test left running, so it is not counted",
        file=sys.stderr,
    )


def _stream_log(run_id: str, message: str) -> None:
    """A ``t.log`` line on stderr as it is logged (``--verbose``), every key masked as in
    the files the run writes; one line, its control characters shown, never obeyed (the
    files keep it as logged)."""
    print(f"  [{run_id}] {mask(joined_lines(message))}", file=sys.stderr)


def run_with_watchdog(test: TestFn, t: TestContext, seconds: float) -> BaseException | None:
    """Run the test on its own thread and event loop; how it ended (None when it returned).
    A test still running at ``seconds`` (blocked, or looping without awaiting) is left behind
    as a ``TimeoutError``: the trial ends and its processes are stopped with the worker."""
    ended: list[BaseException | None] = []

    def main() -> None:
        try:
            asyncio.run(_run(test, t, seconds))
            ended.append(None)
        except BaseException as exc:  # every way out is the test's outcome
            ended.append(exc)

    thread = threading.Thread(target=main, name="eval-test", daemon=True)
    thread.start()
    thread.join(seconds + GRACE_SEC)
    if thread.is_alive():
        t.signal.set()
        if t._stopped_at is None:  # blocked without awaiting: where its thread is now
            frame = sys._current_frames().get(thread.ident or 0)
            t._stopped_at = _where(traceback.extract_stack(frame) if frame else [], t)
        return OutOfTime(f"the test did not return within {seconds:g}s")
    return ended[0] if ended else None


GRACE_SEC = 0.5
"""How long past its time a cooperative test gets to see ``t.signal`` and return."""


async def _run(test: TestFn, t: TestContext, seconds: float) -> None:
    loop = asyncio.get_running_loop()
    own = tasks_of_the_test()  # (a library's task the test's calls start is not one)
    quiet_cancelled_futures()
    timer = loop.call_later(seconds, t.signal.set)
    started = loop.time()
    try:
        t._gave_back = await asyncio.wait_for(test(t), timeout=seconds)
    except TimeoutError as exc:
        if loop.time() - started < seconds:
            raise  # the test's own (an asyncio.wait_for of its own): an error in the test
        # Where the test was awaiting when it was cancelled (the cancellation's traceback).
        cancelled = exc.__cause__ or exc.__context__
        frames = traceback.extract_tb(cancelled.__traceback__) if cancelled else []
        t._stopped_at = _where(frames, t)
        raise OutOfTime(f"the test did not return within {seconds:g}s") from exc
    finally:
        t._returned = True  # a gate recorded from now on is late (a task or thread left)
        timer.cancel()
        forgotten = unawaited(t._made)  # each closed, so Python does not warn of it too
    if forgotten is not None:
        # The turn (or judge) it meant never ran: the gates read a conversation without it.
        raise NotAwaited(forgotten)
    task = left_running(own)
    if task is not None:
        # asyncio.run cancels it as it closes the loop: a gate after its await never runs.
        raise LeftRunning(task, own.get(task))
    thread = left_thread()
    if thread is not None:
        raise ThreadLeftRunning(thread)


NO_MESSAGE = (
    "the test sent no message, so no agent ran and its gates read an empty conversation; "
    "call await t.send(...) before them"
)
"""A case that passed or failed on gates alone: a forgotten ``t.send`` passes every
``not_called_tool`` and a ``t.check`` of a constant."""


def _gave_back(test: TestFn, value: Any) -> str:
    """The sentence for a test that returned a value: what a test returns decides nothing
    (``return False`` passes a case whose gates passed), as pytest warns of a test's return."""
    code = getattr(test, "__code__", None)
    where = f" ({code.co_filename}:{code.co_firstlineno})" if code is not None else ""
    return (
        f"the test{where} returned {masked_short(_shown(value), 80)}, which decides nothing: a "
        "case passes or fails on its gates: gate the value instead, as "
        "t.check(value, expected) does"
    )


def _shown(value: Any) -> str:
    """A value the test returned, as a warning shows it: its ``repr`` kept short (a long
    string or container is never written out whole), or its type's name when its ``repr``
    raises (``<BadRepr instance at 0x…>``, as reprlib gives it: a warning never fails the
    case)."""
    import reprlib

    shown = reprlib.Repr()
    shown.maxstring = shown.maxother = shown.maxlong = 100
    try:
        return shown.repr(value)
    except Exception:
        return f"a {type(value).__name__} (whose repr() raised)"


class OutOfTime(TimeoutError):
    """The case's own time ran out (not a TimeoutError the test raised itself)."""


def _where(frames: list[traceback.FrameSummary], t: TestContext) -> str | None:
    """``FILE:LINE`` of the innermost of ``frames`` in an eval file, with the line of a module
    of the project below it that the test was in (``, inside …/helpers.py:3``: a helper that
    blocks or awaits, the innermost of the project's own code, as an error a helper raises
    names it) and the turn that was being sent when it was in one (``, in turn 2``); None when
    no frame is an eval file's."""
    at = [i for i, f in enumerate(frames) if f.filename.endswith(".eval.py")]
    if not at:
        return None
    line = frames[at[-1]]
    inner = raised_below(frames, at[-1], project_root())
    inside = f", inside {inner.filename}:{inner.lineno}" if inner else ""
    sending = t._sending
    if sending is None and t._turns and t._turns[-1].outcome.kind == "timeout":
        sending = len(t._turns)  # its turn ran out of time as the test did, and just ended
    return f"{line.filename}:{line.lineno}{inside}" + (f", in turn {sending}" if sending else "")


def _test_line(error: BaseException) -> traceback.FrameSummary:
    """Where in the eval file the error came from: its last frame in a ``*.eval.py`` (the
    line of the test), else the last frame of all."""
    frames = traceback.extract_tb(error.__traceback__)
    own = [f for f in frames if f.filename.endswith(".eval.py")]
    return (own or frames)[-1]


def _helper_line(
    frames: list[traceback.FrameSummary], where: traceback.FrameSummary
) -> traceback.FrameSummary | None:
    """The line of a module of the project (a ``helpers.py`` the eval file imports) that
    raised an error whose ``frames`` pass through the eval file's line ``where`` (the last
    of them there): the innermost frame of the project's own code below it
    (:func:`~proctor.evals.frames.raised_below`); None when the eval file raised it, or a
    library did."""
    key = (where.filename, where.lineno, where.name)
    at = [i for i, f in enumerate(frames) if (f.filename, f.lineno, f.name) == key]
    return raised_below(frames, at[-1], project_root()) if at else None


def _unplayed(plan: dict[str, Any] | None, repeat: int, t: TestContext) -> str | None:
    """The plan's steps no message of the test reached (:func:`unplayed`), when every turn
    completed: a turn that parked or exited says so itself."""
    if plan is None or any(not turn.ok for turn in t.turns) or t._talk is None:
        return None
    # A real CLI on the scripted model: its request log says which steps it played (a
    # question it asked as plain text ended its turn, and the test's answer was a message).
    played = played_steps(t._talk.trial_dir / MODEL_REQUESTS) if t.turns else None
    return unplayed(plan, "default", repeat, len(t.turns), "the test", played)


def _overplayed(plan: dict[str, Any] | None, repeat: int, t: TestContext) -> str | None:
    """The turns the test sent after the plan's last (:func:`overplayed`): each completed with
    the agent's reply :data:`NOTHING_LEFT` alone and no tool call, so it played no step. Said
    however the case ended: those turns ran, and did nothing the eval wrote for them."""
    if plan is None or says_nothing_left(plan):
        return None
    idle = [
        turn.index
        for turn in t.turns
        if turn.ok and turn.message.strip() == NOTHING_LEFT and not turn.tool_calls
    ]
    return overplayed(plan, "default", repeat, len(t.turns), "the test", idle)


def _write_eval_json(
    talk: Talk,
    t: TestContext,
    case: EvalCaseRun,
    skipped: str | None,
    error: str | None,
    warnings: list[str],
) -> None:
    record = EvalResultRecord(
        id=case.run_id(talk.repeat),
        iteration=case.iteration(talk.repeat),
        assertions=[EvalAssertionRecord(**a.to_json()) for a in t.recorded.assertions],
        logs=t.recorded.logs,
        metrics=t.recorded.metrics,
        inputs=t.inputs,
        tool_calls=[
            EvalToolCall(
                tool_name=c.name, is_error=c.is_error, kind=c.call.kind, turn=t._turn_of(c)
            )
            for c in calls_of(t.events)
        ],
        turn_outcomes=[turn.outcome for turn in t.turns],
        skipped=skipped,
        error=error,
        final_text=t.reply,
        warnings=warnings,
    )
    write_record(talk.trial_dir / EVAL_RESULT, record)
