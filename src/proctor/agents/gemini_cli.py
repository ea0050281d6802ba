"""Google Gemini CLI (``gemini``), headless with ``-p --output-format stream-json`` or in its TUI.

Settings in the scratch home select API-key auth and switch off usage statistics, telemetry and
update checks; the workspace is trusted through ``GEMINI_CLI_TRUST_WORKSPACE``. The chat file is
``~/.gemini/tmp/<project>/chats/session-*.jsonl``. How the TUI is driven is in
:mod:`proctor.agents.gemini_tui`.

Permissions: the profile's ``permissionMode`` is an approval mode (``default``, ``auto_edit``,
``plan`` or ``yolo``). Headless, unset means ``--yolo`` (no one could answer a confirmation);
in the TUI, unset means ``default``, so confirmations are shown and answered by the case's
policy.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar, Literal

from proctor.agents import codex_tui as keys
from proctor.agents import gemini_tui as tui
from proctor.agents.base import (
    AgentState,
    HeadlessReport,
    Launch,
    LaunchContext,
    Question,
    register,
)
from proctor.agents.cli_base import (
    RealCli,
    read_json_lines,
    require_binary,
    write_json,
)
from proctor.agents.provisioning import hook_groups, materialise_addon, mcp_server_config
from proctor.drive.pty_session import PtySession
from proctor.errors import AgentError
from proctor.models.config import AgentProfile

CHAT_COPY = "gemini-chat-copy.jsonl"
HOOK_EVENTS = {
    "PreToolUse": "BeforeTool",
    "PostToolUse": "AfterTool",
    "UserPromptSubmit": "BeforeAgent",
    "Stop": "AfterAgent",
    "PreCompact": "PreCompress",
}
"""``provision.hooks`` events (Claude Code's names, which Codex shares) as Gemini CLI names them;
``SessionStart``, ``SessionEnd`` and ``Notification`` are the same, Gemini's own names pass."""
HOOK_TOOLS = {
    "Bash": "run_shell_command",
    "Write": "write_file",
    "Edit": "replace",
    "MultiEdit": "replace",
    "Read": "read_file",
    "Grep": "grep_search",
    "Glob": "glob",
    "LS": "list_directory",
    "WebFetch": "web_fetch",
    "WebSearch": "google_web_search",
    "Skill": "activate_skill",
    "Task": "invoke_agent",
    "Agent": "invoke_agent",
    "AskUserQuestion": "ask_user",
}
"""Tool names in hook matchers, Claude Code's → Gemini CLI 0.61's."""
APPROVAL_MODES = ("default", "auto_edit", "plan", "yolo")
APPROVAL_ALIASES = {"autoedit": "auto_edit", "acceptedits": "auto_edit", "auto-edit": "auto_edit"}


def reported_usage(stats: Any) -> dict[str, Any] | None:
    """Per-model token totals from the ``result`` event's ``stats``, counted as the chat
    parser counts them (cached tokens out of the input, thoughts in the output)."""
    models = stats.get("models") if isinstance(stats, dict) else None
    reported = {}
    for model, u in (models or {}).items() if isinstance(models, dict) else []:
        if not isinstance(u, dict):
            continue
        cached = int(u.get("cached") or 0)
        reported[str(model)] = {
            "inputTokens": int(u.get("input_tokens") or 0) - cached + int(u.get("tool") or 0),
            "outputTokens": int(u.get("output_tokens") or 0) + int(u.get("thoughts") or 0),
            "cacheReadTokens": cached,
            "cacheWriteTokens": 0,
        }
    return reported or None


def approval_args(mode: str | None) -> list[str]:
    """The TUI's approval flags for a profile's ``permissionMode`` (unset: ``default``)."""
    if not mode:
        return []
    chosen = APPROVAL_ALIASES.get(mode.lower(), mode.lower())
    if chosen not in APPROVAL_MODES:
        raise AgentError(
            f"agent 'gemini-cli': permissionMode {mode!r} is not an approval mode "
            f"({', '.join(APPROVAL_MODES)})"
        )
    if chosen == "yolo":
        return ["--yolo"]
    return [] if chosen == "default" else ["--approval-mode", chosen]


@register
class GeminiCli(RealCli):
    name: ClassVar[str] = "gemini-cli"
    transcript_format: ClassVar[str] = "gemini-cli"
    default_mode: ClassVar[Literal["headless", "interactive"]] = "headless"
    modes: ClassVar[tuple[str, ...]] = ("headless", "interactive")
    binary_name: ClassVar[str] = "gemini"

    def check_profile(self, profile: AgentProfile) -> None:
        """A ``permissionMode`` must be a Gemini CLI approval mode (raises AgentError)."""
        approval_args(profile.permission_mode)

    def prepare(self, ctx: LaunchContext) -> Launch:
        binary = require_binary(self.binary_name, self.name, ctx.profile)
        gemini_dir = ctx.home / ".gemini"
        settings: dict[str, Any] = {
            "security": {"auth": {"selectedType": "gemini-api-key"}},
            "privacy": {"usageStatisticsEnabled": False},
            "telemetry": {"enabled": False},
            "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
        }
        if ctx.mode == "interactive":
            # The title is how proctor tells idle from busy; keep it on and plain.
            settings["ui"] = {
                "dynamicWindowTitle": True,
                "hideWindowTitle": False,
                "showStatusInTitle": False,
            }
        if ctx.provision is not None:
            if ctx.provision.mcps:
                settings["mcpServers"] = {e.name: mcp_server_config(e) for e in ctx.provision.mcps}
            for entry in ctx.provision.skills:
                materialise_addon(entry, ctx.case_dir, "skills", gemini_dir / "skills" / entry.name)
            if ctx.provision.hooks:
                settings["hooks"] = hook_groups(ctx.provision.hooks, HOOK_EVENTS, HOOK_TOOLS)
                settings["hooksConfig"] = {"enabled": True}
        write_json(gemini_dir / "settings.json", settings)
        # Gemini CLI loads the first .gemini/.env or .env found from the workspace up to /: an
        # empty one just above the workspace stops the search before any folder of the user's.
        barrier = ctx.scratch / ".gemini" / ".env"
        barrier.parent.mkdir(parents=True, exist_ok=True)
        barrier.touch()
        env = {**ctx.env, "GEMINI_CLI_TRUST_WORKSPACE": "true", "NO_BROWSER": "true"}
        if ctx.model_base_url:
            env["GOOGLE_GEMINI_BASE_URL"] = ctx.model_base_url
            env["GEMINI_API_KEY"] = "proctor-scripted"
        extra: dict[str, Any] = {"gemini_dir": gemini_dir}
        if ctx.mode == "interactive":
            env["COLORTERM"] = "truecolor"
            # Gemini CLI drops to headless mode whenever CI=true or GITHUB_ACTIONS=true, even on a
            # terminal; this variable is its own switch to skip that check. CI itself stays set,
            # so the agent's commands still see the CI they run in.
            env["GEMINI_CLI_INTEGRATION_TEST"] = "true"
            argv = [str(binary), *approval_args(ctx.profile.permission_mode)]
            extra["chat"] = tui.ChatWatch(gemini_dir, ctx.scratch / CHAT_COPY)
        else:
            argv = [str(binary), f"--prompt={ctx.prompt}", "--output-format", "stream-json"]
            # No one answers confirmations headless: yolo unless the profile asks otherwise
            # (``plan`` keeps the run read-only, ``auto_edit`` allows edits only).
            mode = ctx.profile.permission_mode
            argv += approval_args(mode) if mode else ["--yolo"]
        if ctx.agent_model:
            argv += ["-m", ctx.agent_model]
        argv += ctx.profile.args
        return Launch(argv=argv, env=env, cwd=ctx.workspace, mode=ctx.mode, extra=extra)

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
            error=error,
            reported_usage=reported_usage((result or {}).get("stats")),
            session_id=session,
        )

    def transcript_files(self, launch: Launch) -> list[Path]:
        from proctor.transcripts.session import gemini_chat

        chat = gemini_chat(launch.extra["gemini_dir"], launch.extra.get("session_id"))
        watch = launch.extra.get("chat")
        if chat is None and isinstance(watch, tui.ChatWatch) and watch.copy is not None:
            chat = watch.copy if watch.copy.is_file() else None
        return [chat] if chat is not None else []

    # -- interactive ----------------------------------------------------------------------
    # Turn end: the chat file answers the prompt and the title says Ready; questions: tool
    # confirmations on screen, answered with arrow keys (see gemini_tui).

    def state(self, session: PtySession, launch: Launch) -> AgentState:
        screen = session.screen_text()
        if tui.question_on_screen(screen) is not None:
            return AgentState("question", question=launch.extra.get("answered", 0) + 1)
        watch: tui.ChatWatch = launch.extra["chat"]
        turns = watch.turns(session.title, screen)
        if watch.tail is not None:
            launch.transcript = watch.tail.path
            launch.extra["session_id"] = watch.session_id
        if turns is None:
            return AgentState("working" if watch.tail is not None else "starting")
        return AgentState("ready", turns=turns)

    def pending_question(self, session: PtySession, launch: Launch) -> Question | None:
        return tui.question_on_screen(session.screen_text())

    def answer(self, session: PtySession, question: Question, text: str) -> None:
        keys.choose(session, question.options, text, tui.cursor)
        tui.wait_gone(session, keys.ECHO_WAIT_SEC)

    def send_message(self, session: PtySession, text: str) -> None:
        probe = keys.probe_of(text)
        keys.paste_and_submit(
            session,
            text,
            echoed=lambda screen: tui.shown(probe, screen),
            submitted=lambda screen: tui.submitted(probe, session.title, screen),
            settle=tui.PASTE_SETTLE_SEC,
        )

    def request_exit(self, session: PtySession) -> None:
        keys.quit_command(session, "/quit", tui.input_box)
