"""Claude Code (``claude``), headless (``-p --output-format stream-json``) or in its TUI.

The scratch home is pre-seeded so that no onboarding, trust, API-key or bypass dialog blocks a
run, with auto-update, telemetry and the official-marketplace auto-install off. The transcript is
``$CLAUDE_CONFIG_DIR/projects/<encoded cwd>/<session id>.jsonl``, whose name is known in advance
because proctor passes ``--session-id``; later headless turns resume it (``--resume``).
"""

from __future__ import annotations

import math
import os
import re
import shlex
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from proctor.agents import terminal as keys
from proctor.agents.base import register
from proctor.agents.claude_code import tui
from proctor.agents.cli_base import RealCli, running_as_root, write_json
from proctor.agents.hook_markers import MARKERS_FILE, instrument_plugin_hooks
from proctor.agents.protocol import (
    AgentState,
    HeadlessReport,
    Launch,
    LaunchContext,
    NotChosen,
    Question,
    Terminal,
)
from proctor.agents.provisioning import hook_groups, materialise_addon, mcp_server_config
from proctor.agents.spec import CLAUDE_CODE
from proctor.errors import AgentError
from proctor.llm.failures import describe_agent_failure
from proctor.models.config import AgentProfile
from proctor.models.trajectory import Trajectory
from proctor.transcripts.claude.asks import AskWatch, PendingAsk
from proctor.util.masking import mask, register_secret
from proctor.util.native_paths import claude_session_files, claude_transcript
from proctor.workspace.above import ReadAbove

SCRIPTED_KEY = "sk-ant-proctor-scripted-0000"
DEFAULT_PERMISSION_MODE = "bypassPermissions"
PERMISSION_MODES = ("acceptEdits", "auto", "bypassPermissions", "default", "dontAsk", "plan")
"""The ``--permission-mode`` values Claude Code 2.1.197 takes (its binary's choices)."""
STOP_LOG = "claude-stop-hook.jsonl"
ECHO_WAIT_SEC = 10.0
CLOSE_WAIT_SEC = 5.0
"""How long ``/exit`` waits for the transcript to close the turns the Stop hook reported."""
POLL_SEC = 0.05
"""Claude Code's input box can take a while to show a long paste."""
ASK_WAIT_SEC = 2.0
"""How long a question's picker waits for its ``AskUserQuestion`` call to reach the transcript:
Claude Code draws the picker before it writes the call (a fraction of a second later on an idle
machine). A picker whose call is not written by then is answered as the screen shows it."""
HEADLESS_FLAGS = ("-p", "--output-format", "stream-json", "--verbose")
KEY_VARIABLES = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN")
"""The variables of a key Claude Code sends as it is (``x-api-key``, ``Authorization:
Bearer``), in the order it prefers them; either wins over a login."""


@dataclass
class ClaudeSession:
    """Claude Code's launch state."""

    binary: Path
    session_id: str
    args: list[str]
    """Options every turn repeats (permission mode, model, effort, provisioning, the profile's)."""
    config_dir: Path
    stop_log: Path
    denied_ids: set[str] = field(default_factory=set)
    """Tool calls a headless result listed as permission denials."""
    turns: tui.TranscriptTurns = field(default_factory=tui.TranscriptTurns)
    """Turns the user interrupted in the TUI (they end without the Stop hook), and turns the
    transcript has closed."""
    asks: AskWatch | None = None
    """The transcript's unanswered ``AskUserQuestion`` calls, read as the transcript grows."""
    answered_asks: set[tuple[str, str]] = field(default_factory=set)
    """The ``AskUserQuestion`` calls' questions answered in the TUI, by call id and question
    text (a call's result may reach the transcript after the next picker is drawn)."""


def stop_hook_command(stop_log: Path) -> str:
    """The Stop hook's shell command: append the hook's JSON input and a newline to
    ``stop_log``, one line per finished turn. The path is quoted because the hook runs under
    ``sh -c`` and scratch paths may hold spaces or quotes."""
    target = shlex.quote(str(stop_log))
    return f"cat >> {target}; echo >> {target}"


MEMORY_FILES = ("CLAUDE.md", "CLAUDE.local.md", ".claude/CLAUDE.md")
"""Instruction files Claude Code loads from the working folder and from every folder above it."""


def ancestor_memory_files(workspace: Path) -> list[str]:
    """Instruction files in the folders above ``workspace`` (as given and as resolved), which
    Claude Code would load into the trial: they are the user's, not the case's. Listed in
    the trial's ``claudeMdExcludes``, so Claude Code skips them."""
    found: list[str] = []
    for start in dict.fromkeys((workspace, Path(os.path.realpath(workspace)))):
        for folder in start.parents:
            for name in MEMORY_FILES:
                candidate = folder / name
                if candidate.is_file() and str(candidate) not in found:
                    found.append(str(candidate))
            rules = folder / ".claude" / "rules"
            if rules.is_dir():
                found += [str(p) for p in sorted(rules.rglob("*.md")) if str(p) not in found]
    return found


def seed_home(home: Path, config_dir: Path, workspace: Path, api_key: str | None) -> None:
    """Files that take the TUI straight to its input prompt, with nothing phoning home."""
    state: dict[str, Any] = {
        "hasCompletedOnboarding": True,
        "projects": {str(workspace): {"hasTrustDialogAccepted": True}},
        "autoUpdates": False,
    }
    if api_key:
        # Claude Code approves a key by its last 20 characters: the scratch home holds them
        # (written as they are), and they are masked wherever they show up as the key is.
        state["customApiKeyResponses"] = {"approved": [api_key[-20:]], "rejected": []}
        register_secret(api_key[-20:])
    write_json(home / ".claude.json", state)
    write_json(config_dir / ".claude.json", state)


def reported_usage(results: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Per-model tokens from the ``result`` events' ``modelUsage`` (names lose their context-
    window suffix: ``claude-opus-4-8[1m]``)."""
    reported: dict[str, dict[str, int]] = {}
    for result in results:
        usage = result.get("modelUsage")
        for model, u in usage.items() if isinstance(usage, dict) else []:
            if not isinstance(u, dict):
                continue
            row = reported.setdefault(
                re.sub(r"\[[^\]]*\]$", "", model),
                dict.fromkeys(
                    ("inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens"), 0
                ),
            )
            row["inputTokens"] += int(u.get("inputTokens") or 0)
            row["outputTokens"] += int(u.get("outputTokens") or 0)
            row["cacheReadTokens"] += int(u.get("cacheReadInputTokens") or 0)
            row["cacheWriteTokens"] += int(u.get("cacheCreationInputTokens") or 0)
    return reported


@register
class ClaudeCode(RealCli[ClaudeSession]):
    spec = CLAUDE_CODE
    scratch_writes = ("home/.claude", "home/.claude.json", "plugins", "mcp.json", STOP_LOG)
    skill_folders = ("home/.claude/skills",)
    read_above = (
        # (Not the root's: Claude Code's walk for a .mcp.json stops below it.)
        ReadAbove((".mcp.json",), "every", "its MCP servers", root=False),
        ReadAbove(
            (".claude/skills", ".claude/commands", ".claude/agents"),
            "repository-or-every",
            "its skills, commands and subagents",
        ),
    )

    def check_profile(self, profile: AgentProfile) -> None:
        """A ``permissionMode`` must be one Claude Code has (raises AgentError): the CLI would
        refuse it only once a trial starts."""
        mode = profile.permission_mode
        if mode is not None and mode not in PERMISSION_MODES:
            raise AgentError(
                f"agent 'claude-code': permissionMode {mode!r} is not one of Claude Code's "
                f"({', '.join(PERMISSION_MODES)})"
            )

    def prepare(self, ctx: LaunchContext) -> Launch[ClaudeSession]:
        binary = self.binary(ctx.profile)
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
        # The CLI connects MCP servers in the background by default, and a first request that
        # comes before a slow server is up finds no such tool. A trial waits for them, up to
        # 30 s (the CLI's own MCP_CONNECT_TIMEOUT_MS, 5 s, leaves out a server that npx
        # fetches first, say); a profile's env may say otherwise.
        env.setdefault("MCP_CONNECTION_NONBLOCKING", "0")
        env.setdefault("MCP_CONNECT_TIMEOUT_MS", "30000")
        if ctx.model_base_url:
            env["ANTHROPIC_BASE_URL"] = ctx.model_base_url
            env["ANTHROPIC_API_KEY"] = SCRIPTED_KEY
        permission = ctx.profile.permission_mode or DEFAULT_PERMISSION_MODE
        if running_as_root() and permission == "bypassPermissions":
            env["IS_SANDBOX"] = "1"
        seed_home(ctx.home, config_dir, workspace, env.get("ANTHROPIC_API_KEY"))
        settings: dict[str, Any] = {"skipDangerousModePermissionPrompt": True, "hooks": {}}
        excluded = ancestor_memory_files(ctx.workspace)
        if excluded:
            settings["claudeMdExcludes"] = excluded
        args = ["--permission-mode", permission]
        if ctx.agent_model:
            args += ["--model", ctx.agent_model]
        if ctx.agent_effort:
            args += ["--effort", ctx.agent_effort]
        if ctx.max_turns and ctx.mode == "headless":
            args += ["--max-turns", str(ctx.max_turns)]
        args += self._provision(ctx, config_dir, settings)
        stop_log = ctx.scratch / STOP_LOG
        if ctx.mode == "interactive":
            settings["hooks"].setdefault("Stop", []).append(
                {"hooks": [{"type": "command", "command": stop_hook_command(stop_log)}]}
            )
        write_json(config_dir / "settings.json", settings)
        session = ClaudeSession(
            binary=binary,
            session_id=ctx.session_id,
            args=[*args, *ctx.profile.args],
            config_dir=config_dir,
            stop_log=stop_log,
        )
        return Launch(
            argv=[str(binary), "--session-id", ctx.session_id, *session.args],
            env=env,
            cwd=ctx.workspace,
            state=session,
            transcript=claude_transcript(config_dir, str(workspace), ctx.session_id),
            mode=ctx.mode,
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
        for event, groups in hook_groups(provision.hooks).items():
            settings["hooks"].setdefault(event, []).extend(groups)
        return args

    # -- headless ---------------------------------------------------------------------------

    def headless_argv(self, launch: Launch[ClaudeSession], message: str, turn: int) -> list[str]:
        """The first turn starts the session (``--session-id``), later ones resume it; "--"
        keeps a message starting with "-" from being read as an option."""
        state = launch.state
        session = ["--session-id" if turn == 1 else "--resume", state.session_id]
        return [str(state.binary), *session, *state.args, *HEADLESS_FLAGS, "--", message]

    def headless_report(
        self, launch: Launch[ClaudeSession], stdout: list[dict[str, Any]], stderr: str
    ) -> HeadlessReport:
        results = [e for e in stdout if e.get("type") == "result"]
        result = results[-1] if results else None
        if result is None:
            message = mask(stderr)[-400:].strip() or "no result event on stdout"
            return HeadlessReport(error=describe_agent_failure(message))
        for denial in result.get("permission_denials") or []:
            if isinstance(denial, dict) and denial.get("tool_use_id"):
                launch.state.denied_ids.add(str(denial["tool_use_id"]))
        error = None
        if result.get("is_error") or str(result.get("subtype", "")).startswith("error"):
            error = describe_agent_failure(str(result.get("result") or result.get("subtype")))
        costs = [float(r["total_cost_usd"]) for r in results if r.get("total_cost_usd") is not None]
        return HeadlessReport(
            error=error,
            reported_cost_usd=round(sum(costs), 6) if costs else None,
            reported_usage=reported_usage(results) or None,
        )

    def provider_failing(self, stdout: list[dict[str, Any]]) -> str | None:
        return _still_retrying(stdout)

    def refused_key(self, launch: Launch[ClaudeSession], event: dict[str, Any]) -> str | None:
        """A retry of a request the provider answered 401 while the agent runs on a key
        (:data:`KEY_VARIABLES`): Claude Code retries it, with the same key, until it is
        stopped. On a login (``CLAUDE_CODE_OAUTH_TOKEN``, ``.credentials.json``) a 401 may be
        an expired token Claude Code renews (a refused ``CLAUDE_CODE_OAUTH_TOKEN`` ends by
        itself after two retries); a 403 it does not retry. The TUI shows such a retry as any
        other (``API error · Retrying in 14s``), with no status to tell a refused key by."""
        if event.get("type") != "system" or event.get("subtype") != "api_retry":
            return None
        if event.get("error_status") != 401:
            return None
        variable = next((v for v in KEY_VARIABLES if launch.env.get(v)), None)
        if variable is None:
            return None
        return (
            f"API Error: 401 {event.get('error') or ''} (the key in {variable}, which Claude "
            f"Code retries until it is stopped; stopped at attempt {event.get('attempt')})"
        )

    def annotate(self, trajectory: Trajectory, launch: Launch[ClaudeSession]) -> None:
        """Headless runs list permission denials only in the result event: mark those results
        as denials (not tool errors)."""
        denied = launch.state.denied_ids
        for event in trajectory.events:
            if event.type == "tool_result" and event.id in denied:
                event.denied, event.is_error = True, False

    # -- interactive ----------------------------------------------------------------------
    # Turn end comes from the Stop hook proctor provisions (one JSON line per finished turn);
    # questions are the TUI's pickers and permission prompts, answered with arrow keys.

    def state(self, terminal: Terminal, launch: Launch[ClaudeSession]) -> AgentState:
        screen = terminal.screen_text()
        if tui.answers_review(screen):
            # Every question of the call was answered: the review is submitted as it is.
            _submit_review(terminal)
            return AgentState("working")
        if tui.question_on_screen(screen) is not None:
            return AgentState("question")
        state = launch.state
        state.turns.poll(launch.transcript)
        turns = tui.count_turns(state.stop_log) + state.turns.interrupted
        if turns or tui.input_ready(screen):
            return AgentState("ready", turns=turns)
        return AgentState("starting")

    def pending_question(
        self, terminal: Terminal, launch: Launch[ClaudeSession], deadline: float = math.inf
    ) -> Question | None:
        """The picker or prompt on screen. A question's text and tool call id are its
        AskUserQuestion call's in the transcript (the screen may wrap or abbreviate the text):
        the CLI draws the picker before it writes the call, so the call is waited for, up to
        :data:`ASK_WAIT_SEC` and never past ``deadline`` (the trial's). Each look at the
        transcript reads only what it gained since the last. A permission prompt is never
        waited on."""
        shown = tui.question_on_screen(terminal.screen_text())
        if shown is None or shown.kind != "question" or launch.transcript is None:
            return shown
        state = launch.state
        if state.asks is None or state.asks.tail.path != launch.transcript:
            state.asks = AskWatch(launch.transcript)
        until = min(time.monotonic() + ASK_WAIT_SEC, deadline)
        while True:
            found = _ask_shown(state.asks.poll(), state.answered_asks, shown)
            if found is not None:
                text, tool_id = found
                return Question(text or shown.text, shown.options, tool_id)
            left = until - time.monotonic()
            if left <= 0 or not terminal.pump(min(POLL_SEC, left)):
                return shown

    def send_message(self, terminal: Terminal, launch: Launch[ClaudeSession], text: str) -> None:
        """Paste, wait until the input box shows it, then press Enter (the TUI ignores an Enter
        that arrives in the same burst as the paste)."""
        probe = keys.probe_of(text)
        keys.paste_and_submit(
            terminal,
            text,
            echoed=lambda screen: tui.shows_text(screen, probe),
            submitted=lambda screen: True,
            echo_wait=ECHO_WAIT_SEC,
        )

    def answer(
        self, terminal: Terminal, launch: Launch[ClaudeSession], question: Question, text: str
    ) -> bool:
        """Choose among every entry the picker draws, its own ``Type something.`` included: an
        answer that is none of the agent's options is typed there. A multiple-choice picker
        ticks each option the answer names (:func:`_answer_multi`)."""
        multi = tui.multi_picker(terminal.screen_text())
        if multi is not None:
            chosen = _answer_multi(terminal, multi, text)
        else:
            entries = tui.picker_entries(terminal.screen_text()) or question.options
            chosen = keys.answer_picker(
                terminal, entries, text, tui.cursor, tui.question_on_screen, ECHO_WAIT_SEC
            )
        if chosen and question.id is not None:
            launch.state.answered_asks.add((question.id, question.text))
        return chosen

    def request_exit(self, terminal: Terminal, launch: Launch[ClaudeSession]) -> None:
        self.await_closed_turns(launch)
        self.send_message(terminal, launch, "/exit")

    @staticmethod
    def await_closed_turns(launch: Launch[ClaudeSession], wait: float = CLOSE_WAIT_SEC) -> bool:
        """Wait until the transcript has closed every turn the Stop hook reported: the hook runs
        before the CLI writes the turn's last lines, and a ``/exit`` sent in between loses them.
        False when ``wait`` seconds pass first (the exit goes ahead)."""
        state = launch.state
        deadline = time.monotonic() + wait
        while True:
            state.turns.poll(launch.transcript)
            if state.turns.closed >= tui.count_turns(state.stop_log):
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(POLL_SEC)

    def transcript_files(self, launch: Launch[ClaudeSession]) -> list[Path]:
        if launch.transcript is None:
            return []
        return claude_session_files(launch.state.config_dir, launch.cwd, launch.transcript.stem)


def _ticked(screen: str) -> frozenset[int] | None:
    multi = tui.multi_picker(screen)
    return None if multi is None else multi.ticked


def _answer_multi(terminal: Terminal, multi: tui.MultiPicker, text: str) -> bool:
    """Tick the options a multiple-choice answer names (:func:`keys.option_parts`: ``Cheese,
    Olives``), type the rest of it, an answer of one's own (``Cheese, extra basil``), into
    ``Type something`` (which ticks it), then move the cursor onto ``Submit`` and press Enter;
    Claude Code records the labels ticked, then the answer of one's own, joined with ``, ``.
    False, with no key pressed, when the answer is empty. Raises :class:`NotChosen` when an
    entry could not be ticked, the cursor did not reach ``Type something`` or ``Submit``, the
    answer of one's own did not show ticked, or ``Submit`` was still under the cursor after
    Enter: the picker did not take the answer."""
    targets, own = keys.option_parts(multi.options, text)
    if not targets and not own:
        return False
    count = len(multi.options) + 1
    if not keys.tick(terminal, targets, count, tui.multi_cursor, _ticked):
        raise NotChosen("its entries could not be ticked")
    if not keys.move_cursor(terminal, len(multi.options), count, tui.multi_cursor):
        raise NotChosen("the cursor did not reach Type something")
    if own:
        probe = keys.probe_of(own)
        terminal.write(own)
        shown = keys.wait_for(
            terminal,
            lambda screen: probe in screen and len(multi.options) in (_ticked(screen) or ()),
        )
        if not shown:
            raise NotChosen("the answer of its own did not show ticked")
    for _ in range(keys.KEY_TRIES):
        terminal.write(keys.DOWN)
        if keys.wait_for(terminal, tui.submit_focused, keys.KEY_WAIT_SEC):
            break
    else:
        raise NotChosen("the cursor did not reach Submit")
    keys.wait_quiet(terminal)
    for _ in range(keys.KEY_TRIES):
        terminal.write(keys.ENTER)
        if keys.wait_for(
            terminal, lambda screen: not tui.submit_focused(screen), keys.KEY_WAIT_SEC
        ):
            return True
    raise NotChosen(f"Submit was still chosen after Enter, pressed {keys.KEY_TRIES} times")


def _submit_review(terminal: Terminal) -> None:
    """Choose ``Submit answers`` on the review of a call's answers and wait until the review
    leaves the screen."""
    if tui.cursor(terminal.screen_text()) != 0:
        terminal.write(keys.UP)
        keys.wait_for(terminal, lambda screen: tui.cursor(screen) == 0, keys.KEY_WAIT_SEC)
    terminal.write(keys.ENTER)
    keys.wait_for(terminal, lambda screen: not tui.answers_review(screen), ECHO_WAIT_SEC)


def _ask_shown(
    asks: list[PendingAsk], answered: set[tuple[str, str]], shown: Question
) -> tuple[str, str] | None:
    """The question text and call id of the latest pending AskUserQuestion call that asks
    what the picker shows and was not answered already: an older call left unanswered (a
    resumed session), or one answered whose result is not written yet, is not this picker's."""
    for asked in reversed(asks):
        for text in _shown_questions(asked, shown.text):
            if (asked.id, text) not in answered:
                return text, asked.id
    return None


def _shown_questions(asked: PendingAsk, line: str) -> list[str]:
    """The call's questions the picker's question line shows (its last line when the screen
    wraps it; whitespace and case aside)."""
    said = " ".join(line.rstrip("…").split()).casefold()
    return [q for q in asked.questions or (asked.text,) if said in " ".join(q.split()).casefold()]


def _still_retrying(stdout: list[dict[str, Any]]) -> str | None:
    """What the provider answered, when Claude Code was still retrying a failed request when
    it stopped (its last event a ``system``/``api_retry``): a rate limit or an outage that
    outlasts the trial's time is the provider's failure, named as such, not the agent's."""
    last = stdout[-1] if stdout else None
    if not last or last.get("type") != "system" or last.get("subtype") != "api_retry":
        return None
    status, error = last.get("error_status"), last.get("error")
    retrying = f"still retrying when it was stopped, attempt {last.get('attempt')}"
    if status is None:  # no reply at all
        return f"API Error: Unable to connect ({error or 'connection error'}; {retrying})"
    return f"API Error: {status} {error or ''} ({retrying})"
