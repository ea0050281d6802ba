"""Google Gemini CLI (``gemini``), headless with ``-p --output-format stream-json``.

Settings in the scratch home select API-key auth and switch off usage statistics, telemetry and
update checks; the workspace is trusted through ``GEMINI_CLI_TRUST_WORKSPACE``. The chat file is
``~/.gemini/tmp/<project>/chats/session-*.jsonl``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar, Literal

from proctor.agents.base import (
    AgentState,
    HeadlessReport,
    Launch,
    LaunchContext,
    Question,
    register,
)
from proctor.agents.cli_base import (
    cli_version,
    find_binary,
    read_json_lines,
    require_binary,
    write_json,
)
from proctor.agents.provisioning import materialise_addon, mcp_server_config
from proctor.drive.pty_session import PtySession
from proctor.models.config import AgentProfile
from proctor.models.trajectory import Trajectory


@register
class GeminiCli:
    name: ClassVar[str] = "gemini-cli"
    transcript_format: ClassVar[str] = "gemini-cli"
    default_mode: ClassVar[Literal["headless", "interactive"]] = "headless"
    modes: ClassVar[tuple[str, ...]] = ("headless",)
    binary_name: ClassVar[str] = "gemini"

    def version(self, profile: AgentProfile) -> str | None:
        binary = find_binary(self.binary_name, profile)
        return cli_version(str(binary)) if binary else None

    def prepare(self, ctx: LaunchContext) -> Launch:
        binary = require_binary(self.binary_name, self.name, ctx.profile)
        gemini_dir = ctx.home / ".gemini"
        settings: dict[str, Any] = {
            "security": {"auth": {"selectedType": "gemini-api-key"}},
            "privacy": {"usageStatisticsEnabled": False},
            "telemetry": {"enabled": False},
            "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
        }
        if ctx.provision is not None:
            if ctx.provision.mcps:
                settings["mcpServers"] = {e.name: mcp_server_config(e) for e in ctx.provision.mcps}
            for entry in ctx.provision.skills:
                materialise_addon(entry, ctx.case_dir, "skills", gemini_dir / "skills" / entry.name)
        write_json(gemini_dir / "settings.json", settings)
        env = {**ctx.env, "GEMINI_CLI_TRUST_WORKSPACE": "true", "NO_BROWSER": "true"}
        if ctx.model_base_url:
            env["GOOGLE_GEMINI_BASE_URL"] = ctx.model_base_url
            env["GEMINI_API_KEY"] = "proctor-scripted"
        argv = [str(binary), "-p", ctx.prompt, "--output-format", "stream-json", "--yolo"]
        if ctx.agent_model:
            argv += ["-m", ctx.agent_model]
        argv += ctx.profile.args
        return Launch(
            argv=argv, env=env, cwd=ctx.workspace, mode="headless", extra={"gemini_dir": gemini_dir}
        )

    def headless_report(self, launch: Launch, stdout: Path, stderr: Path) -> HeadlessReport:
        events = read_json_lines(stdout)
        result = next((e for e in reversed(events) if e.get("type") == "result"), None)
        init = next((e for e in events if e.get("type") == "init"), None)
        session = (init or {}).get("session_id")
        launch.extra["session_id"] = session
        error = None
        if result is None or result.get("status") == "error" or result.get("error"):
            from proctor.agents.claude_code import classify_error

            detail = (result or {}).get("error") or ""
            if not detail:
                detail = stderr.read_text(errors="replace")[-400:] if stderr.exists() else ""
            error = classify_error(str(detail) or "no result event on stdout")
        return HeadlessReport(
            error=error, reported_usage=(result or {}).get("stats"), session_id=session
        )

    def transcript_files(self, launch: Launch) -> list[Path]:
        from proctor.transcripts.session import gemini_chat

        chat = gemini_chat(launch.extra["gemini_dir"], launch.extra.get("session_id"))
        return [chat] if chat is not None else []

    def parse(self, path: Path) -> Trajectory:
        from proctor.transcripts.detect import parse_any

        return parse_any(path, "gemini-cli")

    def state(self, session: PtySession, launch: Launch) -> AgentState:
        return AgentState("working")

    def pending_question(self, session: PtySession, launch: Launch) -> Question | None:
        return None

    def answer(self, session: PtySession, question: Question, text: str) -> None:
        session.type_message(text)

    def send_message(self, session: PtySession, text: str) -> None:
        session.type_message(text)

    def note_answered(self, launch: Launch) -> None:
        return None

    def request_exit(self, session: PtySession) -> None:
        session.type_message("/quit")
