"""The built-in ``scripted`` agent: zero tokens, a real program in a real terminal."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import ClassVar, Literal

from proctor.agents.base import (
    AgentState,
    HeadlessReport,
    Launch,
    LaunchContext,
    Question,
    register,
)
from proctor.drive.pty_session import PtySession
from proctor.models.config import AgentProfile
from proctor.models.io import write_text_atomic
from proctor.models.trajectory import Trajectory
from proctor.scripted import agent as scripted_program
from proctor.scripted.plan import plan_for_condition, steps_for_repeat
from proctor.transcripts.claude import parse_claude_transcript

TITLE_PREFIX = "scripted · "


@register
class ScriptedAgent:
    name: ClassVar[str] = "scripted"
    transcript_format: ClassVar[str] = "claude-code"
    default_mode: ClassVar[Literal["headless", "interactive"]] = "interactive"
    # Always a program in a terminal; "headless" is accepted so --mode applies to every agent.
    modes: ClassVar[tuple[str, ...]] = ("interactive", "headless")

    def version(self, profile: AgentProfile) -> str | None:
        return scripted_program.VERSION

    def prepare(self, ctx: LaunchContext) -> Launch:
        plan = plan_for_condition(ctx.plan or {"turns": []}, ctx.condition) or {"turns": []}
        steps = steps_for_repeat(plan, ctx.repeat)
        steps_file = ctx.scratch / "steps.json"
        write_text_atomic(steps_file, json.dumps(steps))
        config_dir = ctx.home / ".claude"
        env = {**ctx.env, "CLAUDE_CONFIG_DIR": str(config_dir)}
        argv = [
            ctx.profile.binary or sys.executable,
            "-I",
            "-S",
            scripted_program.__file__,
            "--steps",
            str(steps_file),
            "--session-id",
            ctx.session_id,
            "--model",
            ctx.agent_model or str(plan.get("model", "scripted")),
            *ctx.profile.args,
        ]
        transcript = scripted_program.transcript_path(  # the program names it by os.getcwd()
            str(config_dir), str(ctx.workspace.resolve()), ctx.session_id
        )
        return Launch(argv=argv, env=env, cwd=ctx.workspace, transcript=transcript)

    def state(self, session: PtySession, launch: Launch) -> AgentState:
        title = session.title
        if not title.startswith(TITLE_PREFIX):
            return AgentState("starting")
        parts = title[len(TITLE_PREFIX) :].split(" · ")
        if parts[0] == "ready" and len(parts) == 2 and parts[1].isdigit():
            return AgentState("ready", turns=int(parts[1]))
        if parts[0] == "question" and len(parts) == 2 and parts[1].isdigit():
            return AgentState("question", question=int(parts[1]))
        return AgentState("working")

    def pending_question(self, session: PtySession, launch: Launch) -> Question | None:
        if launch.transcript is None or not launch.transcript.exists():
            return None
        pending: dict[str, Question] = {}
        for line in launch.transcript.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            content = record.get("message", {}).get("content")
            if not isinstance(content, list):
                continue
            for block in content:
                if block.get("type") == "tool_use" and block.get("name") == "AskUserQuestion":
                    q = block["input"]["questions"][0]
                    options = [o.get("label", "") for o in q.get("options", [])]
                    pending[block["id"]] = Question(q["question"], options)
                elif block.get("type") == "tool_result":
                    pending.pop(block.get("tool_use_id"), None)
        return next(reversed(pending.values()), None)

    def answer(self, session: PtySession, question: Question, text: str) -> None:
        session.type_message(text)

    def send_message(self, session: PtySession, text: str) -> None:
        session.type_message(text)

    def note_answered(self, launch: Launch) -> None:
        return None

    def request_exit(self, session: PtySession) -> None:
        session.type_message("/exit")

    def transcript_files(self, launch: Launch) -> list[Path]:
        return [launch.transcript] if launch.transcript and launch.transcript.exists() else []

    def parse(self, path: Path) -> Trajectory:
        return parse_claude_transcript(path)

    def headless_report(self, launch: Launch, stdout: Path, stderr: Path) -> HeadlessReport:
        return HeadlessReport()
