"""One spec per agent adapter: its id, aliases, npm package and pinned version, binary and
transcript format. Every table of agent ids (the registry, ``proctor agents install``,
``proctor parse --agent``) is derived from :data:`SPECS`.
"""

from __future__ import annotations

from dataclasses import dataclass

from proctor.errors import ConfigError


@dataclass(frozen=True)
class AgentSpec:
    id: str
    """The agent id used in configs, on the command line and as a results folder."""
    module: str
    """The module that registers the adapter."""
    transcript_format: str
    """The native transcript format it writes: ``claude-code``, ``codex``, ``gemini-cli`` or
    ``acp`` (the JSON-RPC messages proctor exchanged with an ACP agent)."""
    aliases: tuple[str, ...] = ()
    """Other names ``proctor parse --agent`` accepts."""
    npm_package: str | None = None
    """The npm package of the CLI; None for an agent built into proctor."""
    version: str | None = None
    """The version proctor pins, installs and tests; None for a built-in agent."""
    binary: str | None = None
    """The executable's name (in ``.agents/node_modules/.bin`` or on PATH)."""
    provider: str = "scripted"
    """The provider its requests go to, as ``limits`` in ``proctor.json`` names it."""


SCRIPTED = AgentSpec(
    id="scripted", module="proctor.agents.scripted", transcript_format="claude-code"
)
CLAUDE_CODE = AgentSpec(
    id="claude-code",
    module="proctor.agents.claude_code",
    transcript_format="claude-code",
    aliases=("claude",),
    npm_package="@anthropic-ai/claude-code",
    version="2.1.197",
    binary="claude",
    provider="anthropic",
)
CODEX = AgentSpec(
    id="codex",
    module="proctor.agents.codex",
    transcript_format="codex",
    npm_package="@openai/codex",
    version="0.171.0",
    binary="codex",
    provider="openai",
)
GEMINI_CLI = AgentSpec(
    id="gemini-cli",
    module="proctor.agents.gemini_cli",
    transcript_format="gemini-cli",
    aliases=("gemini",),
    npm_package="@google/gemini-cli",
    version="0.61.0",  # ACP_PROGRAM_PINS's "gemini" too
    binary="gemini",
    provider="google",
)
ACP = AgentSpec(
    id="acp",
    module="proctor.agents.acp",
    transcript_format="acp",
    version="0.16.2",
    binary="claude-code-acp",
    provider="anthropic",
)
"""Any agent that speaks the Agent Client Protocol. It is no CLI of its own (so no
``npm_package``): its version and binary are the default ACP agent's (``acp`` alone is
``acp:claude``), the Claude Code ACP adapter, which :data:`ACP_PINS` installs."""
ACP_PINS: dict[str, str] = {"@zed-industries/claude-code-acp": "0.16.2"}
"""npm packages of ACP agents that ``proctor agents install`` adds to the CLIs' pins."""
ACP_PROGRAM_PINS: dict[str, tuple[str, str]] = {
    "claude-code-acp": (
        "@zed-industries/claude-code-acp",
        ACP_PINS["@zed-industries/claude-code-acp"],
    ),
    "gemini": ("@google/gemini-cli", "0.61.0"),
}
"""The npm package and the version proctor pins (and installs) of the program an ACP command
starts, by the program's name: ``acp:claude``'s adapter and ``acp:gemini``'s Gemini CLI. A
command naming another program, or one by its path, is the user's own: proctor pins none."""
ACP_PRESETS: dict[str, tuple[str, ...]] = {
    "claude": ("claude-code-acp",),
    "gemini": ("gemini", "--acp"),
}
"""``--agent acp:NAME`` without a profile ``NAME``: the command of a configured ACP agent (its
first word is looked up in ``.agents`` before PATH)."""
SPECS: tuple[AgentSpec, ...] = (SCRIPTED, CLAUDE_CODE, CODEX, GEMINI_CLI, ACP)


def npm_specs() -> tuple[AgentSpec, ...]:
    """The agents whose CLI comes from the npm registry."""
    return tuple(s for s in SPECS if s.npm_package is not None)


def spec_for(name: str) -> AgentSpec | None:
    """The spec whose id or alias is ``name``."""
    return next((s for s in SPECS if name == s.id or name in s.aliases), None)


def agent_names() -> list[str]:
    """Every agent id and alias, sorted."""
    return sorted({n for s in SPECS for n in (s.id, *s.aliases)})


def format_for_agent(agent: str) -> str:
    """The transcript format of an agent id or alias (``scripted`` writes Claude Code's)."""
    spec = spec_for(agent)
    if spec is None:
        known = ", ".join(agent_names())
        raise ConfigError(f"--agent {agent}: unknown agent (known: {known})")
    return spec.transcript_format
