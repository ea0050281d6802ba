"""The second phase of a trial: the agent's session. The adapter provisions the scratch home and
says how to start the CLI; a headless or terminal driver runs the conversation (the first
message, then answers to questions the agent ends its turns with); the session's log comes back.
"""

from __future__ import annotations

import os
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from proctor.agents.protocol import Launch, LaunchContext
from proctor.agents.spec import ACP
from proctor.drive.budget import BudgetWatch, StepBudget
from proctor.drive.driver import Driver, SessionLog, TurnOutcome
from proctor.drive.followups import converse
from proctor.drive.headless import HeadlessDriver
from proctor.drive.policy import AnsweringFailed, AnswerPolicy
from proctor.drive.talk import Conversation, Talk, Talked
from proctor.drive.terminal_driver import TerminalDriver
from proctor.execute.context import TrialContext
from proctor.execute.prepare import Prepared
from proctor.execute.servers import start_model_server
from proctor.models.plan import TrialSpec
from proctor.util.cutting import mask_wrapped
from proctor.workspace.diff import take_snapshot

CONVERSATIONS: dict[str, Conversation] = {}
"""Case folder (its resolved path) → the conversation that replaces the case's own prompt and
follow-ups (evals written as code register theirs here before the run, and remove them after;
forked workers inherit it). Keyed by folder, not name: a case of another run with the same
name in the same process never picks up an eval's conversation."""


def conversation_key(case_folder: Path) -> str:
    """The key of :data:`CONVERSATIONS` for the case in ``case_folder``."""
    return os.path.realpath(case_folder)


@dataclass(frozen=True)
class Driven:
    outcome: TurnOutcome
    """How the last turn ended."""
    log: SessionLog
    launch: Launch[Any]
    talked: Talked | None = None
    """What a registered conversation recorded (see :data:`CONVERSATIONS`)."""
    answering_failed: AnsweringFailed | None = None
    """proctor's answering model failed while the agent waited on a question: the trial is
    proctor's failure (``infra-error``), and what the agent did until then is still kept."""

    @property
    def question_turns(self) -> int:
        """Turns that only answered a question the agent ended its previous turn with."""
        return sum(1 for q in self.log.questions if q.where == "turn-end" and q.answer is not None)

    @property
    def interruptions(self) -> int:
        """Questions and prompts the agent raised mid-turn (pickers, permission prompts),
        each once: a question that parked the turn and that a later message answered is two
        records of one question (told apart by their texts masked: a key in the question is
        masked in the policy's record, whoever made the other)."""
        count, waiting = 0, None
        for asked in self.log.questions:
            if asked.where != "mid-turn":
                continue
            text = mask_wrapped(asked.question)
            count += waiting != text
            waiting = None if asked.replied else text
        return count


def trial_prompt(spec: TrialSpec) -> str:
    """The first message: the condition's prompt prefix, then the case prompt."""
    prompt = spec.case.case.prompt.strip()
    prefix = spec.variant.prompt_prefix
    return f"{prefix.rstrip()}\n\n{prompt}" if prefix else prompt


def answer_policy(ctx: TrialContext, prepared: Prepared) -> AnswerPolicy:
    case = ctx.spec.case.case
    return AnswerPolicy(case.qna_rules, case.qna_text, case.prompt, prepared.roles)


def launch_context(ctx: TrialContext, prepared: Prepared, base_url: str | None) -> LaunchContext:
    spec = ctx.spec
    return LaunchContext(
        workspace=ctx.workspace,
        home=ctx.home,
        scratch=ctx.scratch,
        env=prepared.agent_env,
        profile=spec.profile,
        plan=spec.case.case.plan,
        repeat=spec.repeat,
        session_id=str(uuid.uuid4()),
        condition=spec.condition,
        agent_model=spec.agent_model,  # condition > --agent-model > case > profile
        agent_effort=spec.agent_effort,
        provision=spec.case.provision.merged_with(spec.variant.provision),
        mode=spec.mode or prepared.adapter.default_mode,
        model_base_url=base_url,
        trial_dir=ctx.paths.root,
        case_dir=spec.case.case.path,
        max_turns=spec.max_turns,
    )


def open_driver(
    ctx: TrialContext,
    prepared: Prepared,
    launch: Launch[Any],
    deadline: float,
    policy: AnswerPolicy,
) -> Driver:
    """A headless, terminal or ACP driver for the launch; killed when the trial ends."""
    driver: Driver
    budget = StepBudget(ctx.spec.max_turns, ctx.spec.max_tool_calls)
    watch = BudgetWatch(prepared.adapter, launch, budget) if budget else None
    if prepared.adapter.name == ACP.id:
        from proctor.drive.acp_driver import AcpDriver  # the ACP SDK, for ACP trials only

        driver = AcpDriver(
            prepared.adapter, launch, policy, deadline, ctx.paths.agent_stderr, watch
        )
    elif launch.mode == "headless":
        paths = ctx.paths
        driver = HeadlessDriver(
            prepared.adapter, launch, deadline, paths.agent_stdout, paths.agent_stderr, watch
        )
    else:
        # On stderr, with the progress: stdout holds the one report a script parses.
        mirror = sys.stderr.buffer if ctx.options.mirror else None
        driver = TerminalDriver(prepared.adapter, launch, policy, deadline, mirror, watch)
    ctx.cleanups.callback(driver.close)
    return driver


def rebaseline(ctx: TrialContext, prepared: Prepared) -> None:
    """Take the workspace as it is now as the state the agent started from."""
    fresh = take_snapshot(ctx.workspace, None, ctx.scratch / "before-seeded")
    before = prepared.before
    before.stats, before.fixture = fresh.stats, fresh.fixture
    before.kept, before.kept_paths = fresh.kept, fresh.kept_paths


def drive(
    ctx: TrialContext,
    prepared: Prepared,
    on_launch: Callable[[Launch[Any]], None] | None = None,
    on_driver: Callable[[Driver], None] | None = None,
) -> Driven:
    """Run the session; ``on_launch`` sees the launch once the scratch home is provisioned,
    ``on_driver`` the driver once it is open (its log is what a session cut short leaves)."""
    deadline = time.monotonic() + ctx.spec.case.timeout_sec
    server = start_model_server(ctx, prepared.adapter)
    if prepared.roles is not None:
        # An answer, or a turn's end classified, while the agent waits: within its timeout.
        prepared.roles.deadline = deadline
    try:
        base_url = server.base_url if server is not None else None
        launch = prepared.adapter.prepare(launch_context(ctx, prepared, base_url))
        if on_launch is not None:
            on_launch(launch)
        policy = answer_policy(ctx, prepared)
        driver = open_driver(ctx, prepared, launch, deadline, policy)
        if on_driver is not None:
            on_driver(driver)
        conversation = CONVERSATIONS.get(conversation_key(ctx.spec.case.case.path))
        talked = None
        failed = None
        if conversation is None:
            try:
                outcome = converse(
                    driver,
                    trial_prompt(ctx.spec),
                    adapter=prepared.adapter,
                    launch=launch,
                    policy=policy,
                    roles=prepared.roles,
                    follow_ups=ctx.spec.case.case.config.follow_ups,
                )
            except AnsweringFailed as exc:
                # The agent waits on a question nobody answered: ended as an unanswered one
                # is, so that its transcript and tokens are collected as in any trial.
                failed, outcome = exc, TurnOutcome("unanswered")
        else:
            talk = Talk(
                driver,
                prepared.adapter,
                launch,
                policy,
                prepared.roles,
                ctx.workspace,
                ctx.paths.root,
                deadline,
                ctx.spec.repeat,
                rebaseline=lambda: rebaseline(ctx, prepared),
            )
            talked = conversation(talk)
            outcome = talked.outcome
        driver.finish(outcome)
    finally:
        if prepared.roles is not None:
            prepared.roles.deadline = None
        if server is not None:
            server.stop()
    return Driven(outcome, driver.log, launch, talked, failed)
