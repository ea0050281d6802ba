"""Codex's ``config.toml`` for a trial, and the permissions a profile asks for.

The config keeps the run off the network except for its model endpoint: no update check, no
plugin sync, no analytics, no daemon, no tooltips. Permissions: headless runs use
``approval_policy = "never"`` and the profile's ``permissionMode`` as the sandbox mode (default
``danger-full-access``). In the TUI, ``permissionMode`` may name an approval policy
(``on-failure``, ``on-request``, ``never``; ``untrusted`` is refused, as Codex 0.171.0 no
longer has it), a sandbox mode, both
(``on-request/workspace-write``), or ``yolo``; see :func:`interactive_permissions`.
"""

from __future__ import annotations

import functools
import json
import os
import re
import subprocess
import tempfile
from typing import Any

import tomli_w

from proctor.agents.protocol import LaunchContext
from proctor.agents.provisioning import mcp_server_config
from proctor.errors import AgentError

SCRIPTED_MODEL = "gpt-5.5"
KEY_VARIABLE = "CODEX_SCRIPTED_API_KEY"
APPROVAL_POLICIES = ("untrusted", "on-failure", "on-request", "never")
RETIRED_POLICIES = ("untrusted",)
"""Approval policies the pinned Codex (0.171.0) refuses in its configuration ("approval_policy =
"untrusted" is no longer supported"): named as such rather than run into an agent error."""
SANDBOX_MODES = ("read-only", "workspace-write", "danger-full-access")
FULL_ACCESS = ("never", "danger-full-access")
MCP_STARTUP_WAIT_MS = 30_000
"""How long a Codex turn waits for the case's MCP servers to start."""


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
    if approval in RETIRED_POLICIES:
        where = f"the {sandbox} sandbox" if sandbox else "the workspace-write sandbox"
        raise AgentError(
            f"agent 'codex': permissionMode {mode!r}: Codex 0.171.0 no longer supports the "
            f"'{approval}' approval policy (its terminal UI refuses to start, and headless it "
            "is dropped); use 'on-request', which asks before a command the model asks to run "
            f"outside {where} (one that stays in the sandbox runs unasked)"
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


def codex_config(ctx: LaunchContext, model: str | None) -> dict[str, Any]:
    """The ``config.toml`` document (nested tables) for one trial."""
    if ctx.mode == "interactive":
        approval, sandbox = interactive_permissions(ctx.profile.permission_mode)
    else:
        # ``codex exec`` never asks; the profile's mode still chooses the sandbox.
        approval, sandbox = "never", interactive_permissions(ctx.profile.permission_mode)[1]
    config: dict[str, Any] = {}
    if model:
        config["model"] = model
    config |= {
        "approval_policy": approval,
        "sandbox_mode": sandbox,
        "check_for_update_on_startup": False,
        # The workspace is the project root: with a `.git` in a folder above it (a temporary
        # folder inside a repository), Codex would read every AGENTS.md from there down.
        "project_root_markers": [],
    }
    if ctx.agent_effort:
        config["model_reasoning_effort"] = ctx.agent_effort
    gateway = ctx.env.get("OPENAI_BASE_URL")
    if gateway and not ctx.model_base_url:
        # Codex (0.171) reads the built-in provider's address from config.toml only, not from
        # OPENAI_BASE_URL: without this a key lent for a gateway went to api.openai.com.
        config["openai_base_url"] = gateway
    if ctx.model_base_url:
        config["model_provider"] = "proctor"
        config["model_providers"] = {
            "proctor": {
                "name": "proctor scripted model",
                "base_url": ctx.model_base_url.rstrip("/") + "/v1",
                "wire_api": "responses",
                "env_key": KEY_VARIABLE,
                "request_max_retries": 0,
                "stream_max_retries": 0,
                "stream_idle_timeout_ms": 30000,
            }
        }
    config["features"] = {"plugins": False, "daemon_auto_start": False, "in_app_updates": False}
    config["analytics"] = {"enabled": False}
    config["tui"] = {"show_tooltips": False}
    if ctx.provision is not None and ctx.provision.mcps:
        config["mcp_servers"] = {
            entry.name: mcp_server_config(entry, "http_headers") for entry in ctx.provision.mcps
        }
        # Codex (0.147 on) gives a server about a second to start before a turn, then leaves
        # its tools out of that turn: a trial of an MCP add-on waits for it (each server still
        # has its own startup timeout, 10 s by default).
        config["mcp_optional_startup_grace_ms"] = MCP_STARTUP_WAIT_MS
    return config


def render_toml(config: dict[str, Any]) -> str:
    return tomli_w.dumps(config)
