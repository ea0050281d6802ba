"""Any agent that speaks the Agent Client Protocol, driven over stdio by
:class:`proctor.drive.acp_driver.AcpDriver`.

A profile ``{"transport": "acp", "command": ["prog", "arg", …]}`` names the agent; the program
is looked up in ``.agents/node_modules/.bin`` before PATH (``binary`` replaces it). Without a
command the agent is the configured ``claude`` one (``ACP_PRESETS``): the pinned Claude Code ACP
adapter. ``acp:gemini`` is Gemini CLI's own ACP mode (``gemini --acp``).

On the scripted model every provider's base URL (Anthropic, Gemini, OpenAI) points at proctor's
server with a dummy key, so any agent built on one of them plays the case's plan. The case's MCP
servers are handed to the agent in ``session/new``; skills, hooks and plugins have no ACP form
and are refused. ``permissionMode`` is the ACP session mode to switch to (``acceptEdits``,
``bypassPermissions``, ``yolo``…); unset, the agent's default mode asks, and the case's
answering policy answers.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from proctor.agents.base import AgentAdapter, register
from proctor.agents.cli_base import (
    INSTALL_HINT,
    agents_dirs,
    binary_problem,
    find_binary,
    running_as_root,
    write_json,
)
from proctor.agents.credentials import KINDS
from proctor.agents.protocol import Launch, LaunchContext
from proctor.agents.provisioning import register_mcp_secrets
from proctor.agents.spec import ACP, ACP_PRESETS, ACP_PROGRAM_PINS
from proctor.errors import AgentError
from proctor.models.config import AgentProfile, McpEntry, Provision
from proctor.models.trajectory import Trajectory
from proctor.transcripts.acp import parse_acp_log

LOG_NAME = "acp.jsonl"
SCRIPTED_KEY = "proctor-scripted"
QUIET_ENV = {
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_TELEMETRY": "1",
    "DISABLE_ERROR_REPORTING": "1",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "GEMINI_CLI_TRUST_WORKSPACE": "true",
    "NO_BROWSER": "true",
}
"""Nothing phones home and no workspace-trust prompt blocks a session, whichever agent runs."""
GEMINI_SETTINGS = {
    "privacy": {"usageStatisticsEnabled": False},
    "telemetry": {"enabled": False},
    "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
}
"""Gemini CLI reads these from the scratch home (``~/.gemini/settings.json``), not the env."""


@dataclass
class AcpSession:
    """An ACP agent's launch state, filled in by the driver as the session opens."""

    log: Path
    """Every JSON-RPC message exchanged, one per line (the raw transcript)."""
    mcp_servers: list[dict[str, Any]] = field(default_factory=list)
    """The case's MCP servers in ACP's ``session/new`` shape."""
    mode: str | None = None
    """The session mode to switch to once the session is open (``permissionMode``)."""
    session_id: str | None = None
    agent_version: str | None = None


def command_of(profile: AgentProfile) -> list[str]:
    return list(profile.command or ACP_PRESETS["claude"])


def package_version(program: Path) -> str | None:
    """The version of the npm package a ``.bin`` program belongs to, read from its
    ``package.json`` (an ACP agent is never started just to ask its version)."""
    try:
        target = program.resolve()
    except OSError:
        return None
    for folder in target.parents:
        manifest = folder / "package.json"
        if manifest.is_file():
            try:
                version = json.loads(manifest.read_text(encoding="utf-8")).get("version")
            except (OSError, ValueError):
                return None
            return str(version) if version else None
        if folder.name == "node_modules":
            break
    return None


ACP_PROGRAM_AGENTS = {"claude-code-acp": "claude-code", "gemini": "gemini-cli"}
"""The agent whose key variables each pinned ACP program reads (its provider's)."""


def passed_keys(profile: AgentProfile, env: Mapping[str, str]) -> list[str]:
    """The key variables the profile passes its ACP agent (names only): those of the agent its
    program is (``GEMINI_API_KEY`` for ``gemini``), set in ``env`` and forwarded, or in its
    ``env``; for another program, every variable forwarded and set, and every one of ``env``."""
    given = [n for n in profile.forward_env if env.get(n)] + list(profile.env)
    kind = KINDS.get(ACP_PROGRAM_AGENTS.get(command_of(profile)[0], ""))
    if kind is None:
        return list(dict.fromkeys(given))
    return [n for n in kind.keys if n in given]


def acp_mcp_server(entry: McpEntry) -> dict[str, Any]:
    """One ``provision.mcps`` entry as ACP's ``McpServer``: stdio or http (its secrets
    registered for masking, see :func:`~proctor.agents.provisioning.register_mcp_secrets`)."""
    register_mcp_secrets(entry)
    url = entry.field("url")
    if isinstance(url, str):
        headers = entry.field("headers") or {}
        return {
            "type": "http",
            "name": entry.name,
            "url": url,
            "headers": [{"name": k, "value": v} for k, v in headers.items()],
        }
    env = entry.field("env") or {}
    return {
        "name": entry.name,
        "command": entry.field("command"),
        "args": list(entry.field("args") or []),
        "env": [{"name": k, "value": v} for k, v in env.items()],
    }


def refuse_unsupported(provision: Provision | None) -> None:
    if provision is None:
        return
    kinds = [k for k in ("skills", "hooks", "plugins") if getattr(provision, k)]
    if kinds:
        raise AgentError(
            f"agent 'acp': {', '.join(kinds)} cannot be provisioned over ACP (only MCP servers "
            "can); run this case on the agent's own adapter"
        )


def _pin_fix(profile: AgentProfile, program: str) -> str:
    """What to do about a program at another version than its profile pins, as the CLIs'
    adapters say it: the pinned package's install, or pointing the profile's binary at it."""
    pin = ACP_PROGRAM_PINS.get(program)
    package = pin[0] if pin else None
    wanted = f"{package}@{profile.version}" if package else f"version {profile.version}"
    if profile.binary:  # installing changes nothing: the profile names its program
        also = " (or leave it out and run `proctor agents install`)"
        pinned = pin is not None and pin[1] == profile.version
        also = also if pinned else ""
        return f"point the profile's binary at {wanted}'s `{program}`{also}, or change the pin"
    if pin is not None and pin[1] == profile.version:
        return INSTALL_HINT
    if package is None:
        return f"install {wanted} of `{program}` or change the pin"
    return f"install {wanted} or change the pin"


@register
class AcpAgent(AgentAdapter[AcpSession]):
    spec = ACP
    scratch_writes = ("home/.claude", "home/.gemini", ".gemini")
    default_mode = "headless"
    provision_kinds = frozenset({"mcps"})

    def program(self, profile: AgentProfile) -> Path | None:
        return find_binary(command_of(profile)[0], profile)

    def version(self, profile: AgentProfile) -> str | None:
        program = self.program(profile)
        return package_version(program) if program is not None else None

    def pinned_version(self, profile: AgentProfile) -> str | None:
        pin = ACP_PROGRAM_PINS.get(command_of(profile)[0])
        return pin[1] if pin else None

    def version_warning(self, profile: AgentProfile) -> str | None:
        pin = ACP_PROGRAM_PINS.get(command_of(profile)[0])
        program = self.program(profile)
        if profile.version is not None or pin is None or program is None:
            return None  # a pinned profile is checked by preflight
        package, pinned = pin
        found = package_version(program)
        if found == pinned:
            return None
        if profile.binary:  # installing changes nothing: the profile names its program
            fix = (
                f"point the profile's binary at {package}@{pinned}'s `{command_of(profile)[0]}` "
                "(or leave it out and run `proctor agents install`)"
            )
        else:
            fix = f"`proctor agents install` puts {pinned} in ./.agents"
        return (
            f"{program} is version {found or 'unknown'}, not {pinned}, the version of {package} "
            f"proctor pins and is tested with (its ACP messages may differ); {fix}, or set "
            f'"version": "{found or "…"}" in the profile to run this one without this warning'
        )

    def preflight(self, profile: AgentProfile) -> str | None:
        command = command_of(profile)
        program = self.program(profile)
        if program is None and not profile.binary and "/" in command[0]:  # that file only
            return (
                f"agent 'acp': the program {command[0]!r} of the command {command} "
                f"{binary_problem(command[0])}; fix the profile's 'command'"
            )
        if program is None:
            looked = ", ".join(str(d) for d in agents_dirs())
            return (
                f"agent 'acp': the program '{command[0]}' of the command {command} was not found "
                f"(looked at {looked} and PATH); {INSTALL_HINT} or fix the profile's 'command'"
            )
        found = package_version(program)
        if profile.version is not None and found != profile.version:
            return (
                f"agent 'acp': {program} is version {found or 'unknown'}, but its profile pins "
                f"{profile.version}; {_pin_fix(profile, command[0])}"
            )
        return None

    def credentials_warning(self, profile: AgentProfile, env: Mapping[str, str]) -> str | None:
        if passed_keys(profile, env):
            return None
        command = command_of(profile)
        kind = KINDS.get(ACP_PROGRAM_AGENTS.get(command[0], ""))
        said = (
            "proctor lends an ACP agent none of your credentials (no key, no login): on a real "
            "provider it authenticates only with a key its profile passes, and this one passes "
            "none"
        )
        preset = next((n for n, c in ACP_PRESETS.items() if tuple(command) == c), None)
        where = (
            f' (for acp:{preset}, the profile "{preset}" with "transport": "acp")' if preset else ""
        )
        if kind is None:
            return (
                f"{said}; name its provider's key in the profile's forwardEnv{where} (set in "
                "the environment), or run with --model scripted"
            )
        unset = [n for n in profile.forward_env if n in kind.keys]
        if unset:
            return (
                f"{said}; it forwards {unset[0]}, which is not set in the environment: set it, "
                "or run with --model scripted"
            )
        name = next((n for n in kind.keys if env.get(n)), kind.keys[0])
        add = f'add "forwardEnv": ["{name}"] to its profile{where}'
        if env.get(name):
            return f"{said}. {name} is set in the environment: {add}, or run with --model scripted"
        return f"{said}; set {name} in the environment and {add}, or run with --model scripted"

    def prepare(self, ctx: LaunchContext) -> Launch[AcpSession]:
        refuse_unsupported(ctx.provision)
        program = self.program(ctx.profile)
        if program is None:
            raise AgentError(self.preflight(ctx.profile) or "agent 'acp': no program")
        env = {**ctx.env, **QUIET_ENV, "CLAUDE_CONFIG_DIR": str(ctx.home / ".claude")}
        if ctx.model_base_url:
            url = ctx.model_base_url
            env.update(
                ANTHROPIC_BASE_URL=url,
                ANTHROPIC_API_KEY=SCRIPTED_KEY,
                CLAUDE_CODE_DISABLE_FAST_MODE="1",
                GOOGLE_GEMINI_BASE_URL=url,
                GEMINI_API_KEY=SCRIPTED_KEY,
                OPENAI_BASE_URL=f"{url}/v1",
                OPENAI_API_KEY=SCRIPTED_KEY,
            )
        if ctx.agent_model:
            env.update(ANTHROPIC_MODEL=ctx.agent_model, GEMINI_MODEL=ctx.agent_model)
        if running_as_root():
            env["IS_SANDBOX"] = "1"  # lets Claude Code bypass permissions when asked to, as root
        # Gemini CLI reads the first .env from the workspace up: an empty one above it stops
        # the search before any folder of the user's.
        barrier = ctx.scratch / ".gemini" / ".env"
        barrier.parent.mkdir(parents=True, exist_ok=True)
        barrier.touch()
        write_json(ctx.home / ".gemini" / "settings.json", GEMINI_SETTINGS)
        folder = ctx.trial_dir or ctx.scratch
        folder.mkdir(parents=True, exist_ok=True)
        mcps = ctx.provision.mcps if ctx.provision is not None else []
        state = AcpSession(
            log=folder / LOG_NAME,
            mcp_servers=[acp_mcp_server(e) for e in mcps],
            mode=ctx.profile.permission_mode,
        )
        argv = [str(program), *command_of(ctx.profile)[1:], *ctx.profile.args]
        return Launch(
            argv=argv,
            env=env,
            cwd=Path(os.path.realpath(ctx.workspace)),
            state=state,
            transcript=state.log,
            mode=ctx.mode,
        )

    def parse(self, path: Path) -> Trajectory:
        return parse_acp_log(path)
