"""OpenAI Codex CLI (``codex``), headless with ``codex exec --json`` or in its TUI.

``CODEX_HOME`` lives in the scratch home with a ``config.toml`` (see :mod:`.config`). The
rollout is ``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*-<thread id>.jsonl``; the thread id comes
from the ``thread.started`` event on stdout (headless, where later turns run ``codex exec resume
<thread id>``) or from the rollout's ``session_meta`` (interactive). How the TUI is read is in
:mod:`.tui`.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from proctor.agents import terminal as keys
from proctor.agents.base import register
from proctor.agents.cli_base import RealCli, write_json, write_replacing
from proctor.agents.codex import config as codex_config
from proctor.agents.codex import tui
from proctor.agents.protocol import (
    AgentState,
    HeadlessReport,
    Launch,
    LaunchContext,
    Question,
    Terminal,
)
from proctor.agents.provisioning import hook_groups, materialise_addon
from proctor.agents.spec import CODEX
from proctor.errors import AgentError
from proctor.llm.failures import codex_refused, describe_agent_failure
from proctor.models.config import AgentProfile
from proctor.transcripts.codex.threads import subagent_threads
from proctor.util.masking import mask
from proctor.util.native_paths import codex_rollout
from proctor.workspace.above import ReadAbove

MIGRATION_DIALOG = "Use existing model"
DIALOG_KEY_INTERVAL_SEC = 0.5


STDERR_TAIL_CHARS = 200
"""How much of stderr the reason for a turn that printed no events quotes: its end, where
the CLI says what went wrong, and what the reason's kind is read from."""


def stderr_tail(stderr: str) -> str:
    """The last :data:`STDERR_TAIL_CHARS` characters of ``stderr`` with every registered
    secret masked (masked whole before the cut), marked when cut:
    ``…the end (cut: 1,234 characters in all, the last 200 kept)``."""
    said = mask(stderr).strip()
    if not said:
        return "nothing on stderr"
    if len(said) <= STDERR_TAIL_CHARS:
        return said
    kept = said[-STDERR_TAIL_CHARS:]
    return f"…{kept} (cut: {len(said):,} characters in all, the last {len(kept)} kept)"


@dataclass
class CodexSession:
    """Codex's launch state."""

    binary: Path
    codex_home: Path
    model: str | None
    args: list[str]
    """Options every headless turn repeats (hook trust, the profile's)."""
    thread_id: str | None = None
    rollout: tui.RolloutWatch | None = None
    """Interactive only: follows the rollout to count finished turns."""
    dialog_key_at: float = 0.0


def reported_usage(stdout: list[dict[str, Any]], model: str) -> dict[str, dict[str, int]] | None:
    """The tokens ``codex exec --json`` reported (``turn.completed``: the thread's totals so
    far, a resumed session included), counted as the rollout parser counts them (cached tokens
    out of the input)."""
    usage = next((e.get("usage") for e in stdout if e.get("type") == "turn.completed"), None)
    if not isinstance(usage, dict):
        return None
    cached = int(usage.get("cached_input_tokens") or 0)
    return {
        model: {
            "inputTokens": int(usage.get("input_tokens") or 0) - cached,
            "outputTokens": int(usage.get("output_tokens") or 0),
            "cacheReadTokens": cached,
            "cacheWriteTokens": 0,
        }
    }


@register
class Codex(RealCli[CodexSession]):
    spec = CODEX
    scratch_writes = ("home/.codex", "home/.agents")
    skill_folders = ("home/.agents/skills", "home/.codex/skills")
    read_above = (
        ReadAbove(("AGENTS.md", ".agents/skills"), "repository", "its instructions and skills"),
    )
    # A plugin is Claude Code's (--plugin-dir): this CLI would run without it.
    provision_kinds = frozenset({"mcps", "skills", "hooks"})
    reports_subagent_usage = False  # turn.completed counts the main thread's responses

    def check_profile(self, profile: AgentProfile) -> None:
        """A ``permissionMode`` must be one Codex has (raises AgentError)."""
        codex_config.interactive_permissions(profile.permission_mode)

    def prepare(self, ctx: LaunchContext) -> Launch[CodexSession]:
        binary = self.binary(ctx.profile)
        codex_home = ctx.home / ".codex"
        codex_home.mkdir(parents=True, exist_ok=True)
        model = ctx.agent_model or (codex_config.SCRIPTED_MODEL if ctx.model_base_url else None)
        config = codex_config.codex_config(ctx, model)
        if ctx.mode == "interactive":
            upgrades = codex_config.model_upgrades(str(binary))
            if upgrades:
                config["notice"] = {"model_migrations": dict(upgrades)}
        write_replacing(codex_home / "config.toml", codex_config.render_toml(config))
        if ctx.provision is not None:
            for entry in ctx.provision.skills:
                # Current Codex reads user skills from ~/.agents/skills; older builds from
                # $CODEX_HOME/skills. Both are in the scratch home.
                for root in (ctx.home / ".agents" / "skills", codex_home / "skills"):
                    materialise_addon(entry, ctx.case_dir, "skills", root / entry.name)
        hook_args: list[str] = []
        if ctx.provision is not None and ctx.provision.hooks:
            write_json(codex_home / "hooks.json", {"hooks": hook_groups(ctx.provision.hooks)})
            # The hooks are the case's own, provisioned for this trial: no interactive review.
            hook_args = ["--dangerously-bypass-hook-trust"]
        env = {**ctx.env, "CODEX_HOME": str(codex_home)}
        if ctx.model_base_url:
            env[codex_config.KEY_VARIABLE] = "proctor-scripted"
        session = CodexSession(binary, codex_home, model, [*hook_args, *ctx.profile.args])
        if ctx.mode == "interactive":
            session.rollout = tui.RolloutWatch(codex_home)
        return Launch(
            argv=[str(binary), *session.args],
            env=env,
            cwd=ctx.workspace,
            state=session,
            mode=ctx.mode,
        )

    # -- headless ---------------------------------------------------------------------------

    def headless_argv(self, launch: Launch[CodexSession], message: str, turn: int) -> list[str]:
        state = launch.state
        base = [str(state.binary), "exec"]
        if turn > 1:
            if state.thread_id is None:
                raise AgentError("agent 'codex': the first turn reported no thread id to resume")
            base += ["resume"]
        base += ["--skip-git-repo-check", "--json", *state.args]
        if turn > 1:
            base.append(str(state.thread_id))
        return [*base, "--", message]

    def headless_report(
        self, launch: Launch[CodexSession], stdout: list[dict[str, Any]], stderr: str
    ) -> HeadlessReport:
        thread = next(
            (e.get("thread_id") for e in stdout if e.get("type") == "thread.started"), None
        )
        if isinstance(thread, str):
            launch.state.thread_id = thread
        failed = next((e for e in stdout if e.get("type") == "turn.failed"), None)
        errors = [e for e in stdout if e.get("type") == "error"]
        usage = next((e.get("usage") for e in stdout if e.get("type") == "turn.completed"), None)
        error = None
        if failed is not None or (errors and usage is None):
            detail = (failed or {}).get("error", {}).get("message") or errors[-1].get("message", "")
            error = describe_agent_failure(str(detail) or "turn failed")
        elif not stdout:
            # Classified by what stderr's end says (a refused key, a rate limit, a network
            # failure), as every other failure of an agent is: `--retry-errors` reads the label.
            error = describe_agent_failure(
                f"no events on stdout ({stderr_tail(stderr)})",
                "auth" if codex_refused(stderr) else None,
            )
        model = launch.state.model
        reported = reported_usage(stdout, model) if model else None
        return HeadlessReport(
            error=error,
            reported_usage=reported,
            usage_is_cumulative=True,
        )

    def transcript_files(self, launch: Launch[CodexSession]) -> list[Path]:
        rollout = codex_rollout(launch.state.codex_home, launch.state.thread_id)
        if rollout is None:
            return []
        # The threads of the subagents it spawned: read (and kept) with it.
        return [rollout, *subagent_threads(rollout)]

    # -- interactive ----------------------------------------------------------------------
    # Turn end: task_complete / turn_aborted records in the rollout; questions: the approval
    # prompt on screen, answered with arrow keys.

    def state(self, terminal: Terminal, launch: Launch[CodexSession]) -> AgentState:
        screen = terminal.screen_text()
        if tui.question_on_screen(screen) is not None:
            return AgentState("question")
        watch = launch.state.rollout
        turns = watch.poll() if watch is not None else 0
        if watch is not None and watch.tail is not None:
            launch.state.thread_id = watch.thread_id
        if turns or tui.input_ready(screen):
            return AgentState("ready", turns=turns)
        if MIGRATION_DIALOG in screen:
            self._keep_existing_model(terminal, launch.state, screen)
        return AgentState("starting")

    def _keep_existing_model(self, terminal: Terminal, state: CodexSession, screen: str) -> None:
        """A "Meet <new model>" dialog the seeded notice did not prevent: keep the configured
        model (one key per interval, watching the cursor)."""
        now = time.monotonic()
        if now - state.dialog_key_at < DIALOG_KEY_INTERVAL_SEC:
            return
        state.dialog_key_at = now
        chosen = any(
            line.lstrip().startswith("›") and MIGRATION_DIALOG in line
            for line in screen.splitlines()
        )
        terminal.write(keys.ENTER if chosen else keys.DOWN)

    def pending_question(
        self, terminal: Terminal, launch: Launch[CodexSession], deadline: float = math.inf
    ) -> Question | None:
        return tui.question_on_screen(terminal.screen_text())

    def answer(
        self, terminal: Terminal, launch: Launch[CodexSession], question: Question, text: str
    ) -> bool:
        return keys.answer_picker(
            terminal, question.options, text, tui.cursor, tui.question_on_screen
        )

    def send_message(self, terminal: Terminal, launch: Launch[CodexSession], text: str) -> None:
        probe = keys.probe_of(text)
        keys.paste_and_submit(
            terminal,
            text,
            echoed=lambda screen: tui.shown(probe, screen),
            submitted=lambda screen: tui.submitted(probe, screen),
        )

    def request_exit(self, terminal: Terminal, launch: Launch[CodexSession]) -> None:
        keys.quit_command(terminal, "/quit", tui.composer_text)
