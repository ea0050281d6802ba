"""Claude Code (``claude``), headless (``-p --output-format stream-json``) or in its TUI.

The scratch home is pre-seeded so that no onboarding, trust, API-key or bypass dialog blocks a
run, with auto-update, telemetry and the official-marketplace auto-install off. The transcript is
``$CLAUDE_CONFIG_DIR/projects/<encoded cwd>/<session id>.jsonl``, whose name is known in advance
because proctor passes ``--session-id``.
"""

from __future__ import annotations

import os
import re
import shlex
import time
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
    RealCli,
    read_json_lines,
    require_binary,
    running_as_root,
    write_json,
)
from proctor.agents.hook_markers import MARKERS_FILE, instrument_plugin_hooks
from proctor.agents.provisioning import hook_groups, materialise_addon, mcp_server_config
from proctor.drive.pty_session import PtySession
from proctor.models.trajectory import Trajectory
from proctor.scripted.agent import project_dir_name

SCRIPTED_KEY = "sk-ant-proctor-scripted-0000"
DEFAULT_PERMISSION_MODE = "bypassPermissions"
STOP_LOG = "claude-stop-hook.jsonl"


#: Words that put a number in an HTTP-status context: "API Error: 401", '"code": 403',
#: "statusCode: 429", "HTTP/1.1 529", "status code 500".
_STATUS_CONTEXT = r"(?:status|code|error|api|http(?:/[\d.]+)?)[\"'\s:=]{0,4}"
#: The reason phrase that may follow a bare status: "403 Forbidden".
_STATUS_REASON = r"\s+(?:unauthorized|forbidden|too many requests|bad request|overloaded)"
#: Messages of a rejected or missing credential, from Claude, Codex and Gemini.
_AUTH_PHRASES = (
    "authentication",
    "failed to authenticate",
    "invalid x-api-key",
    "invalid api key",
    "incorrect api key",
    "api key not valid",
    "permission_denied",
)


def _has_status(text: str, codes: str) -> bool:
    """Whether ``text`` carries one of ``codes`` (a regex alternation) as an HTTP status: a whole
    number after a status word or before a reason phrase, so that digits in a line number
    (``cli.js:1401``) or a token count (``8529``) do not count."""
    code = rf"(?<![\d.])(?:{codes})(?!\d|[.:]\d)"
    return bool(
        re.search(rf"(?i){_STATUS_CONTEXT}{code}", text)
        or re.search(rf"(?i){code}{_STATUS_REASON}", text)
    )


def classify_error(text: str) -> str:
    """Name the cause of an API failure from the CLI's message (Claude, Codex and Gemini)."""
    lowered = text.lower()
    if "credit balance" in lowered or "quota" in lowered or "billing" in lowered:
        kind = "quota exhausted"
    elif _has_status(text, "401|403") or any(p in lowered for p in _AUTH_PHRASES):
        kind = "authentication failed"
    elif _has_status(text, "429") or "rate limit" in lowered or "too many requests" in lowered:
        kind = "rate limited"
    elif _has_status(text, "529") or "overloaded" in lowered:
        kind = "provider overloaded"
    elif "api error" in lowered or _has_status(text, r"[45]\d\d"):
        kind = "API error"
    else:
        kind = "agent error"
    return f"{kind}: {text.strip()[:300]}"


def stop_hook_command(stop_log: Path) -> str:
    """The Stop hook's shell command: append the hook's JSON input and a newline to
    ``stop_log``, one line per finished turn. The path is quoted because the hook runs under
    ``sh -c`` and scratch paths may hold spaces or quotes."""
    target = shlex.quote(str(stop_log))
    return f"cat >> {target}; echo >> {target}"


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
class ClaudeCode(RealCli):
    name: ClassVar[str] = "claude-code"
    transcript_format: ClassVar[str] = "claude-code"
    default_mode: ClassVar[Literal["headless", "interactive"]] = "headless"
    modes: ClassVar[tuple[str, ...]] = ("headless", "interactive")
    binary_name: ClassVar[str] = "claude"

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
        if ctx.agent_effort:
            args += ["--effort", ctx.agent_effort]
        args += self._provision(ctx, config_dir, settings)
        if ctx.mode == "interactive":
            stop_log = ctx.scratch / STOP_LOG
            settings["hooks"].setdefault("Stop", []).append(
                {"hooks": [{"type": "command", "command": stop_hook_command(stop_log)}]}
            )
        write_json(config_dir / "settings.json", settings)
        argv = [str(binary), *args, *ctx.profile.args]
        if ctx.mode == "headless":
            # "--" so that a prompt starting with "-" is not read as an option.
            argv += ["-p", "--output-format", "stream-json", "--verbose", "--", ctx.prompt]
        transcript = config_dir / "projects" / project_dir_name(str(workspace))
        return Launch(
            argv=argv,
            env=env,
            cwd=ctx.workspace,
            transcript=transcript / f"{ctx.session_id}.jsonl",
            mode=ctx.mode,
            extra={
                "stop_log": ctx.scratch / STOP_LOG,
                "config_dir": config_dir,
                "resume_argv": [
                    str(binary),
                    "--resume",
                    ctx.session_id,
                    *args[2:],
                    *ctx.profile.args,
                ],
            },
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

    def headless_report(self, launch: Launch, stdout: Path, stderr: Path) -> HeadlessReport:
        events = read_json_lines(stdout)
        results = [e for e in events if e.get("type") == "result"]
        result = results[-1] if results else None
        init = next((e for e in events if e.get("subtype") == "init"), None)
        session = (init or {}).get("session_id")
        if result is None:
            tail = stderr.read_text(errors="replace")[-400:] if stderr.exists() else ""
            message = tail.strip() or "no result event on stdout"
            return HeadlessReport(error=classify_error(message), session_id=session)
        launch.extra["denied_ids"] = [
            d.get("tool_use_id")
            for d in result.get("permission_denials") or []
            if isinstance(d, dict)
        ]
        error = None
        if result.get("is_error") or str(result.get("subtype", "")).startswith("error"):
            error = classify_error(str(result.get("result") or result.get("subtype")))
        reported: dict[str, dict[str, int]] = {}
        for r in results:
            # modelUsage names carry a context-window suffix: "claude-opus-4-8[1m]"
            for model, u in (r.get("modelUsage") or {}).items():
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
        costs = [float(r["total_cost_usd"]) for r in results if r.get("total_cost_usd") is not None]
        return HeadlessReport(
            error=error,
            reported_cost_usd=round(sum(costs), 6) if costs else None,
            reported_usage=reported or None,
            session_id=session,
        )

    # -- interactive ----------------------------------------------------------------------
    # Turn end comes from the Stop hook proctor provisions (one JSON line per finished turn);
    # questions are the TUI's pickers and permission prompts, answered with arrow keys.

    def state(self, session: PtySession, launch: Launch) -> AgentState:
        screen = session.screen_text()
        if _question_on_screen(screen) is not None:
            return AgentState("question", question=launch.extra.get("answered", 0) + 1)
        turns = _count_lines(launch.extra["stop_log"])
        if turns or _input_ready(screen):
            return AgentState("ready", turns=turns)
        return AgentState("starting")

    def pending_question(self, session: PtySession, launch: Launch) -> Question | None:
        """The picker or prompt on screen; its text from the transcript's pending
        AskUserQuestion when there is one (the screen may wrap or abbreviate it)."""
        shown = _question_on_screen(session.screen_text())
        if shown is None:
            return None
        asked = _pending_ask(launch.transcript)
        return Question(asked, shown.options) if asked else shown

    def send_message(self, session: PtySession, text: str) -> None:
        """Paste, wait until the input box shows it, then press Enter (the TUI ignores an Enter
        that arrives in the same burst as the paste)."""
        session.write(PASTE_START + text + PASTE_END)
        probe = text.strip().splitlines()[0][:30] if text.strip() else ""
        session.wait_until(
            lambda: probe in session.screen_text() or "Pasted text" in session.screen_text(),
            time.monotonic() + ECHO_WAIT_SEC,
        )
        session.write("\r")

    def answer(self, session: PtySession, question: Question, text: str) -> None:
        choose_option(session, question, text)
        session.wait_until(
            lambda: _question_on_screen(session.screen_text()) is None,
            time.monotonic() + ECHO_WAIT_SEC,
        )

    def request_exit(self, session: PtySession) -> None:
        self.send_message(session, "/exit")

    def transcript_files(self, launch: Launch) -> list[Path]:
        from proctor.transcripts.session import claude_session_files

        if launch.transcript is None:
            return []
        return claude_session_files(launch.extra["config_dir"], launch.cwd, launch.transcript.stem)

    def resume_argv(self, launch: Launch, message: str) -> list[str]:
        """A headless follow-up in the same session (``--resume``): how a question the agent
        ended its turn with gets its answer."""
        base: list[str] = launch.extra["resume_argv"]
        return [*base, "-p", "--output-format", "stream-json", "--verbose", "--", message]

    def annotate(self, trajectory: Trajectory, launch: Launch) -> None:
        """Headless runs list permission denials only in the result event: mark those results
        as denials (not tool errors)."""
        denied = set(launch.extra.get("denied_ids") or [])
        for event in trajectory.events:
            if event.type == "tool_result" and event.id in denied:
                event.denied, event.is_error = True, False


def _count_lines(path: Path) -> int:
    try:
        return sum(1 for line in path.read_text().splitlines() if line.strip().startswith("{"))
    except OSError:
        return 0


_OPTION = re.compile(r"^\s*(❯\s*)?(\d+)\.\s+(.*?)\s*$")
PASTE_START, PASTE_END = "\x1b[200~", "\x1b[201~"
ECHO_WAIT_SEC = 10.0


def _pending_ask(transcript: Path | None) -> str | None:
    """The question of the last AskUserQuestion call that has no result yet."""
    if transcript is None:
        return None
    pending: dict[str, str] = {}
    for record in read_json_lines(transcript):
        content = (record.get("message") or {}).get("content")
        for block in content if isinstance(content, list) else []:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_use" and block.get("name") == "AskUserQuestion":
                questions = (block.get("input") or {}).get("questions") or [{}]
                pending[str(block.get("id"))] = str(questions[0].get("question", ""))
            elif block.get("type") == "tool_result":
                pending.pop(str(block.get("tool_use_id")), None)
    return next(reversed(pending.values()), None) if pending else None


def _cursor(screen: str) -> int | None:
    """Index of the option the ``❯`` cursor is on, among the numbered option lines."""
    options = [line for line in screen.splitlines() if _OPTION.match(line)]
    for i, line in enumerate(options):
        match = _OPTION.match(line)
        if match and match.group(1):
            return i
    return None


def _input_ready(screen: str) -> bool:
    """The TUI shows its input box: a line starting with ``❯`` right under a horizontal rule."""
    lines = screen.splitlines()
    return any(
        line.startswith("❯") and i > 0 and lines[i - 1].startswith("─")
        for i, line in enumerate(lines)
    )


def _question_on_screen(screen: str) -> Question | None:
    """A picker or permission prompt: numbered options with the ``❯`` cursor on one of them,
    under the question line."""
    lines = screen.splitlines()
    cursor = [i for i, line in enumerate(lines) if (m := _OPTION.match(line)) and m.group(1)]
    if not cursor:
        return None
    start = cursor[0]
    i = start
    while i > 0 and (_OPTION.match(lines[i - 1]) or lines[i - 1].startswith("     ")):
        i -= 1
        if _OPTION.match(lines[i]):
            start = i
    options = []
    complete = False
    for line in lines[start:]:
        match = _OPTION.match(line)
        if match:
            options.append(match.group(3).strip())
        elif "Esc to cancel" in line:
            complete = True
            break
        elif line.strip() and not line.startswith((" ", "─")):
            break
    if not complete:
        return None
    text = ""
    for line in reversed(lines[:start]):
        stripped = line.strip("│╭╮╰╯─ ").strip()
        if stripped:
            text = stripped
            break
    return Question(text=text, options=options)


def choose_option(session: PtySession, question: Question, answer: str) -> None:
    """Move the cursor to the option that best matches ``answer`` and press Enter, as a person
    would. An answer matching no option is typed into the picker's free-text entry when it has
    one (``Type something.``)."""
    wanted = answer.strip().lower()
    labels = [o.lower() for o in question.options]
    target = next((i for i, o in enumerate(labels) if o == wanted), None)
    if target is None:
        target = next(
            (i for i, o in enumerate(labels) if o.startswith(wanted) or wanted.startswith(o)), None
        )
    if target is None and wanted.isdigit() and 1 <= int(wanted) <= len(labels):
        target = int(wanted) - 1
    free_text = next((i for i, o in enumerate(labels) if o.startswith("type something")), None)
    if target is None and free_text is not None:
        target = free_text
    target = 0 if target is None else target
    current = _cursor(session.screen_text())
    while current is not None and current != target:
        session.write("\x1b[B" if target > current else "\x1b[A")
        before = current
        session.wait_until(
            lambda b=before: _cursor(session.screen_text()) != b,  # type: ignore[misc]
            time.monotonic() + ECHO_WAIT_SEC,
        )
        moved = _cursor(session.screen_text())
        if moved == before:
            break
        current = moved
    if target == free_text and labels[target] != wanted:
        session.write(answer)
    session.write("\r")
