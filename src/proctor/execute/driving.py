"""The second phase of a trial: the agent's session. The adapter provisions the scratch home and
says how to start the CLI; a headless or terminal driver runs the conversation (the first
message, then answers to questions the agent ends its turns with); the session's log comes back.
"""

from __future__ import annotations

import sys
import time
import uuid
from dataclasses import dataclass
from typing import Any

from proctor.agents.protocol import Launch, LaunchContext
from proctor.drive.driver import Driver, SessionLog, TurnOutcome
from proctor.drive.followups import converse
from proctor.drive.headless import HeadlessDriver
from proctor.drive.policy import AnswerPolicy
from proctor.drive.terminal_driver import TerminalDriver
from proctor.execute.context import TrialContext
from proctor.execute.prepare import Prepared
from proctor.execute.servers import start_model_server
from proctor.models.plan import TrialSpec


@dataclass(frozen=True)
class Driven:
    outcome: TurnOutcome
    """How the last turn ended."""
    log: SessionLog
    launch: Launch[Any]

    @property
    def question_turns(self) -> int:
        """Turns that only answered a question the agent ended its previous turn with."""
        return sum(1 for q in self.log.questions if q.where == "turn-end" and q.answer is not None)

    @property
    def interruptions(self) -> int:
        """Questions and prompts the agent raised mid-turn (pickers, permission prompts)."""
        return sum(1 for q in self.log.questions if q.where == "mid-turn")


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
    """A headless or terminal driver for the launch; killed when the trial ends."""
    driver: Driver
    if launch.mode == "headless":
        driver = HeadlessDriver(
            prepared.adapter, launch, deadline, ctx.paths.agent_stdout, ctx.paths.agent_stderr
        )
    else:
        mirror = sys.stdout.buffer if ctx.options.mirror else None
        driver = TerminalDriver(prepared.adapter, launch, policy, deadline, mirror)
    ctx.cleanups.callback(driver.close)
    return driver


def drive(ctx: TrialContext, prepared: Prepared) -> Driven:
    deadline = time.monotonic() + ctx.spec.case.timeout_sec
    server = start_model_server(ctx, prepared.adapter)
    try:
        base_url = server.base_url if server is not None else None
        launch = prepared.adapter.prepare(launch_context(ctx, prepared, base_url))
        policy = answer_policy(ctx, prepared)
        driver = open_driver(ctx, prepared, launch, deadline, policy)
        outcome = converse(
            driver,
            trial_prompt(ctx.spec),
            adapter=prepared.adapter,
            launch=launch,
            policy=policy,
            roles=prepared.roles,
        )
        driver.finish(outcome)
    finally:
        if server is not None:
            server.stop()
    return Driven(outcome, driver.log, launch)
