"""One spec per agent adapter: its id, aliases, npm package and pinned version, binary and
transcript format. Every table of agent ids (the registry, ``proctor agents install``,
``proctor parse --agent``) is derived from :data:`SPECS`.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from proctor.errors import ConfigError
from proctor.util.json_shown import name_quoted, name_shown


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
    efforts: tuple[str, ...] | None = None
    """The reasoning efforts its pinned CLI takes (``--agent-effort ID=EFFORT``), when they are
    a fixed list; None when any is passed on (Codex's model decides which it takes) or the
    agent is given none (the scripted agent, Gemini CLI, ACP agents: it is only recorded,
    and warned of)."""


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
    efforts=("low", "medium", "high", "xhigh", "max"),  # `claude --help`: --effort <level>
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
ACP_PREFIX = "acp:"
"""How an agent id names a configured ACP agent: ``acp:NAME``."""
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
        raise ConfigError(f"--agent {name_shown(agent)}: {unknown_agent(agent, agent_names())}")
    return spec.transcript_format


def nearest_agents(name: str, known: Iterable[str]) -> list[str]:
    """The one or two agent ids of ``known`` a person most likely meant by ``name``, best
    first: a CLI's alias or the start of an id counts as its id (``claude``, ``gemini``,
    ``cod``), ``acp:NAME`` is spelt ``NAME`` too, and a tie goes to the CLIs (``claude`` is
    ``claude-code``, then ``acp:claude``); else the nearest by spelling (``clude``, ``codx``).
    A second id is given only when it is about as close as the first."""
    typed = name.strip().lower()
    scores: dict[str, float] = {}
    for agent in known:
        spellings = {agent.lower()}
        spec = spec_for(agent)
        if spec is not None and spec.id == agent:
            spellings.update(spec.aliases)
        if agent.startswith(ACP_PREFIX):
            spellings.add(agent[len(ACP_PREFIX) :].lower())
        score = max(_likeness(typed, spelt) for spelt in spellings)
        if score >= 0.6:
            scores[agent] = score
    cli = {s.id for s in npm_specs()}
    ranked = sorted(scores, key=lambda a: (-scores[a], a not in cli, a))
    if ranked and ranked[0].lower() == typed:  # the id itself, but for its capitals
        return ranked[:1]
    return [a for a in ranked[:2] if scores[a] >= scores[ranked[0]] - 0.1]


def _likeness(typed: str, spelt: str) -> float:
    """How alike a typed agent name is to one spelling of an id: 1 for the same, nearly so
    when it starts the spelling (three letters at least), else difflib's ratio."""
    if typed == spelt:
        return 1.0
    if len(typed) >= 3 and spelt.startswith(typed):
        return 0.95
    return difflib.SequenceMatcher(None, typed, spelt, autojunk=False).ratio()


def unknown_agent(name: str, known: Iterable[str]) -> str:
    """The sentence for an agent id that is not among ``known``: ``unknown agent 'clude'
    (did you mean 'claude-code' or 'acp:claude'? known: acp, acp:claude, …)``."""
    names = sorted(known)
    near = [f"'{a}'" for a in nearest_agents(name, names)]
    hint = f"did you mean {' or '.join(near)}? " if near else ""
    return f"unknown agent {name_quoted(name)} ({hint}known: {', '.join(names)})"


def covered_agent(
    name: str,
    covered: Sequence[str],
    command: str,
    *,
    where: str | None = None,
    advice: str = "check",
) -> str:
    """The id of the agent ``name`` names (an id or an alias such as ``claude``) when
    ``command`` covers it; a ConfigError otherwise, naming the nearest for an unknown name and
    the agents ``command`` covers for a known one it does not (``proctor audit --agent
    scripted``). The error starts with ``where`` (``--agent NAME`` unless given: a file's
    field), and tells of an ACP agent built on a covered one to ``advice`` that one."""
    where = f"--agent {name}" if where is None else where
    spec = spec_for(name)
    if spec is not None and spec.id in covered:
        return spec.id
    if spec is not None:
        raise ConfigError(f"{where}: {command} covers {', '.join(covered)}, not {spec.id}")
    preset = name[len(ACP_PREFIX) :] if name.startswith(ACP_PREFIX) else None
    behind = spec_for(preset) if preset in ACP_PRESETS else None
    if behind is not None and behind.id in covered:  # acp:gemini runs Gemini CLI's own ACP mode
        raise ConfigError(
            f"{where}: {command} covers {', '.join(covered)}, not {name}, the ACP agent "
            f"built on {behind.id}: {advice} {behind.id}"
        )
    raise ConfigError(f"{where}: {unknown_agent(name, covered)}")
