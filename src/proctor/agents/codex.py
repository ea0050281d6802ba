"""OpenAI Codex CLI (``codex``), headless with ``codex exec --json`` or in its TUI.

``CODEX_HOME`` lives in the scratch home with a ``config.toml`` that keeps the run off the network
except for its model endpoint (no update check, no plugin sync, no analytics, no daemon, no
tooltips). The rollout is ``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*-<thread id>.jsonl``; the
thread id comes from the ``thread.started`` event on stdout (headless) or from the rollout's
``session_meta`` (interactive). How the TUI is driven is in :mod:`proctor.agents.codex_tui`.

Permissions: headless runs use ``approval_policy = "never"`` and the profile's
``permissionMode`` as the sandbox mode (default ``danger-full-access``). In the TUI,
``permissionMode`` may name an approval policy (``untrusted``, ``on-failure``, ``on-request``,
``never``), a sandbox mode, both (``on-request/workspace-write``), or ``yolo``; see
:func:`interactive_permissions`.
"""

from __future__ import annotations

import functools
import json
import os
import re
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any, ClassVar, Literal

from proctor.agents import codex_tui as tui
from proctor.agents.base import (
    AgentState,
    HeadlessReport,
    Launch,
    LaunchContext,
    Question,
    register,
)
from proctor.agents.cli_base import RealCli, read_json_lines, require_binary, write_json
from proctor.agents.provisioning import hook_groups, materialise_addon, mcp_server_config
from proctor.drive.pty_session import PtySession
from proctor.errors import AgentError
from proctor.models.config import AgentProfile

SCRIPTED_MODEL = "gpt-5.5"
KEY_VARIABLE = "CODEX_SCRIPTED_API_KEY"
APPROVAL_POLICIES = ("untrusted", "on-failure", "on-request", "never")
SANDBOX_MODES = ("read-only", "workspace-write", "danger-full-access")
FULL_ACCESS = ("never", "danger-full-access")
MIGRATION_DIALOG = "Use existing model"
DIALOG_KEY_INTERVAL_SEC = 0.5


def interactive_permissions(mode: str | None) -> tuple[str, str]:
    """(approval policy, sandbox mode) for the TUI from a profile's ``permissionMode``.

    Unset or ``yolo``: never ask, full access (as headless). An approval policy alone runs in
    the ``workspace-write`` sandbox (full access with ``never``); a sandbox mode alone never
    asks; ``POLICY/SANDBOX`` (or ``,``/``+``/space separated) sets both.
    """
    if not mode or mode.lower() in ("yolo", "bypasspermissions"):
        return FULL_ACCESS
    words = [w for w in re.split(r"[/,+\s]+", mode.strip()) if w]
    approval = next((w for w in words if w in APPROVAL_POLICIES), None)
    sandbox = next((w for w in words if w in SANDBOX_MODES), None)
    unknown = [w for w in words if w not in APPROVAL_POLICIES and w not in SANDBOX_MODES]
    if unknown or (approval is None and sandbox is None):
        raise AgentError(
            f"agent 'codex': permissionMode {mode!r} is not an approval policy "
            f"({', '.join(APPROVAL_POLICIES)}), a sandbox mode ({', '.join(SANDBOX_MODES)}), "
            "POLICY/SANDBOX or 'yolo'"
        )
    if approval is None:
        return "never", sandbox or "danger-full-access"
    if sandbox is None:
        sandbox = "danger-full-access" if approval == "never" else "workspace-write"
    return approval, sandbox


@functools.lru_cache(maxsize=8)
def model_upgrades(binary: str) -> tuple[tuple[str, str], ...]:
    """(model, the model the TUI offers to switch to) from the CLI's bundled catalog, offline.

    Recorded as already seen (``[notice] model_migrations``), they keep the TUI from opening
    with a "Meet <new model>" dialog."""
    try:
        with tempfile.TemporaryDirectory(prefix="proctor-codex-") as scratch:
            env = {**os.environ, "CODEX_HOME": scratch, "HOME": scratch}
            out = subprocess.run(
                [binary, "debug", "models", "--bundled"],
                capture_output=True,
                text=True,
                timeout=30,
                check=False,
                stdin=subprocess.DEVNULL,
                env=env,
                cwd=scratch,
            ).stdout
        catalog = json.loads(out)
    except (OSError, subprocess.TimeoutExpired, ValueError):
        return ()
    models = catalog.get("models", catalog) if isinstance(catalog, dict) else catalog
    pairs = []
    for model in models if isinstance(models, list) else []:
        if not isinstance(model, dict):
            continue
        upgrade = model.get("upgrade")
        target = upgrade.get("model") if isinstance(upgrade, dict) else None
        if isinstance(model.get("slug"), str) and isinstance(target, str):
            pairs.append((model["slug"], target))
    return tuple(pairs)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return (
            "{ " + ", ".join(f"{json.dumps(k)} = {_toml_value(v)}" for k, v in value.items()) + " }"
        )
    return json.dumps(str(value))


def render_toml(tables: dict[str, dict[str, Any]]) -> str:
    """A small TOML writer for flat tables (``""`` is the root table)."""
    out = []
    for name, values in tables.items():
        if name:
            out.append(f"\n[{name}]")
        out += [f"{key} = {_toml_value(value)}" for key, value in values.items()]
    return "\n".join(out).lstrip() + "\n"


def codex_config(ctx: LaunchContext, model: str) -> dict[str, dict[str, Any]]:
    if ctx.mode == "interactive":
        approval, sandbox = interactive_permissions(ctx.profile.permission_mode)
    else:
        # ``codex exec`` never asks; the profile's mode still chooses the sandbox.
        approval, sandbox = "never", interactive_permissions(ctx.profile.permission_mode)[1]
    root: dict[str, Any] = {
        "model": model,
        "approval_policy": approval,
        "sandbox_mode": sandbox,
        "check_for_update_on_startup": False,
    }
    if ctx.agent_effort:
        root["model_reasoning_effort"] = ctx.agent_effort
    tables: dict[str, dict[str, Any]] = {"": root}
    if ctx.model_base_url:
        root["model_provider"] = "proctor"
        tables["model_providers.proctor"] = {
            "name": "proctor scripted model",
            "base_url": ctx.model_base_url.rstrip("/") + "/v1",
            "wire_api": "responses",
            "env_key": KEY_VARIABLE,
            "request_max_retries": 0,
            "stream_max_retries": 0,
            "stream_idle_timeout_ms": 30000,
        }
    tables["features"] = {"plugins": False, "daemon_auto_start": False, "in_app_updates": False}
    tables["analytics"] = {"enabled": False}
    tables["tui"] = {"show_tooltips": False}
    if ctx.provision is not None:
        for entry in ctx.provision.mcps:
            tables[f"mcp_servers.{json.dumps(entry.name)}"] = mcp_server_config(
                entry, "http_headers"
            )
    return tables


@register
class Codex(RealCli):
    name: ClassVar[str] = "codex"
    transcript_format: ClassVar[str] = "codex"
    default_mode: ClassVar[Literal["headless", "interactive"]] = "headless"
    modes: ClassVar[tuple[str, ...]] = ("headless", "interactive")
    binary_name: ClassVar[str] = "codex"

    def check_profile(self, profile: AgentProfile) -> None:
        """A ``permissionMode`` must be one Codex has (raises AgentError)."""
        interactive_permissions(profile.permission_mode)

    def prepare(self, ctx: LaunchContext) -> Launch:
        binary = require_binary(self.binary_name, self.name, ctx.profile)
        codex_home = ctx.home / ".codex"
        codex_home.mkdir(parents=True, exist_ok=True)
        model = ctx.agent_model or (SCRIPTED_MODEL if ctx.model_base_url else None)
        config = codex_config(ctx, model or "")
        if not model:
            del config[""]["model"]
        if ctx.mode == "interactive":
            upgrades = model_upgrades(str(binary))
            if upgrades:
                config["notice"] = {"model_migrations": dict(upgrades)}
        (codex_home / "config.toml").write_text(render_toml(config), encoding="utf-8")
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
            env[KEY_VARIABLE] = "proctor-scripted"
        extra: dict[str, Any] = {"codex_home": codex_home, "model": model}
        if ctx.mode == "interactive":
            argv = [str(binary), *hook_args, *ctx.profile.args]
            extra["rollout"] = tui.RolloutWatch(codex_home)
        else:
            argv = [
                str(binary),
                "exec",
                "--skip-git-repo-check",
                "--json",
                *hook_args,
                *ctx.profile.args,
                "--",
                ctx.prompt,
            ]
        return Launch(argv=argv, env=env, cwd=ctx.workspace, mode=ctx.mode, extra=extra)

    def headless_report(self, launch: Launch, stdout: Path, stderr: Path) -> HeadlessReport:
        events = read_json_lines(stdout)
        thread = next(
            (e.get("thread_id") for e in events if e.get("type") == "thread.started"), None
        )
        launch.extra["thread_id"] = thread
        failed = next((e for e in events if e.get("type") == "turn.failed"), None)
        errors = [e for e in events if e.get("type") == "error"]
        usage = next((e.get("usage") for e in events if e.get("type") == "turn.completed"), None)
        error = None
        if failed is not None or (errors and usage is None):
            from proctor.agents.claude_code import classify_error

            detail = (failed or {}).get("error", {}).get("message") or errors[-1].get("message", "")
            error = classify_error(str(detail) or "turn failed")
        elif not events:
            tail = stderr.read_text(errors="replace")[-400:] if stderr.exists() else ""
            error = f"agent error: no events on stdout ({tail.strip()[:200]})"
        reported = None
        if isinstance(usage, dict) and launch.extra.get("model"):
            cached = int(usage.get("cached_input_tokens") or 0)
            reported = {
                str(launch.extra["model"]): {
                    "inputTokens": int(usage.get("input_tokens") or 0) - cached,
                    "outputTokens": int(usage.get("output_tokens") or 0),
                    "cacheReadTokens": cached,
                    "cacheWriteTokens": 0,
                }
            }
        return HeadlessReport(error=error, reported_usage=reported, session_id=thread)

    def transcript_files(self, launch: Launch) -> list[Path]:
        from proctor.transcripts.session import codex_rollout

        rollout = codex_rollout(launch.extra["codex_home"], launch.extra.get("thread_id"))
        return [rollout] if rollout is not None else []

    # -- interactive ----------------------------------------------------------------------
    # Turn end: task_complete / turn_aborted records in the rollout; questions: the approval
    # prompt on screen, answered with arrow keys (see codex_tui).

    def state(self, session: PtySession, launch: Launch) -> AgentState:
        screen = session.screen_text()
        if tui.question_on_screen(screen) is not None:
            return AgentState("question", question=launch.extra.get("answered", 0) + 1)
        watch: tui.RolloutWatch = launch.extra["rollout"]
        turns = watch.poll()
        if watch.tail is not None:
            launch.transcript = watch.tail.path
            launch.extra["thread_id"] = watch.thread_id
        if turns or tui.input_ready(screen):
            return AgentState("ready", turns=turns)
        if MIGRATION_DIALOG in screen:
            self._keep_existing_model(session, launch, screen)
        return AgentState("starting")

    def _keep_existing_model(self, session: PtySession, launch: Launch, screen: str) -> None:
        """A "Meet <new model>" dialog the seeded notice did not prevent: keep the configured
        model (one key per interval, watching the cursor)."""
        now = time.monotonic()
        if now - launch.extra.get("dialog_key_at", 0.0) < DIALOG_KEY_INTERVAL_SEC:
            return
        launch.extra["dialog_key_at"] = now
        chosen = any(
            line.lstrip().startswith("›") and MIGRATION_DIALOG in line
            for line in screen.splitlines()
        )
        session.write("\r" if chosen else tui.DOWN)

    def pending_question(self, session: PtySession, launch: Launch) -> Question | None:
        return tui.question_on_screen(session.screen_text())

    def answer(self, session: PtySession, question: Question, text: str) -> None:
        tui.choose(session, question.options, text, tui.cursor)
        session.wait_until(
            lambda: tui.question_on_screen(session.screen_text()) is None,
            time.monotonic() + tui.ECHO_WAIT_SEC,
        )

    def send_message(self, session: PtySession, text: str) -> None:
        probe = tui.probe_of(text)

        def shown(screen: str) -> bool:
            held = tui.composer_text(screen) or ""
            return probe in held or tui.PASTED in held

        def submitted(screen: str) -> bool:
            if tui.CONFIRM_LINE in screen:
                return True
            return tui.composer_text(screen) is not None and not shown(screen)

        tui.paste_and_submit(session, text, echoed=shown, submitted=submitted)

    def request_exit(self, session: PtySession) -> None:
        tui.quit_command(session, "/quit", tui.composer_text)
