"""The built-in ``scripted`` agent: zero tokens, a real program in a real terminal.

The program (:mod:`proctor.scripted.agent`) plays the case's plan and writes its transcript in
Claude Code's format. Its window title says what it is doing: ``scripted · ready · N`` once N
turns are done, ``scripted · question · K`` while question K waits, ``scripted · working``.
"""

from __future__ import annotations

import json
import math
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from proctor.agents import terminal as keys
from proctor.agents.base import AgentAdapter, register
from proctor.agents.protocol import (
    AgentState,
    Launch,
    LaunchContext,
    Mode,
    Question,
    Terminal,
)
from proctor.agents.spec import SCRIPTED
from proctor.models.config import AgentProfile
from proctor.models.io import write_text_atomic
from proctor.models.trajectory import Trajectory
from proctor.scripted import AGENT_VERSION
from proctor.scripted.plan import plan_for_condition, steps_for_repeat
from proctor.transcripts.claude import parse_claude_transcript
from proctor.transcripts.claude.asks import pending_ask
from proctor.util.native_paths import claude_transcript

PROGRAM = Path(__file__).resolve().parents[2] / "scripted" / "agent.py"
"""The scripted agent's program, run by its own interpreter (``python -I -S``)."""
TITLE_PREFIX = "scripted · "


def program_argv(
    profile: AgentProfile, steps_file: Path, model: str, session_id: str | None = None
) -> list[str]:
    """The command line that starts the scripted agent's program on the steps in
    ``steps_file`` (a new session id each start, without ``session_id``)."""
    argv = [profile.binary or sys.executable, "-I", "-S", str(PROGRAM), "--steps", str(steps_file)]
    if session_id is not None:
        argv += ["--session-id", session_id]
    return [*argv, "--model", model, *profile.args]


def by_hand(
    profile: AgentProfile,
    plan: dict[str, Any] | None,
    condition: str,
    agent_model: str | None,
    steps_file: Path,
) -> list[str]:
    """The command a person runs, in a prepared session's workspace, to start the scripted
    agent on the case's plan for ``condition`` (its first repeat's steps, written to
    ``steps_file``), as a trial starts it; it writes its session into Claude Code's history
    (``CLAUDE_CONFIG_DIR``, else ``~/.claude``), where ``proctor record`` finds it."""
    played = plan_for_condition(plan or {"turns": []}, condition) or {"turns": []}
    write_text_atomic(steps_file, json.dumps(steps_for_repeat(played, 1)))
    model = agent_model or str(played.get("model", "scripted"))
    return program_argv(profile, steps_file, model)


@dataclass(frozen=True)
class ScriptedSession:
    """The scripted agent's launch state: the plan steps it was given."""

    steps_file: Path


@register
class ScriptedAgent(AgentAdapter[ScriptedSession]):
    spec = SCRIPTED
    scratch_writes = ("home/.claude", "steps.json")
    default_mode: ClassVar[Mode] = "interactive"
    # Always a program in a terminal; "headless" is accepted so --mode applies to every agent.
    modes: ClassVar[tuple[Mode, ...]] = ("interactive", "headless")

    def version(self, profile: AgentProfile) -> str | None:
        return AGENT_VERSION

    def preflight(self, profile: AgentProfile) -> str | None:
        """A ``version`` pinned is the scripted agent's own (it comes with proctor, so another
        cannot be installed: a pin it does not match stops the run, as a CLI's does); a
        ``binary`` given (the Python that runs the scripted agent's program) is a program that
        can be run: otherwise every trial would fail to start it."""
        if profile.version is not None and profile.version != AGENT_VERSION:
            return (
                f"agent '{self.name}': the scripted agent is version {AGENT_VERSION}, but its "
                f"profile pins {profile.version}; it comes with proctor, so no other version "
                f'can be installed: set "version": "{AGENT_VERSION}" or leave version out'
            )
        if not profile.binary or shutil.which(str(Path(profile.binary).expanduser())):
            return None
        return (
            f"agent '{self.name}': the binary its profile gives, {profile.binary}, is not a "
            "program that can be run (it is the Python interpreter that runs the scripted "
            "agent's program): give the path of one, or leave binary out to use proctor's own"
        )

    def prepare(self, ctx: LaunchContext) -> Launch[ScriptedSession]:
        plan = plan_for_condition(ctx.plan or {"turns": []}, ctx.condition) or {"turns": []}
        steps_file = ctx.scratch / "steps.json"
        write_text_atomic(steps_file, json.dumps(steps_for_repeat(plan, ctx.repeat)))
        config_dir = ctx.home / ".claude"
        model = ctx.agent_model or str(plan.get("model", "scripted"))
        argv = program_argv(ctx.profile, steps_file, model, ctx.session_id)
        return Launch(
            argv=argv,
            env={**ctx.env, "CLAUDE_CONFIG_DIR": str(config_dir)},
            cwd=ctx.workspace,
            state=ScriptedSession(steps_file),
            # the program names its transcript by os.getcwd(), the real path
            transcript=claude_transcript(config_dir, str(ctx.workspace.resolve()), ctx.session_id),
            mode="interactive",
        )

    def state(self, terminal: Terminal, launch: Launch[ScriptedSession]) -> AgentState:
        title = terminal.title
        if not title.startswith(TITLE_PREFIX):
            return AgentState("starting")
        parts = title[len(TITLE_PREFIX) :].split(" · ")
        if parts[0] == "ready" and len(parts) == 2 and parts[1].isdigit():
            return AgentState("ready", turns=int(parts[1]))
        if parts[0] == "question" and len(parts) == 2 and parts[1].isdigit():
            return AgentState("question", question=int(parts[1]))
        return AgentState("working")

    def pending_question(
        self, terminal: Terminal, launch: Launch[ScriptedSession], deadline: float = math.inf
    ) -> Question | None:
        if launch.transcript is None:
            return None
        asked = pending_ask(launch.transcript)
        return Question(asked.text, asked.options, asked.id) if asked is not None else None

    def send_message(self, terminal: Terminal, launch: Launch[ScriptedSession], text: str) -> None:
        keys.paste_then_enter(terminal, text)

    def request_exit(self, terminal: Terminal, launch: Launch[ScriptedSession]) -> None:
        keys.paste_then_enter(terminal, "/exit")

    def parse(self, path: Path) -> Trajectory:
        return parse_claude_transcript(path)
