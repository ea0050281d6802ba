"""OpenAI Codex CLI (``codex``), headless with ``codex exec --json``.

``CODEX_HOME`` lives in the scratch home with a ``config.toml`` that keeps the run off the network
except for its model endpoint (no update check, no plugin sync, no analytics, no daemon). The
rollout is ``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*-<thread id>.jsonl``; the thread id comes
from the ``thread.started`` event on stdout.
"""

from __future__ import annotations

import json
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
from proctor.agents.cli_base import cli_version, find_binary, read_json_lines, require_binary
from proctor.agents.provisioning import materialise_addon, mcp_server_config
from proctor.drive.pty_session import PtySession
from proctor.models.config import AgentProfile
from proctor.models.trajectory import Trajectory

SCRIPTED_MODEL = "gpt-5.5"
KEY_VARIABLE = "CODEX_SCRIPTED_API_KEY"


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
    root: dict[str, Any] = {
        "model": model,
        "approval_policy": "never",
        "sandbox_mode": ctx.profile.permission_mode or "danger-full-access",
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
            tables[f"mcp_servers.{json.dumps(entry.name)}"] = mcp_server_config(entry)
    return tables


@register
class Codex:
    name: ClassVar[str] = "codex"
    transcript_format: ClassVar[str] = "codex"
    default_mode: ClassVar[Literal["headless", "interactive"]] = "headless"
    modes: ClassVar[tuple[str, ...]] = ("headless",)
    binary_name: ClassVar[str] = "codex"

    def version(self, profile: AgentProfile) -> str | None:
        binary = find_binary(self.binary_name, profile)
        return cli_version(str(binary)) if binary else None

    def prepare(self, ctx: LaunchContext) -> Launch:
        binary = require_binary(self.binary_name, self.name, ctx.profile)
        codex_home = ctx.home / ".codex"
        codex_home.mkdir(parents=True, exist_ok=True)
        model = ctx.agent_model or (SCRIPTED_MODEL if ctx.model_base_url else None)
        config = codex_config(ctx, model or "")
        if not model:
            del config[""]["model"]
        (codex_home / "config.toml").write_text(render_toml(config), encoding="utf-8")
        if ctx.provision is not None:
            for entry in ctx.provision.skills:
                materialise_addon(entry, ctx.case_dir, "skills", codex_home / "skills" / entry.name)
        env = {**ctx.env, "CODEX_HOME": str(codex_home)}
        if ctx.model_base_url:
            env[KEY_VARIABLE] = "proctor-scripted"
        argv = [
            str(binary),
            "exec",
            "--skip-git-repo-check",
            "--json",
            *ctx.profile.args,
            ctx.prompt,
        ]
        return Launch(
            argv=argv,
            env=env,
            cwd=ctx.workspace,
            mode="headless",
            extra={"codex_home": codex_home, "model": model},
        )

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

    def parse(self, path: Path) -> Trajectory:
        from proctor.transcripts.detect import parse_any

        return parse_any(path, "codex")

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
