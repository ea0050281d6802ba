"""One trial, start to finish, as phases that hand typed values on: prepared → driven →
collected → evaluated → record. A trial always ends with a ``trial.json``: on success, failure,
timeout, crash or interrupt; a phase that raises ends it with the status the error maps to
(:mod:`proctor.execute.verdict`), and whatever the finished phases produced is kept.
"""

from __future__ import annotations

import os
import shutil
import signal
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from proctor.agents.gemini_cli import said_turn_limit
from proctor.agents.protocol import Launch
from proctor.drive.driver import Driver, SessionLog
from proctor.evaluators.combiners import below_threshold
from proctor.execute.collect import Collected, collect, cut_short_cost, keep_cut_short
from proctor.execute.context import TrialContext, WorkerOptions, was_interrupted
from proctor.execute.driving import Driven, drive
from proctor.execute.evaluate import Evaluated, evaluate
from proctor.execute.live import LiveDiff, LiveTrajectory
from proctor.execute.prepare import Prepared, prepare
from proctor.execute.verdict import Verdict, decide, failure_verdict, talked_verdict
from proctor.models.audit import AUDITED_AGENTS, AuditReport
from proctor.models.io import write_record
from proctor.models.plan import TrialSpec
from proctor.models.pricing import CostInfo
from proctor.models.trajectory import AssistantText, Event, ToolCall, Trajectory, UserMessage
from proctor.models.trial import CaseLabels, Timings, TranscriptInfo, TrialRecord
from proctor.paths import RunPaths
from proctor.scripted.offered import exhausted_prompts, played_steps, unoffered_calls
from proctor.scripted.plan import NOTHING_LEFT
from proctor.scripted.turns import overplayed, says_nothing_left, unplayed
from proctor.util.clock import ms_since, now_iso
from proctor.util.files import remove_tree
from proctor.util.jsonl import last_json_object
from proctor.util.masking import scrub_tree
from proctor.util.processes import kill_descendants, kill_marked

STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}


def _block_stop_signals() -> bool:
    """Hold Ctrl-C and SIGTERM until the trial's record is written (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        return False
    signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    return True


def _let_stop_signals_in() -> None:
    if threading.current_thread() is threading.main_thread():
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)


def case_labels(spec: TrialSpec) -> CaseLabels:
    c = spec.case.case.config
    return CaseLabels(
        repository=c.repository,
        category=c.category,
        framework=c.framework,
        language=c.language,
        bucket=c.bucket,
        goal_shape=c.goal_shape,
    )


@dataclass
class Phases:
    """What the phases of one trial produced, as far as they got, and how long each took."""

    prepared: Prepared | None = None
    driven: Driven | None = None
    collected: Collected | None = None
    evaluated: Evaluated | None = None
    verdict: Verdict | None = None
    audit: AuditReport | None = None
    """The agent's scratch home as provisioned (see :mod:`proctor.addons.audit`)."""
    launch: Launch[Any] | None = None
    session: SessionLog | None = None
    """The driver's log, there also when the agent phase was cut short (``driven`` is None)."""
    kept: tuple[Trajectory, TranscriptInfo] | None = None
    """What a session cut short left in the trial folder (see :func:`keep_cut_short`)."""
    live: LiveTrajectory | None = None
    """The trajectory (and the workspace's diff) written while the agent runs (see
    :mod:`proctor.execute.live`)."""
    times: dict[str, float] = field(default_factory=dict)


def _run_phases(ctx: TrialContext, done: Phases) -> None:
    t = time.monotonic()
    done.prepared = prepare(ctx)
    done.times["prepare"] = ms_since(t)
    t = time.monotonic()
    adapter = done.prepared.adapter
    diff = LiveDiff(done.prepared.before, ctx.workspace, ctx.paths.workspace_diff)
    done.live = LiveTrajectory(adapter, ctx.paths.trajectory, diff)

    def launched(launch: Launch[Any]) -> None:
        done.launch = launch
        if adapter.name not in AUDITED_AGENTS:
            return  # the scripted agent: nothing to audit (and nothing more to import)
        from proctor.addons.audit.trial import trial_audit

        done.audit = trial_audit(ctx.home, ctx.workspace, adapter.name, launch.argv)

    try:

        def opened(driver: Driver) -> None:
            done.session = driver.log  # kept also when the phase is cut short
            # Followed once the agent's process is started: a terminal's is forked, and a
            # process forked while a second thread runs may deadlock on that thread's locks.
            if done.live is not None and done.launch is not None:
                done.live.follow(done.launch)

        done.driven = drive(ctx, done.prepared, launched, opened)
    finally:
        done.live.stop()  # before the trajectory collected from the whole transcript
        # The agent's time also when its phase was cut short (Ctrl-C, a driver that raised):
        # left out, the whole of it read as the harness's (totalMs minus agentMs).
        done.times["agent"] = ms_since(t)
    t = time.monotonic()
    done.collected = collect(ctx, done.prepared, done.driven)
    # The collected trajectory and diff are in place (or none was): no longer the live ones,
    # which a worker that dies while evaluating must not have dropped with them (drop_live).
    done.live.remove_if_left()
    done.times["collect"] = ms_since(t)
    t = time.monotonic()
    done.evaluated = evaluate(ctx, done.prepared, done.collected, done.driven)
    done.times["evaluate"] = ms_since(t)
    spec, log = ctx.spec, done.driven.log
    if done.driven.answering_failed is not None:
        done.verdict = failure_verdict(done.driven.answering_failed)
        return
    talked = done.driven.talked
    if talked is not None:  # an eval written as code: its assertions are the evaluation
        done.evaluated.results.extend(talked.results)
        done.verdict = talked_verdict(
            done.driven.outcome,
            log.exit_code,
            log.failure,
            done.evaluated.results,
            skipped=talked.skipped,
            error=talked.error,
            turns_done=talked.turns_done,
            timeout_sec=spec.case.timeout_sec,
            agent_error=talked.agent_error,
            stopped_at=talked.stopped_at,
            threshold=spec.case.pass_threshold,
        )
        return
    done.verdict = decide(
        done.driven.outcome,
        log.exit_code,
        log.failure,
        done.evaluated.results,
        combiner=spec.case.combiner,
        threshold=spec.case.pass_threshold,
        timeout_sec=spec.case.timeout_sec,
        unevaluated=spec.case.why_not_evaluated,
        labels=[e.label for e in spec.case.evaluators],
    )
    done.verdict = within_budget(done.verdict, spec, done.collected.trajectory, log.stopped)


def timings(done: Phases, started_at: str, total_ms: float) -> Timings:
    agent_ms = done.times.get("agent", 0.0)
    log = done.driven.log if done.driven is not None else done.session
    react = round(log.react_ms, 3) if log is not None else 0.0
    return Timings(
        prepare_ms=done.times.get("prepare", 0.0),
        agent_ms=agent_ms,
        collect_ms=done.times.get("collect", 0.0),
        evaluate_ms=done.times.get("evaluate", 0.0),
        total_ms=total_ms,
        harness_ms=round(total_ms - agent_ms, 3),
        agent_pure_ms=round(max(agent_ms - react, 0.0), 3),
        harness_react_ms=react,
        turns_total=log.turns if log is not None else 0,
        question_turns=done.driven.question_turns if done.driven is not None else 0,
        interruptions=done.driven.interruptions if done.driven is not None else 0,
        started_at=started_at,
        finished_at=now_iso(),
    )


def within_budget(
    verdict: Verdict, spec: TrialSpec, trajectory: Trajectory, stopped: str | None = None
) -> Verdict:
    """The verdict, or ``failed`` when the trial went over its step budget (``maxTurns``: model
    responses; ``maxToolCalls``: tool calls, a search of the agent's own tool list not counted).
    A CLI that stopped itself at its turn limit is over budget too, not an agent error;
    ``stopped`` is why proctor stopped the agent mid-turn, when it did."""
    over: list[str] = [stopped] if stopped else []
    calls = len(trajectory.agent_calls())
    if spec.max_tool_calls is not None and calls > spec.max_tool_calls and not stopped:
        over.append(f"{calls} tool calls > maxToolCalls {spec.max_tool_calls}")
    turns = sum(u.responses for u in trajectory.usage.values())
    if spec.max_turns is not None and turns > spec.max_turns and not stopped:
        over.append(f"{turns} model turns > maxTurns {spec.max_turns}")
    if spec.max_turns is not None and (
        "max_turns" in verdict.reason or said_turn_limit(trajectory.events, verdict.reason)
    ):  # Claude Code's error_max_turns; Gemini CLI's maxSessionTurns
        over.append(f"the agent stopped at its turn limit (maxTurns {spec.max_turns})")
    if not over or verdict.status in ("infra-error", "timeout"):
        return verdict
    score = below_threshold(verdict.score or 0.0, spec.case.pass_threshold)
    return Verdict("failed", False, score, "over budget: " + "; ".join(over))


def self_report(trajectory: Trajectory) -> tuple[dict[str, Any] | None, str | None]:
    """The JSON object that ends the agent's final answer, or why there is none."""
    texts = [e.text for e in trajectory.events if isinstance(e, AssistantText) and e.text]
    if not texts:
        return None, "the agent gave no final answer"
    found = last_json_object(texts[-1])
    return (found, None) if found is not None else (None, "its final answer holds no JSON object")


def build_record(ctx: TrialContext, done: Phases, verdict: Verdict, times: Timings) -> TrialRecord:
    spec = ctx.spec
    record = TrialRecord(
        case=spec.case.name,
        agent=spec.agent,
        condition=spec.condition,
        repeat=spec.repeat,
        status=verdict.status,
        passed=verdict.passed,
        score=verdict.score,
        reason=verdict.reason,
        error=verdict.error,
        combiner=spec.case.combiner,
        pass_threshold=spec.case.pass_threshold,
        tags=spec.case.case.tags,
        labels=case_labels(spec),
        agent_model=spec.agent_model,
        agent_effort=spec.agent_effort,
        timings=times,
    )
    if done.prepared is not None:
        record.agent_version = done.prepared.agent_version
        record.warnings = _plan_warnings(ctx, spec, done)
        record.warnings += _unoffered(ctx, done)
        record.warnings += done.driven.log.warnings if done.driven is not None else []
    record.audit = done.audit
    log = done.driven.log if done.driven is not None else done.session
    if log is not None:
        record.exit_code = log.exit_code
        record.reported_cost_usd = log.reported_cost_usd
        record.questions = len(log.questions)
    if done.kept is not None:  # its tokens and their cost until the stop, as the transcript says
        trajectory, record.transcript = done.kept
        try:  # a transcript cut mid-write: its figures are a bonus, its trial.json is not
            record.cost = cut_short_cost(ctx, trajectory)
            record.usage = trajectory.usage
            record.tool_calls = len(trajectory.agent_calls())
            record.session_id = trajectory.session_id
        except Exception:
            record.cost = CostInfo()
    if done.collected is not None:
        c = done.collected
        record.transcript = c.transcript
        record.usage = c.trajectory.usage
        record.usage_check = c.usage_check
        record.cost = c.cost
        record.process = c.process
        record.rules = c.rules
        record.tool_calls = len(c.trajectory.agent_calls())
        record.session_id = c.trajectory.session_id
        if spec.case.case.config.self_report:
            record.self_report, record.self_report_missing = self_report(c.trajectory)
    if done.evaluated is not None:
        e = done.evaluated
        record.evaluators = e.results
        record.harness_usage = e.harness_usage
        record.harness_calls = e.harness_calls
        record.cost = e.cost
    return record


def _plan_warnings(ctx: TrialContext, spec: TrialSpec, done: Phases) -> list[str]:
    """The plan's steps no message reached, and the messages after its last turn (a trial's
    other ``warnings`` are its driver's). An eval written as code counts its test's messages
    itself (:class:`Talked`'s ``warnings``, also in its ``eval.json``); a case folder's are its
    prompt and ``followUps``, counted when its scripted agent or model plays the plan. Steps
    never played are said when every turn completed: a turn that parked, exited, ran out of
    time or was stopped says so itself. Turns that found no step left are said however the
    trial ended: those turns ran. A real model ignores the plan."""
    driven, plan = done.driven, spec.case.case.plan
    if driven is not None and driven.talked is not None:
        return list(driven.talked.warnings)
    if driven is None or plan is None or done.prepared is None:
        return []
    if done.prepared.adapter.name != "scripted" and spec.backend != "scripted":
        return []
    sent = driven.log.turns  # the prompt, the follow-ups and the answers to questions
    sender = "the case (prompt and followUps)"
    warnings = []
    if driven.outcome.kind == "turn-end" and not driven.log.stopped:
        # A real CLI on the scripted model: its request log says which steps it played (a
        # question it asked as plain text ended its turn, and the answer was a message).
        played = played_steps(ctx.paths.model_requests) if spec.backend == "scripted" else None
        warnings.append(unplayed(plan, spec.condition, spec.repeat, sent, sender, played))
    idle = _idle_turns(ctx, done)
    warnings.append(overplayed(plan, spec.condition, spec.repeat, sent, sender, idle))
    return [w for w in warnings if w]


def _idle_turns(ctx: TrialContext, done: Phases) -> list[int]:
    """The turns (1-based) of a case folder's trial that found no step of the plan left to
    play: a real CLI's scripted model says which prompts it answered with :data:`NOTHING_LEFT`
    alone in its request log; the scripted agent's turns are read from its transcript, each
    one that completed with that reply alone and no tool call (none when a step of the plan
    says it itself)."""
    if ctx.spec.backend == "scripted":
        exhausted = exhausted_prompts(ctx.paths.model_requests)
        if exhausted is not None:
            return exhausted
    if done.collected is None or done.driven is None or says_nothing_left(ctx.spec.case.case.plan):
        return []
    turns: list[list[Event]] = []  # the events after each user message
    for event in done.collected.trajectory.events:
        if isinstance(event, UserMessage):
            turns.append([])
        elif turns:
            turns[-1].append(event)
    if done.driven.outcome.kind != "turn-end":
        turns = turns[:-1]  # the last turn did not complete
    return [number for number, events in enumerate(turns, 1) if _says_only_nothing_left(events)]


def _says_only_nothing_left(events: list[Event]) -> bool:
    """Whether a turn's ``events`` are the reply :data:`NOTHING_LEFT` alone, no tool call."""
    text = "\n".join(e.text for e in events if isinstance(e, AssistantText) and e.text)
    return text.strip() == NOTHING_LEFT and not any(isinstance(e, ToolCall) for e in events)


def _unoffered(ctx: TrialContext, done: Phases) -> list[str]:
    """The tools a real CLI's scripted model called that the CLI had not offered it (a raw
    ``tool`` step naming a tool that release lacks), from the request log."""
    prepared = done.prepared
    if ctx.spec.backend != "scripted" or prepared is None or prepared.adapter.name == "scripted":
        return []
    version = f" {prepared.agent_version}" if prepared.agent_version else ""
    return unoffered_calls(ctx.paths.model_requests, prepared.adapter.name + version)


def run_trial(spec: TrialSpec, run: RunPaths, scratch: Path, options: WorkerOptions) -> TrialRecord:
    """Run one trial in this process and write its ``trial.json``; returns the record."""
    ctx = TrialContext.of(spec, run, scratch, options)
    done = Phases()
    started, started_at = time.monotonic(), now_iso()
    try:
        _let_stop_signals_in()  # a worker starts with them held: one that came is raised here
        with ctx.cleanups:
            _run_phases(ctx, done)
    except BaseException as exc:  # every failure, Interrupted included, is data
        done.verdict = failure_verdict(exc)
    finally:
        # A late Ctrl-C or SIGTERM must not cut the writing of trial.json short.
        masked = _block_stop_signals()
        kill_marked(ctx.marker)
        kill_descendants(os.getpid())
        verdict = done.verdict or failure_verdict(RuntimeError("the trial did not finish"))
        if done.driven is None and done.session is not None and done.launch is not None:
            # The agent phase was cut short (Ctrl-C, a driver that raised): its terminal and
            # transcript are kept all the same, to show what the agent did until then.
            adapter = done.prepared.adapter if done.prepared is not None else None
            if adapter is not None:
                done.kept = keep_cut_short(ctx, adapter, done.launch, done.session)
        if done.live is not None:
            done.live.remove_if_left()
        record = build_record(ctx, done, verdict, timings(done, started_at, ms_since(started)))
        # An interrupted trial's workspace is not kept: --resume runs the trial again in a
        # fresh one, and moving a large workspace out could outlast the stop's grace period.
        keep = options.keep_workspace or record.status != "passed"
        record.workspace = (
            _keep_workspace(ctx) if keep and not was_interrupted(verdict.reason) else None
        )
        try:
            record.secrets_masked = scrub_tree(ctx.paths.root)
            write_record(ctx.paths.trial_json, record)
        finally:
            # After the record (a stop that comes meanwhile loses nothing); and when the
            # record cannot be written (a full or read-only disk), the scratch still goes.
            remove_tree(ctx.scratch)
            if masked:
                signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
    return record


def _keep_workspace(ctx: TrialContext) -> str | None:
    """The final workspace moved into the trial folder; its name there (None when there is
    none, or it could not be moved)."""
    if not ctx.workspace.exists():
        return None
    try:
        shutil.move(str(ctx.workspace), str(ctx.paths.workspace))
    except OSError:
        return None
    return ctx.paths.workspace.name
