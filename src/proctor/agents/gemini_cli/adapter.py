"""Google Gemini CLI (``gemini``), headless with ``-p --output-format stream-json`` or in its TUI.

Settings in the scratch home select API-key auth and switch off usage statistics, telemetry and
update checks; the workspace is trusted through ``GEMINI_CLI_TRUST_WORKSPACE``. The chat file is
``~/.gemini/tmp/<project>/chats/session-*.jsonl``. Headless sessions start with proctor's
``--session-id`` and later turns resume it (``--resume``). How the TUI is read is in :mod:`.tui`,
how its ``ask_user`` picker is answered in :mod:`.ask_user`.

Permissions: the profile's ``permissionMode`` is an approval mode (``default``, ``auto_edit``,
``plan`` or ``yolo``); unset means ``--yolo`` in both modes. In the TUI the other modes show
confirmations, answered by the case's policy. Headless, Gemini CLI leaves out every tool that
would need one (``HEADLESS_LEFT_OUT``, :func:`left_out_headless`): the model is not offered it,
and a call to it fails as "not found"; proctor warns before such a run
(:meth:`GeminiCli.profile_warning`) and records such a call as a denial, not an error
(:meth:`GeminiCli.annotate`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from proctor.agents import terminal as keys
from proctor.agents.base import register
from proctor.agents.cli_base import RealCli, write_json
from proctor.agents.gemini_cli import ask_user, tui
from proctor.agents.protocol import (
    AgentState,
    HeadlessReport,
    Launch,
    LaunchContext,
    Mode,
    Question,
    Terminal,
)
from proctor.agents.provisioning import hook_groups, materialise_addon, mcp_server_config
from proctor.agents.spec import GEMINI_CLI
from proctor.errors import AgentError
from proctor.llm.failures import describe_agent_failure
from proctor.models.config import AgentProfile
from proctor.models.trajectory import Trajectory
from proctor.transcripts.lines import decode_line
from proctor.util.files import open_regular
from proctor.util.masking import mask
from proctor.util.native_paths import gemini_chat, gemini_subagent_chats
from proctor.workspace.above import ReadAbove

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
HEADLESS_LEFT_OUT = {
    "default": ("run_shell_command", "write_file", "replace", "web_fetch"),
    "auto_edit": ("run_shell_command",),
    "plan": ("run_shell_command", "web_fetch"),
}
"""The main tools Gemini CLI 0.61 does not offer the model headless (``-p``) in each approval
mode but ``yolo`` (``HEADLESS_ALSO_LEFT_OUT`` and the MCP servers' tools are left out too). In
``plan`` mode ``write_file`` and ``replace`` are offered but refused outside its plans folder."""
HEADLESS_ALSO_LEFT_OUT = ("activate_skill", "list_background_processes", "read_background_output")
"""Left out headless in every approval mode but ``yolo``, with ``HEADLESS_LEFT_OUT``'s."""
NOT_FOUND = 'Tool "{name}" not found.'
"""How Gemini CLI 0.61 answers a call to a tool it has not registered (its start)."""
UNAUTHORIZED = "Unauthorized tool call: '{name}' is not available to this agent."
"""How Gemini CLI 0.61 answers a subagent's call to a tool that subagent is not offered."""
MAIN_TOOLS_SUBAGENTS = frozenset({"generalist"})
"""Gemini CLI 0.61's built-in subagents offered every tool the main agent is (the others,
``codebase_investigator`` and ``cli_help``, have short lists of their own, which no mode
shortens)."""


def left_out_headless(name: str, approval: str, mcp_servers: Iterable[str] = ()) -> bool:
    """Whether Gemini CLI, headless in ``approval`` mode, leaves the tool ``name`` out of what
    it offers the model (its policy would ask before a call, and headless nobody can answer):
    a main tool of ``HEADLESS_LEFT_OUT``, one of ``HEADLESS_ALSO_LEFT_OUT``, or a tool of one of
    the ``mcp_servers`` (``mcp_<server>_<tool>``). Never in ``yolo``; never a made-up name."""
    if approval not in HEADLESS_LEFT_OUT:
        return False
    if name in HEADLESS_LEFT_OUT[approval] or name in HEADLESS_ALSO_LEFT_OUT:
        return True
    return any(name.startswith(mcp_prefix(server)) for server in mcp_servers)


def mcp_prefix(server: str) -> str:
    """How Gemini CLI 0.61 begins the names of an MCP server's tools: ``mcp_<server>_`` (once
    ``mcp_`` for a server named so), each character but letters, digits, ``_-.:`` as ``_``."""
    prefix = server + "_" if server.startswith("mcp_") else f"mcp_{server}_"
    return re.sub(r"[^a-zA-Z0-9_\-.:]", "_", prefix)


def left_out_reason(name: str, permission_mode: str) -> str:
    """What a denial of a call to a tool left out headless says before Gemini CLI's output."""
    return (
        f"Gemini CLI left {name} out of the tools it offers the model headless under "
        f"permissionMode '{permission_mode}' (a tool that would need a confirmation), so the "
        "call was refused as not found:"
    )


def subagent_reason(name: str, permission_mode: str, agent: str) -> str:
    """What a denial of a subagent's call to a tool left out headless says before Gemini
    CLI's output."""
    return (
        f"Gemini CLI left {name} out of the tools it offers the model headless under "
        f"permissionMode '{permission_mode}' (a tool that would need a confirmation), so "
        f"subagent {agent}, offered the main agent's tools, was refused the call:"
    )


def subagents_by_id(chat: Path) -> dict[str, str]:
    """The name of each subagent a Gemini CLI chat started, by the subagent's id (its chat's
    session id, which begins the ids of its calls): an ``invoke_agent`` entry's ``agentId``
    and ``args.agent_name``. A line that does not read is passed over."""
    found: dict[str, str] = {}
    try:
        with open_regular(chat) as fh:
            for line in fh:
                record = decode_line(line) if b'"agentId"' in line else None
                calls = record.get("toolCalls") if isinstance(record, dict) else None
                for call in calls if isinstance(calls, list) else []:
                    agent_id = call.get("agentId") if isinstance(call, dict) else None
                    args = call.get("args") if isinstance(call, dict) else None
                    label = args.get("agent_name") if isinstance(args, dict) else None
                    if isinstance(agent_id, str) and isinstance(label, str):
                        found[agent_id] = label
    except OSError:
        return found
    return found


@dataclass
class GeminiSession:
    """Gemini CLI's launch state."""

    binary: Path
    gemini_dir: Path
    session_id: str | None
    """Headless: proctor's ``--session-id``; interactive: the chat file's, once it appears."""
    args: list[str]
    """Options every headless turn repeats (approval mode, model, the profile's)."""
    chat: tui.ChatWatch | None = None
    """Interactive only: follows the chat file to count finished turns."""
    left_out: str | None = None
    """Headless in an approval mode but ``yolo``: that mode (its tools that would ask are left
    out, :func:`left_out_headless`); None otherwise."""
    permission_mode: str = ""
    """The profile's ``permissionMode`` as written, for the reason of a left-out call."""
    mcp_servers: tuple[str, ...] = ()
    """The names of the MCP servers proctor gave the session."""


def reported_usage(stats: Any) -> dict[str, dict[str, int]] | None:
    """Per-model token totals from the ``result`` event's ``stats``, counted as the chat
    parser counts them (cached tokens out of the input, thoughts in the output)."""
    models = stats.get("models") if isinstance(stats, dict) else None
    reported = {}
    for model, u in models.items() if isinstance(models, dict) else []:
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


TURN_LIMIT_SAID = "reached the maximum number of turns"
"""What Gemini CLI 0.61 writes (an ``info`` message of its chat; headless, its
``FatalTurnLimitedError``, exit 53) when the session reaches ``maxSessionTurns``: it stops
there, the turn cut short, and takes no further prompt."""


def said_turn_limit(events: Iterable[Any], reason: str = "") -> bool:
    """Whether Gemini CLI stopped the session at its turn limit (``maxTurns``), as its chat's
    events or the trial's reason say."""
    if TURN_LIMIT_SAID in reason or "FatalTurnLimitedError" in reason:
        return True
    return any(
        getattr(e, "type", None) == "other" and TURN_LIMIT_SAID in (getattr(e, "text", "") or "")
        for e in events
    )


def approval_mode(mode: str | None) -> str:
    """The approval mode a profile's ``permissionMode`` selects (``yolo`` when unset); raises
    AgentError for one that is not an approval mode."""
    if not mode:
        return "yolo"
    chosen = APPROVAL_ALIASES.get(mode.lower(), mode.lower())
    if chosen not in APPROVAL_MODES:
        raise AgentError(
            f"agent 'gemini-cli': permissionMode {mode!r} is not an approval mode "
            f"({', '.join(APPROVAL_MODES)})"
        )
    return chosen


def approval_args(mode: str | None) -> list[str]:
    """The approval flags for a profile's ``permissionMode``. Unset: ``yolo``, in both modes,
    as Claude Code and Codex run by default (no confirmation to answer); ``default`` asks
    before each tool call as Gemini CLI itself does (in the TUI; headless, the tools that
    would ask are left out: ``HEADLESS_LEFT_OUT``)."""
    chosen = approval_mode(mode)
    if chosen == "yolo":
        return ["--yolo"]
    return [] if chosen == "default" else ["--approval-mode", chosen]


def settings_for(ctx: LaunchContext, gemini_dir: Path) -> dict[str, Any]:
    """``~/.gemini/settings.json``: the key's auth (or the lent Google login when there is no
    key), nothing phoning home, the case's add-ons."""
    keyed = ctx.model_base_url or any(ctx.env.get(k) for k in ("GEMINI_API_KEY", "GOOGLE_API_KEY"))
    google_login = (gemini_dir / "oauth_creds.json").is_file()
    auth = "oauth-personal" if google_login and not keyed else "gemini-api-key"
    settings: dict[str, Any] = {
        "security": {"auth": {"selectedType": auth}},
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
        "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
        # The workspace is where GEMINI.md is looked for upwards: with a `.git` in a folder
        # above it (a temporary folder inside a repository), every GEMINI.md from there down
        # would be read.
        "context": {"memoryBoundaryMarkers": []},
    }
    if ctx.max_turns:
        settings["model"] = {"maxSessionTurns": ctx.max_turns}
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
    return settings


@register
class GeminiCli(RealCli[GeminiSession]):
    spec = GEMINI_CLI
    scratch_writes = ("home/.gemini", ".gemini", CHAT_COPY)
    skill_folders = ("home/.gemini/skills",)
    # Up to the repository's root, and none above outside a repository (0.61 stops at its
    # working folder when no folder above holds a .git), as the audit reads it.
    read_above = (ReadAbove(("GEMINI.md",), "repository", "its instructions"),)
    # A plugin is Claude Code's (--plugin-dir): this CLI would run without it.
    provision_kinds = frozenset({"mcps", "skills", "hooks"})

    def check_profile(self, profile: AgentProfile) -> None:
        """A ``permissionMode`` must be a Gemini CLI approval mode (raises AgentError)."""
        approval_args(profile.permission_mode)

    def profile_warning(self, profile: AgentProfile, mode: Mode) -> str | None:
        """Headless, an approval mode but ``yolo`` leaves the shell tool out, the skills tool
        and every MCP server's tools too (and more)."""
        chosen = approval_mode(profile.permission_mode)
        if mode != "headless" or chosen == "yolo":
            return None
        tools = ", ".join([*HEADLESS_LEFT_OUT[chosen], "activate_skill"])
        return (
            f"permissionMode '{profile.permission_mode}' runs Gemini CLI headless without "
            f"{tools} or any MCP server's tools (it does not offer the model a tool that "
            "would need a confirmation; a call to one is refused as not found, a denial), so "
            "the agent cannot run commands or tests, load the case's skills or call its MCP "
            "servers; use permissionMode 'yolo' (or none) headless, or --mode interactive to "
            "answer its confirmations"
        )

    def prepare(self, ctx: LaunchContext) -> Launch[GeminiSession]:
        binary = self.binary(ctx.profile)
        gemini_dir = ctx.home / ".gemini"
        write_json(gemini_dir / "settings.json", settings_for(ctx, gemini_dir))
        # Gemini CLI loads the first .gemini/.env or .env found from the workspace up to /: an
        # empty one just above the workspace stops the search before any folder of the user's.
        barrier = ctx.scratch / ".gemini" / ".env"
        barrier.parent.mkdir(parents=True, exist_ok=True)
        barrier.touch()
        env = {**ctx.env, "GEMINI_CLI_TRUST_WORKSPACE": "true", "NO_BROWSER": "true"}
        if ctx.model_base_url:
            env["GOOGLE_GEMINI_BASE_URL"] = ctx.model_base_url
            env["GEMINI_API_KEY"] = "proctor-scripted"
        mode = ctx.profile.permission_mode
        if ctx.mode == "interactive":
            env["COLORTERM"] = "truecolor"
            # Gemini CLI drops to headless mode whenever CI=true or GITHUB_ACTIONS=true, even on a
            # terminal; this variable is its own switch to skip that check. CI itself stays set,
            # so the agent's commands still see the CI they run in.
            env["GEMINI_CLI_INTEGRATION_TEST"] = "true"
        # Yolo unless the profile asks otherwise: ``plan`` keeps the run read-only, ``auto_edit``
        # allows edits only, ``default`` asks before each call (the terminal's qna answers).
        args = approval_args(mode)
        if ctx.agent_model:
            args += ["-m", ctx.agent_model]
        headless = ctx.mode == "headless"
        session = GeminiSession(
            binary,
            gemini_dir,
            ctx.session_id if headless else None,
            [*args, *ctx.profile.args],
        )
        if not headless:
            session.chat = tui.ChatWatch(gemini_dir, ctx.scratch / CHAT_COPY)
        elif approval_mode(mode) != "yolo":
            session.left_out = approval_mode(mode)
            session.permission_mode = mode or ""
            mcps = ctx.provision.mcps if ctx.provision is not None else []
            session.mcp_servers = tuple(entry.name for entry in mcps)
        return Launch(
            argv=[str(binary), *session.args],
            env=env,
            cwd=ctx.workspace,
            state=session,
            mode=ctx.mode,
        )

    # -- headless ---------------------------------------------------------------------------

    def headless_argv(self, launch: Launch[GeminiSession], message: str, turn: int) -> list[str]:
        state = launch.state
        if state.session_id is None:
            raise AgentError("agent 'gemini-cli': no session id to resume")
        session = ["--session-id" if turn == 1 else "--resume", state.session_id]
        return [
            str(state.binary),
            *session,
            f"--prompt={message}",
            "--output-format",
            "stream-json",
            *state.args,
        ]

    def headless_report(
        self, launch: Launch[GeminiSession], stdout: list[dict[str, Any]], stderr: str
    ) -> HeadlessReport:
        result = next((e for e in reversed(stdout) if e.get("type") == "result"), None)
        init = next((e for e in stdout if e.get("type") == "init"), None)
        session = (init or {}).get("session_id")
        if isinstance(session, str):
            launch.state.session_id = session
        error = None
        if result is None or result.get("status") == "error" or result.get("error"):
            detail = (result or {}).get("error") or mask(stderr)[-400:]
            error = describe_agent_failure(str(detail) or "no result event on stdout")
        return HeadlessReport(
            error=error,
            reported_usage=reported_usage((result or {}).get("stats")),
        )

    def transcript_files(self, launch: Launch[GeminiSession]) -> list[Path]:
        chat = gemini_chat(launch.state.gemini_dir, launch.state.session_id)
        watch = launch.state.chat
        if chat is None and watch is not None and watch.copy is not None:
            chat = watch.copy if watch.copy.is_file() else None
        if chat is None:
            return []
        # The chats of the subagents it started: read (and kept) with it.
        return [chat, *gemini_subagent_chats(chat)]

    def annotate(self, trajectory: Trajectory, launch: Launch[GeminiSession]) -> None:
        """Headless in an approval mode but ``yolo``, a call to a tool Gemini CLI left out of
        what it offers the model fails as "not found" (``status: error`` in its chat): mark
        it a denial by the permission mode, the reason before Gemini CLI's output. So is a
        subagent's call to such a tool refused as "not available to this agent" when that
        subagent is offered the main agent's tools (``MAIN_TOOLS_SUBAGENTS``, told by the id
        its calls begin with). A made-up name stays an error, and so does another subagent's
        call (its own tool list lacks the tool in every mode)."""
        state = launch.state
        if state.left_out is None:
            return
        names: dict[str | None, str] = {}
        subagents: dict[str, str] | None = None
        for event in trajectory.events:
            if event.type == "tool_call":
                names[event.id] = event.name
                continue
            if event.type != "tool_result" or not event.is_error:
                continue
            name = names.get(event.id)
            output = event.output or ""
            if name is None or not left_out_headless(name, state.left_out, state.mcp_servers):
                continue
            if not event.sidechain and output.startswith(NOT_FOUND.format(name=name)):
                reason = left_out_reason(name, state.permission_mode)
            elif event.sidechain and output.startswith(UNAUTHORIZED.format(name=name)):
                if subagents is None:
                    files = self.transcript_files(launch)
                    subagents = subagents_by_id(files[0]) if files else {}
                agent = subagents.get((event.id or "").split("#")[0])
                if agent not in MAIN_TOOLS_SUBAGENTS:
                    continue
                reason = subagent_reason(name, state.permission_mode, str(agent))
            else:
                continue
            event.denied, event.is_error = True, False
            event.output = f"{reason} {output}"

    # -- interactive ----------------------------------------------------------------------
    # Turn end: the chat file answers the prompt and the title says Ready; questions: tool
    # confirmations on screen, answered with arrow keys.

    def state(self, terminal: Terminal, launch: Launch[GeminiSession]) -> AgentState:
        screen = terminal.screen_text()
        picker = tui.ask_user_on_screen(screen)
        if picker is not None and picker.review:
            # Every question of the call was answered (a review drawn after the answer let go
            # of the last): submitted as it is, as Claude Code's is.
            ask_user.submit_review(terminal)
            return AgentState("working")
        if tui.question_on_screen(screen) is not None:
            return AgentState("question")
        watch = launch.state.chat
        if watch is None:
            return AgentState("starting")
        turns = watch.turns(terminal.title, screen)
        if watch.tail is not None and watch.session_id:
            launch.state.session_id = watch.session_id
        if turns is None:
            return AgentState("working" if watch.tail is not None else "starting")
        return AgentState("ready", turns=turns)

    def pending_question(
        self, terminal: Terminal, launch: Launch[GeminiSession], deadline: float = math.inf
    ) -> Question | None:
        """The question on screen; a multiple-choice ``ask_user`` question's options read whole
        (its list scrolls: :func:`.ask_user.multi_question`)."""
        screen = terminal.screen_text()
        picker = tui.ask_user_on_screen(screen)
        if picker is not None and picker.multi and not picker.review:
            asked = ask_user.multi_question(terminal, picker)
            if asked is not None:
                return asked
        return tui.question_on_screen(screen)

    def answer(
        self, terminal: Terminal, launch: Launch[GeminiSession], question: Question, text: str
    ) -> bool:
        """A tool confirmation: the option the answer names; the ``ask_user`` picker as
        :func:`.ask_user.answer` answers it."""
        picker = tui.ask_user_on_screen(terminal.screen_text())
        if picker is None or picker.review:
            return keys.answer_picker(
                terminal, question.options, text, tui.cursor, tui.question_on_screen
            )
        return ask_user.answer(terminal, picker, question.options, text)

    def send_message(self, terminal: Terminal, launch: Launch[GeminiSession], text: str) -> None:
        probe = keys.probe_of(text)
        keys.paste_and_submit(
            terminal,
            text,
            echoed=lambda screen: tui.shown(probe, screen),
            submitted=lambda screen: tui.submitted(probe, terminal.title, screen),
            settle=tui.PASTE_SETTLE_SEC,
        )

    def request_exit(self, terminal: Terminal, launch: Launch[GeminiSession]) -> None:
        keys.quit_command(terminal, "/quit", tui.input_box)
