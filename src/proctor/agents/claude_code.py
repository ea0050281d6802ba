"""Claude Code (``claude``), headless (``-p --output-format stream-json``) or in its TUI.

The scratch home is pre-seeded so that no onboarding, trust, API-key or bypass dialog blocks a
run, with auto-update, telemetry and the official-marketplace auto-install off. The transcript is
``$CLAUDE_CONFIG_DIR/projects/<encoded cwd>/<session id>.jsonl``, whose name is known in advance
because proctor passes ``--session-id``.
"""

from __future__ import annotations

import os
import re
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
    running_as_root,
    write_json,
)
from proctor.agents.hook_markers import MARKERS_FILE, instrument_plugin_hooks
from proctor.agents.provisioning import entry_field, materialise_addon, mcp_server_config
from proctor.drive.pty_session import PtySession
from proctor.models.config import AgentProfile
from proctor.models.trajectory import Trajectory
from proctor.scripted.agent import project_dir_name

SCRIPTED_KEY = "sk-ant-proctor-scripted-0000"
DEFAULT_PERMISSION_MODE = "bypassPermissions"
STOP_LOG = "claude-stop-hook.jsonl"


def classify_error(text: str) -> str:
    """Name the cause of an API failure from the CLI's message."""
    lowered = text.lower()
    if "credit balance" in lowered or "quota" in lowered or "billing" in lowered:
        kind = "quota exhausted"
    elif "401" in text or "authentication" in lowered or "invalid x-api-key" in lowered:
        kind = "authentication failed"
    elif "429" in text or "rate limit" in lowered:
        kind = "rate limited"
    elif "529" in text or "overloaded" in lowered:
        kind = "provider overloaded"
    elif "api error" in lowered or re.search(r"\b5\d\d\b", text):
        kind = "API error"
    else:
        kind = "agent error"
    return f"{kind}: {text.strip()[:300]}"


def seed_home(home: Path, config_dir: Path, workspace: Path, api_key: str | None) -> None:
    """Files that take the TUI straight to its input prompt, with nothing phoning home."""
    state: dict[str, Any] = {
        "hasCompletedOnboarding": True,
        "projects": {str(workspace): {"hasTrustDialogAccepted": True}},
        "autoUpdates": False,
    }
    if api_key:
        state["customApiKeyResponses"] = {"approved": [api_key[-20:]], "rejected": []}
    write_json(home / ".claude.json", state)
    write_json(config_dir / ".claude.json", state)


@register
class ClaudeCode:
    name: ClassVar[str] = "claude-code"
    transcript_format: ClassVar[str] = "claude-code"
    default_mode: ClassVar[Literal["headless", "interactive"]] = "headless"
    modes: ClassVar[tuple[str, ...]] = ("headless", "interactive")
    binary_name: ClassVar[str] = "claude"

    def version(self, profile: AgentProfile) -> str | None:
        binary = find_binary(self.binary_name, profile)
        return cli_version(str(binary)) if binary else None

    def prepare(self, ctx: LaunchContext) -> Launch:
        binary = require_binary(self.binary_name, self.name, ctx.profile)
        workspace = Path(os.path.realpath(ctx.workspace))
        config_dir = ctx.home / ".claude"
        env = dict(ctx.env)
        env.update(
            CLAUDE_CONFIG_DIR=str(config_dir),
            DISABLE_AUTOUPDATER="1",
            DISABLE_TELEMETRY="1",
            DISABLE_ERROR_REPORTING="1",
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
            CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL="1",
        )
        if ctx.model_base_url:
            env["ANTHROPIC_BASE_URL"] = ctx.model_base_url
            env["ANTHROPIC_API_KEY"] = SCRIPTED_KEY
        permission = ctx.profile.permission_mode or DEFAULT_PERMISSION_MODE
        if running_as_root() and permission == "bypassPermissions":
            env["IS_SANDBOX"] = "1"
        seed_home(ctx.home, config_dir, workspace, env.get("ANTHROPIC_API_KEY"))
        settings: dict[str, Any] = {"skipDangerousModePermissionPrompt": True, "hooks": {}}
        args = ["--session-id", ctx.session_id, "--permission-mode", permission]
        if ctx.agent_model:
            args += ["--model", ctx.agent_model]
        args += self._provision(ctx, config_dir, settings)
        if ctx.mode == "interactive":
            stop_log = ctx.scratch / STOP_LOG
            settings["hooks"].setdefault("Stop", []).append(
                {
                    "hooks": [
                        {"type": "command", "command": f"cat >> {stop_log}; echo >> {stop_log}"}
                    ]
                }
            )
        write_json(config_dir / "settings.json", settings)
        argv = [str(binary), *args, *ctx.profile.args]
        if ctx.mode == "headless":
            argv += ["-p", ctx.prompt, "--output-format", "stream-json", "--verbose"]
        transcript = config_dir / "projects" / project_dir_name(str(workspace))
        return Launch(
            argv=argv,
            env=env,
            cwd=ctx.workspace,
            transcript=transcript / f"{ctx.session_id}.jsonl",
            mode=ctx.mode,
            extra={"stop_log": ctx.scratch / STOP_LOG, "config_dir": config_dir},
        )

    def _provision(
        self, ctx: LaunchContext, config_dir: Path, settings: dict[str, Any]
    ) -> list[str]:
        args: list[str] = []
        provision = ctx.provision
        if provision is None:
            return args
        for entry in provision.plugins:
            dest = ctx.scratch / "plugins" / entry.name
            materialise_addon(entry, ctx.case_dir, "plugins", dest)
            if ctx.trial_dir is not None:
                instrument_plugin_hooks(dest, entry.name, ctx.trial_dir / MARKERS_FILE)
            args += ["--plugin-dir", str(dest)]
        for entry in provision.skills:
            materialise_addon(entry, ctx.case_dir, "skills", config_dir / "skills" / entry.name)
        if provision.mcps:
            servers = {e.name: mcp_server_config(e) for e in provision.mcps}
            mcp_file = ctx.scratch / "mcp.json"
            write_json(mcp_file, {"mcpServers": servers})
            args += ["--mcp-config", str(mcp_file)]
        for entry in provision.hooks:
            event = entry_field(entry, "event") or "PreToolUse"
            hook = {"type": "command", "command": entry_field(entry, "command")}
            group: dict[str, Any] = {"hooks": [hook]}
            if entry_field(entry, "matcher"):
                group["matcher"] = entry_field(entry, "matcher")
            settings["hooks"].setdefault(event, []).append(group)
        return args

    # -- headless ---------------------------------------------------------------------------

    def headless_report(self, launch: Launch, stdout: Path, stderr: Path) -> HeadlessReport:
        events = read_json_lines(stdout)
        result = next((e for e in reversed(events) if e.get("type") == "result"), None)
        init = next((e for e in events if e.get("subtype") == "init"), None)
        session = (init or {}).get("session_id")
        if result is None:
            tail = stderr.read_text(errors="replace")[-400:] if stderr.exists() else ""
            message = tail.strip() or "no result event on stdout"
            return HeadlessReport(error=classify_error(message), session_id=session)
        error = None
        if result.get("is_error") or str(result.get("subtype", "")).startswith("error"):
            error = classify_error(str(result.get("result") or result.get("subtype")))
        return HeadlessReport(
            error=error,
            reported_cost_usd=result.get("total_cost_usd"),
            reported_usage=result.get("modelUsage"),
            session_id=session,
        )

    # -- interactive ------------------------------------------------------------------------

    def state(self, session: PtySession, launch: Launch) -> AgentState:
        turns = _count_lines(launch.extra["stop_log"])
        screen = session.screen_text()
        if _question_on_screen(screen) is not None:
            return AgentState("question", question=turns * 100 + _question_index(launch))
        if "❯" in screen or "> " in screen:
            return AgentState("ready", turns=turns)
        return AgentState("starting")

    def pending_question(self, session: PtySession, launch: Launch) -> Question | None:
        return _question_on_screen(session.screen_text())

    def answer(self, session: PtySession, question: Question, text: str) -> None:
        choose_option(session, question, text)
        launch_questions = getattr(session, "answered", 0)
        session.answered = launch_questions + 1  # type: ignore[attr-defined]

    def request_exit(self, session: PtySession) -> None:
        session.write("/exit")
        session.write("\r")

    def transcript_files(self, launch: Launch) -> list[Path]:
        from proctor.transcripts.session import claude_session_files

        if launch.transcript is None:
            return []
        return claude_session_files(launch.extra["config_dir"], launch.cwd, launch.transcript.stem)

    def parse(self, path: Path) -> Trajectory:
        from proctor.transcripts.detect import parse_any

        return parse_any(path, "claude-code")


def _count_lines(path: Path) -> int:
    try:
        return sum(1 for line in path.read_text().splitlines() if line.strip().startswith("{"))
    except OSError:
        return 0


def _question_index(launch: Launch) -> int:
    return 1


_OPTION = re.compile(r"^\s*(?:❯\s*)?(\d+)\.\s+(.*?)\s*$")


def _question_on_screen(screen: str) -> Question | None:
    """A permission prompt or the AskUserQuestion picker: a question line, then numbered options
    with a ``❯`` cursor on one of them."""
    lines = screen.splitlines()
    cursor = [i for i, line in enumerate(lines) if _OPTION.match(line) and "❯" in line]
    if not cursor:
        return None
    first = cursor[0]
    start = first
    while start > 0 and _OPTION.match(lines[start - 1]):
        start -= 1
    options = []
    end = start
    while end < len(lines) and _OPTION.match(lines[end]):
        match = _OPTION.match(lines[end])
        assert match is not None
        options.append(match.group(2).strip("│ "))
        end += 1
    text = ""
    for line in reversed(lines[:start]):
        stripped = line.strip("│╭╮╰╯─ ").strip()
        if stripped:
            text = stripped
            break
    return Question(text=text, options=options)


def choose_option(session: PtySession, question: Question, answer: str) -> None:
    """Pick the option best matching ``answer`` by moving the cursor, as a person would."""
    wanted = answer.strip().lower()
    target = 0
    for i, option in enumerate(question.options):
        if option.lower() == wanted or option.lower().startswith(wanted):
            target = i
            break
    else:
        if wanted.isdigit() and 1 <= int(wanted) <= len(question.options):
            target = int(wanted) - 1
    screen = session.screen_text()
    current = 0
    option_lines = [line for line in screen.splitlines() if _OPTION.match(line)]
    for i, line in enumerate(option_lines):
        if "❯" in line:
            current = i
            break
    key = "\x1b[B" if target > current else "\x1b[A"
    for _ in range(abs(target - current)):
        session.write(key)
    session.write("\r")
