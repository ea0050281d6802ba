"""One trial, start to finish: workspace → agent in a terminal → collect → evaluate → verdict.

A trial always ends with a ``trial.json``: on success, failure, timeout, crash or interrupt.
Status precedence when several things go wrong: infra-error > agent-error > timeout >
eval-error > passed/failed.
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
import threading
import time
import traceback
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from proctor.agents.base import AgentAdapter, Launch, LaunchContext, adapter_for
from proctor.drive.conversation import Conversation, TurnOutcome, question_record
from proctor.drive.headless import run_headless
from proctor.drive.policy import AnsweringFailed, AnswerPolicy
from proctor.drive.pty_session import PtySession
from proctor.errors import WorkspaceError
from proctor.evaluators.base import EvaluationContext, get_evaluator
from proctor.evaluators.combiners import COMBINERS, below_threshold
from proctor.execute.processes import (
    MARKER_VARIABLE,
    kill_descendants,
    kill_marked,
    run_captured,
)
from proctor.execute.trial_parts import (
    MAX_FOLLOWUPS,
    case_labels,
    copy_session_files,
    merge_questions,
    price_usage,
    trial_prompt,
    turn_end_question,
    usage_check,
    verdict_reason,
)
from proctor.llm.secrets import register_secret, scrub_tree
from proctor.metrics import compute_process_metrics, evaluate_rules
from proctor.metrics.trace import build_steps
from proctor.metrics.traces import trace_metrics
from proctor.models.io import write_jsonl, write_record, write_text_atomic
from proctor.models.trajectory import ModelUsage, Trajectory
from proctor.models.trial import (
    ErrorInfo,
    EvaluatorResult,
    QuestionRecord,
    Timings,
    TranscriptInfo,
    TrialRecord,
)
from proctor.paths import RunPaths, TrialPaths
from proctor.plan.resolve import TrialSpec
from proctor.workspace.diff import snapshot, unified_diff
from proctor.workspace.environment import agent_environment
from proctor.workspace.fixture import materialise_fixture

if TYPE_CHECKING:
    from proctor.scripted.server import ScriptedModelServer

EXIT_GRACE_SEC = 3.0
HARNESS_LOG = "harness-requests.jsonl"
SETUP_TIMEOUT_SEC = 600.0


class Interrupted(BaseException):
    """Raised in a worker when the run is stopped (Ctrl-C or SIGTERM)."""


@dataclass(frozen=True)
class WorkerOptions:
    keep_workspace: bool = False
    mirror: bool = False


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _ms(start: float) -> float:
    return round((time.monotonic() - start) * 1000, 3)


STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM}


def _block_stop_signals() -> bool:
    """Hold Ctrl-C and SIGTERM until the trial's record is written (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        return False
    signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    return True


def trial_marker(run: RunPaths, spec: TrialSpec) -> str:
    """A value every process of the trial inherits, to find stragglers (see kill_marked)."""
    return f"{run.root.name}:{spec.index}"


class TrialRunner:
    def __init__(self, spec: TrialSpec, run: RunPaths, scratch: Path, options: WorkerOptions):
        self.spec = spec
        self.paths: TrialPaths = run.trial(spec.case.name, spec.agent, spec.condition, spec.repeat)
        self.scratch = scratch
        self.options = options
        self.workspace = scratch / "workspace"
        self.home = scratch / "home"
        self.timings = Timings(started_at=_now())
        self.record = TrialRecord(
            case=spec.case.name,
            agent=spec.agent,
            condition=spec.condition,
            repeat=spec.repeat,
            status="infra-error",
            reason="the trial did not finish",
            combiner=spec.case.combiner,
            pass_threshold=spec.case.pass_threshold,
            tags=spec.case.case.tags,
            labels=case_labels(spec),
            agent_model=spec.agent_model,  # condition > --agent-model > case > profile
            agent_effort=spec.agent_effort,
        )
        self.session: PtySession | None = None
        self.env: dict[str, str] = {}
        self.agent_failure: str | None = None
        self.react_ms = 0.0
        self.marker = trial_marker(run, spec)
        self.reported_usage: dict[str, Any] | None = None
        self.harness_server: ScriptedModelServer | None = None
        self.final_screen = ""

    def run(self) -> TrialRecord:
        t0 = time.monotonic()
        try:
            self._run()
        except Interrupted:
            self._fail("infra-error", "interrupted: the run was stopped before this trial ended")
        except AnsweringFailed as exc:
            self._fail("infra-error", str(exc))
        except WorkspaceError as exc:
            self._fail("infra-error", str(exc), exc)
        except Exception as exc:
            self._fail("infra-error", f"harness error: {type(exc).__name__}: {exc}", exc)
        finally:
            # A late Ctrl-C or SIGTERM must not cut the writing of trial.json short.
            masked = _block_stop_signals()
            if self.harness_server is not None:
                self.harness_server.stop()
            if self.session is not None:
                self.session.kill()
            kill_marked(self.marker)
            kill_descendants(os.getpid())
            self.timings.total_ms = _ms(t0)
            self.timings.harness_ms = round(self.timings.total_ms - self.timings.agent_ms, 3)
            self.timings.finished_at = _now()
            self.record.timings = self.timings
            self._finish_workspace()
            self.record.secrets_masked = scrub_tree(self.paths.root)
            write_record(self.paths.trial_json, self.record)
            if masked:
                signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
        return self.record

    def _fail(self, status: str, reason: str, exc: BaseException | None = None) -> None:
        self.record.status = status  # type: ignore[assignment]
        self.record.reason = reason
        self.record.passed = None if status != "failed" else False
        self.record.score = None
        if exc is not None:
            self.record.error = ErrorInfo(
                type=type(exc).__name__,
                message=str(exc),
                traceback=None if isinstance(exc, WorkspaceError) else traceback.format_exc(),
            )

    # -- phases ---------------------------------------------------------------------------

    def _run(self) -> None:
        spec = self.spec
        self.paths.root.mkdir(parents=True, exist_ok=True)
        t = time.monotonic()
        adapter = adapter_for(spec.agent, {spec.agent: spec.profile})
        self.record.agent_version = adapter.version(spec.profile)
        self.home.mkdir(parents=True, exist_ok=True)
        case = spec.case.case
        materialise_fixture(case.fixture, case.fixture_kind, self.workspace)
        for name in spec.profile.forward_env:  # deny-listed for a reason: mask what passes
            register_secret(os.environ.get(name, ""))
        self.env = agent_environment(
            os.environ,
            home=self.home,
            forward=spec.profile.forward_env,
            extra={**spec.case.env, **spec.profile.env, **spec.variant.env},
        )
        self.env[MARKER_VARIABLE] = self.marker
        self._shell_lines("setup", spec.case.setup)
        before = snapshot(self.workspace)
        self.timings.prepare_ms = _ms(t)

        t = time.monotonic()
        self._check_version(adapter)
        self.harness_server = self._start_harness_server()
        server = self._start_model_server(adapter)
        try:
            launch = adapter.prepare(
                LaunchContext(
                    workspace=self.workspace,
                    home=self.home,
                    scratch=self.scratch,
                    env=self.env,
                    profile=spec.profile,
                    plan=case.plan,
                    repeat=spec.repeat,
                    session_id=str(uuid.uuid4()),
                    condition=spec.condition,
                    agent_model=self.record.agent_model,
                    agent_effort=self.record.agent_effort,
                    provision=spec.case.provision.merged_with(spec.variant.provision),
                    mode=spec.mode or adapter.default_mode,  # type: ignore[arg-type]
                    prompt=trial_prompt(spec),
                    model_base_url=server.base_url if server is not None else None,
                    trial_dir=self.paths.root,
                    case_dir=case.path,
                )
            )
            if launch.mode == "headless":
                outcome, questions, exit_code = self._drive_headless(adapter, launch)
                react_ms = self.react_ms
            else:
                outcome, conversation, exit_code = self._drive(adapter, launch)
                questions, react_ms = conversation.questions, conversation.react_ms
        finally:
            if server is not None:
                server.stop()
        self.timings.agent_ms = round(_ms(t) - react_ms, 3)
        self.timings.agent_pure_ms = self.timings.agent_ms
        self.timings.harness_react_ms = round(react_ms, 3)

        t = time.monotonic()
        trajectory = self._collect(adapter, launch, questions, before)
        self._shell_lines("teardown", spec.case.teardown, fatal=False)
        self.timings.collect_ms = _ms(t)

        t = time.monotonic()
        results = self._evaluate(trajectory, timed_out=outcome.kind == "timeout")
        self.timings.evaluate_ms = _ms(t)
        self._verdict(outcome, exit_code, results)

    def _shell_lines(self, phase: str, lines: list[str], fatal: bool = True) -> None:
        for i, line in enumerate(lines):
            result = run_captured(
                ["/bin/sh", "-c", line], cwd=self.workspace, env=self.env, timeout=SETUP_TIMEOUT_SEC
            )
            with open(self.paths.stdout_log, "a", encoding="utf-8") as out:
                out.write(f"# {phase}[{i}]: {line}\n{result.stdout}")
            with open(self.paths.stderr_log, "a", encoding="utf-8") as err:
                err.write(f"# {phase}[{i}]: {line}\n{result.stderr}")
            if fatal and (result.returncode != 0 or result.timed_out):
                how = "timed out" if result.timed_out else f"exited {result.returncode}"
                raise WorkspaceError(f"{phase} line {i + 1} `{line}` {how}: {result.tail[-300:]}")

    def _drive(
        self, adapter: AgentAdapter, launch: Launch
    ) -> tuple[TurnOutcome, Conversation, int | None]:
        deadline = time.monotonic() + self.spec.case.timeout_sec
        mirror = sys.stdout.buffer if self.options.mirror else None
        self.session = PtySession(launch.argv, cwd=launch.cwd, env=launch.env, mirror=mirror)
        policy = self._policy()
        conversation = Conversation(
            adapter,
            launch,
            self.session,
            lambda q, screen: policy.answer(q.text, q.options, screen),
        )
        outcome = conversation.wait_ready(deadline)
        if outcome.kind == "turn-end":
            outcome = conversation.send(trial_prompt(self.spec), deadline)
            self.timings.turns_total = 1
        followups = 0
        while outcome.kind == "turn-end" and followups < MAX_FOLLOWUPS:
            question = turn_end_question(adapter, launch, self.spec.roles)
            if question is None:
                break
            t0 = time.monotonic()
            decided = policy.answer(question.text, [], conversation._screen_excerpt())
            conversation.record(
                question,
                decided,
                conversation._screen_excerpt(),
                (time.monotonic() - t0) * 1000,
                "turn-end",
            )
            if decided.answer.text is None:
                outcome = TurnOutcome("unanswered", question=question)
                break
            followups += 1
            outcome = conversation.send(decided.answer.text, deadline)
            self.timings.turns_total += 1
            self.timings.question_turns += 1
        self.timings.interruptions = sum(1 for q in conversation.questions if q.where == "mid-turn")
        exit_code: int | None = None
        self.final_screen = self.session.screen_text()
        if outcome.kind == "turn-end":
            adapter.request_exit(self.session)
            exit_code = self.session.wait_exit(time.monotonic() + EXIT_GRACE_SEC)
        elif outcome.kind == "exited":
            exit_code = self.session.wait_exit(time.monotonic() + EXIT_GRACE_SEC)
        self.session.pump(0)
        self.session.kill()
        self.record.exit_code = exit_code
        return outcome, conversation, exit_code

    def _collect(
        self,
        adapter: AgentAdapter,
        launch: Launch,
        questions: list[QuestionRecord],
        before: dict[str, bytes],
    ) -> Trajectory:
        paths = self.paths
        if self.session is not None:
            write_text_atomic(paths.screen_log, self.final_screen or self.session.screen_text())
            paths.terminal_raw.write_bytes(bytes(self.session.raw))
        files = adapter.transcript_files(launch)
        trajectory = Trajectory(format=adapter.transcript_format)
        info = TranscriptInfo(format=adapter.transcript_format)
        if files:
            shutil.copyfile(files[0], paths.raw_transcript)
            if len(files) > 1:
                copy_session_files(files, paths.transcript_dir)
            trajectory = adapter.parse(paths.raw_transcript if len(files) == 1 else files[0])
            annotate = getattr(adapter, "annotate", None)
            if annotate is not None:
                annotate(trajectory, launch)
            info.source = str(files[0])
            info.raw = paths.raw_transcript.name
        merge_questions(trajectory, questions)
        write_jsonl(paths.trajectory, trajectory.events)
        info.trajectory = paths.trajectory.name
        info.events = len(trajectory.events)
        info.coverage = trajectory.coverage
        self.record.transcript = info
        self.record.usage = trajectory.usage
        if self.reported_usage:
            self.record.usage_check = usage_check(trajectory.usage, self.reported_usage)
        self.record.cost = price_usage(trajectory.usage, self.spec.pricing)
        self._process_metrics(trajectory)
        self.record.tool_calls = len(trajectory.tool_calls())
        self.record.questions = len(questions)
        if questions:
            write_jsonl(paths.questions, questions)
        write_text_atomic(paths.workspace_diff, unified_diff(before, snapshot(self.workspace)))
        return trajectory

    def _policy(self) -> AnswerPolicy:
        case = self.spec.case.case
        return AnswerPolicy(case.qna_rules, case.qna_text, case.prompt, self.spec.roles)

    def _check_version(self, adapter: AgentAdapter) -> None:
        expected = self.spec.profile.version
        found = self.record.agent_version
        if expected is not None and found != expected:
            raise WorkspaceError(
                f"agent '{self.spec.agent}': version {found or 'unknown'} found, but its profile "
                f"pins {expected}"
            )

    def _start_harness_server(self) -> ScriptedModelServer | None:
        """proctor's own roles on the scripted model answer from the plan's ``roles``."""
        roles = self.spec.roles
        if roles is None or not roles.uses_scripted():
            return None
        from proctor.scripted.server import ScriptedModelServer

        plan = self.spec.case.case.plan or {}
        server = ScriptedModelServer(
            {"roles": plan.get("roles", {})}, log_path=self.paths.root / HARNESS_LOG
        )
        server.start()
        roles.set_url("scripted", server.base_url)
        return server

    def _start_model_server(self, adapter: AgentAdapter) -> ScriptedModelServer | None:
        if self.spec.backend != "scripted" or adapter.name == "scripted":
            return None
        from proctor.scripted.server import ScriptedModelServer

        plan = self.spec.case.case.plan or {"turns": []}
        errors = {int(k): v for k, v in (plan.get("errors") or {}).items()}
        server = ScriptedModelServer(
            plan,
            errors=errors,
            log_path=self.paths.model_requests,
            repeat=self.spec.repeat,
            condition=self.spec.condition,
        )
        server.start()
        return server

    def _drive_headless(
        self, adapter: AgentAdapter, launch: Launch
    ) -> tuple[TurnOutcome, list[QuestionRecord], int | None]:
        """Run the CLI once; while it ends its turn with a question the policy can answer and
        the adapter can resume the session, run it again with the answer."""
        deadline = time.monotonic() + self.spec.case.timeout_sec
        questions: list[QuestionRecord] = []
        outcome, code = self._headless_once(adapter, launch, launch.argv, deadline)
        self.timings.turns_total = 1
        resume = getattr(adapter, "resume_argv", None)
        policy = self._policy()
        while outcome.kind == "turn-end" and resume is not None:
            if len(questions) >= MAX_FOLLOWUPS:
                break
            question = turn_end_question(adapter, launch, self.spec.roles)
            if question is None:
                break
            t0 = time.monotonic()
            decided = policy.answer(question.text, [])
            latency = (time.monotonic() - t0) * 1000
            questions.append(question_record(question, decided, latency))
            self.react_ms += latency
            if decided.answer.text is None:
                return TurnOutcome("unanswered", question=question), questions, code
            outcome, code = self._headless_once(
                adapter, launch, resume(launch, decided.answer.text), deadline
            )
            self.timings.turns_total += 1
            self.timings.question_turns += 1
        return outcome, questions, code

    def _headless_once(
        self, adapter: AgentAdapter, launch: Launch, argv: list[str], deadline: float
    ) -> tuple[TurnOutcome, int | None]:
        run = run_headless(
            argv,
            cwd=launch.cwd,
            env=launch.env,
            deadline=deadline,
            stdout=self.paths.agent_stdout,
            stderr=self.paths.agent_stderr,
            append=self.timings.turns_total > 0,
        )
        self.record.exit_code = run.exit_code
        if run.kind == "timeout":
            return TurnOutcome("timeout"), None
        report = adapter.headless_report(launch, self.paths.agent_stdout, self.paths.agent_stderr)
        self.record.reported_cost_usd = report.reported_cost_usd
        self.reported_usage = report.reported_usage
        self.agent_failure = report.error
        if run.exit_code == 0 and report.error is None:
            return TurnOutcome("turn-end", elapsed_ms=run.elapsed_ms), 0
        return TurnOutcome("exited", elapsed_ms=run.elapsed_ms), run.exit_code

    def _process_metrics(self, trajectory: Trajectory) -> None:
        config = self.spec.case.case.config
        metrics = compute_process_metrics(
            trajectory.events,
            expected_files=config.expected_files,
            expected_symbols=config.expected_symbols,
            config=self.spec.metrics,
            workspace=str(self.workspace),
            pricing=self.spec.pricing or None,  # no price table: cost is unknown, not $0
        )
        self.record.process = metrics.to_dict()
        if config.expected_traces:
            steps = build_steps(trajectory.events, str(self.workspace))
            self.record.process["traces"] = trace_metrics(
                steps, config.expected_traces, str(self.workspace)
            )
        self.record.rules = [r.to_dict() for r in evaluate_rules(metrics, self.spec.metrics)]

    def _evaluate(self, trajectory: Trajectory, timed_out: bool) -> list[EvaluatorResult]:
        ctx = EvaluationContext(
            workspace=self.workspace,
            trial=self.paths,
            case_dir=self.spec.case.case.path,
            agent=self.spec.agent,
            trajectory=trajectory,
            raw_transcript=self.paths.raw_transcript
            if self.paths.raw_transcript.exists()
            else None,
            env=self.env,
            timed_out=timed_out,
            roles=self.spec.roles,
        )
        results = []
        for spec in self.spec.case.evaluators:
            try:
                result = get_evaluator(spec.use).evaluate(spec, ctx)
            except Exception as exc:
                result = EvaluatorResult(
                    use=spec.use,
                    passed=False,
                    score=0,
                    gate=spec.gate,
                    weight=spec.weight,
                    error=True,
                    message=f"evaluator crashed: {type(exc).__name__}: {exc}",
                )
            results.append(result)
        self.record.evaluators = results
        self._harness_usage()
        return results

    def _harness_usage(self) -> None:
        if self.spec.roles is None:
            return
        for call in self.spec.roles.calls():
            key = f"{call.role}:{call.model}"
            usage = self.record.harness_usage.setdefault(key, ModelUsage())
            usage.add(
                ModelUsage(
                    input_tokens=call.input_tokens,
                    output_tokens=call.output_tokens,
                    responses=1 if call.ok else 0,
                )
            )
            self.record.harness_calls.append(
                {
                    "role": call.role,
                    "model": call.model,
                    "inputTokens": call.input_tokens,
                    "outputTokens": call.output_tokens,
                    "latencyMs": round(call.latency_ms, 3),
                    "attempts": call.attempts,
                    "ok": call.ok,
                    "error": call.error,
                }
            )
        self.spec.roles.reset_calls()
        self._price_harness()

    def _price_harness(self) -> None:
        """Harness roles' dollars join the agent's, keyed ``role:provider/model``; only the
        total is additive across models."""
        cost = self.record.cost
        for key, usage in self.record.harness_usage.items():
            model = key.split(":", 1)[1]
            priced = price_usage({model: usage}, self.spec.pricing)
            cost.by_model[key] = priced.by_model[model]
            if priced.unpriced:
                cost.unpriced.append(key)
        known = [v for v in cost.by_model.values() if v is not None]
        cost.total_usd = None if cost.unpriced else round(sum(known), 6)

    def _verdict(
        self, outcome: TurnOutcome, exit_code: int | None, results: list[EvaluatorResult]
    ) -> None:
        rec = self.record
        threshold = self.spec.case.pass_threshold
        errored = [r for r in results if r.error]
        passed, score = COMBINERS[self.spec.case.combiner](
            [r for r in results if not r.error], threshold
        )
        rec.passed, rec.score = passed, score
        if self.agent_failure is not None:
            self._fail("agent-error", self.agent_failure)
        elif outcome.kind == "exited" and exit_code not in (0, None):
            self._fail("agent-error", f"agent exited with code {exit_code} before its turn ended")
        elif outcome.kind == "exited" and exit_code is None:
            self._fail("agent-error", "agent closed its terminal and did not exit")
        elif outcome.kind == "turn-end" and exit_code not in (0,):
            how = "did not exit" if exit_code is None else f"exited with code {exit_code}"
            self._fail("agent-error", f"agent {how} when asked to quit")
        elif outcome.kind == "timeout":
            rec.status, rec.passed = "timeout", False
            rec.score = below_threshold(score, threshold)
            rec.reason = f"agent did not finish within {self.spec.case.timeout_sec:g}s"
        elif errored:
            rec.status, rec.passed, rec.score = "eval-error", None, None
            rec.reason = "; ".join(f"{r.use}: {r.message}" for r in errored)
        elif outcome.kind == "unanswered":
            assert outcome.question is not None
            rec.status, rec.passed = "failed", False
            rec.score = below_threshold(score, threshold)
            rec.reason = f"unanswered question: {outcome.question.text}"
        else:
            rec.status = "passed" if passed else "failed"
            rec.reason = verdict_reason(passed, score, threshold, results)

    def _finish_workspace(self) -> None:
        keep = self.options.keep_workspace or self.record.status != "passed"
        if keep and self.workspace.exists():
            try:
                shutil.move(str(self.workspace), str(self.paths.workspace))
                self.record.workspace = self.paths.workspace.name
            except OSError:
                pass
        shutil.rmtree(self.scratch, ignore_errors=True)
