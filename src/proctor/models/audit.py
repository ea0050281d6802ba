"""The audit of an agent's installed components: what each agent would load from a home and a
project folder (skills, hooks, plugins, MCP servers, slash commands, subagents, permission rules,
instruction files), each with the file that defines it. Written by ``proctor audit --json`` and
into every ``trial.json``.
"""

from __future__ import annotations

from typing import Literal

from proctor.models.base import CamelModel, RecordModel

AUDITED_AGENTS = frozenset({"claude-code", "codex", "gemini-cli"})
"""The agents whose installed components :mod:`proctor.addons.audit` reads."""

ComponentKind = Literal[
    "skill",
    "hook",
    "plugin",
    "mcp",
    "command",
    "subagent",
    "permission",
    "instructions",
    "settings",
]
"""``settings`` is only ever a decoy: a settings file of another agent in this agent's folder."""


class AuditComponent(CamelModel):
    """One component an agent's files declare.

    ``decoy`` is ``None`` for a component the agent would load, and otherwise says in a few words
    why it would not (an empty skill folder, a disabled plugin, an MCP entry with no command, a
    settings file of another agent, a permission rule with no hook behind it).
    """

    kind: ComponentKind
    name: str
    """Skill name, plugin id, MCP server name, slash command or subagent (``plugin:name`` for a
    plugin's), hook ``Event`` (plus ``:matcher``), the permission rule as written, or the
    instruction file's name."""
    file: str
    """The file that defines it (for a skill, its ``SKILL.md`` or folder)."""
    scope: Literal["user", "project", "plugin"] = "user"
    above: str | None = None
    """Project components read from a folder above the project (a ``CLAUDE.md``, a
    ``.mcp.json`` or a skills folder there): that folder, relative to the project (``../``,
    ``../../``); shown as the scope ``[project: ../]``."""
    event: str | None = None
    """Hooks: the event (``PreToolUse``, ``BeforeTool``, …)."""
    matcher: str | None = None
    command: str | None = None
    """Hooks: the command run (a prompt hook's prompt, an http hook's url, an mcp_tool hook's
    "MCP tool 't' of server 's'"); MCP stdio servers: the command line."""
    url: str | None = None
    """MCP servers over HTTP or SSE."""
    transport: str | None = None
    """MCP servers: ``stdio``, ``http`` or ``sse``."""
    enabled: bool | None = None
    """Plugins and extensions: whether the agent's settings enable it."""
    decision: str | None = None
    """Permission rules: ``allow``, ``deny`` or ``ask``."""
    decoy: str | None = None
    linked_to: str | None = None
    """Skills: where the skill's folder (or the skills folder holding it) leads, when it is a
    link out of the home and project (an installer that links its checkout in): the agent
    follows the link and loads the skill; the audit reads nothing there."""


class AgentAudit(CamelModel):
    agent: str
    """The agent id: ``claude-code``, ``codex`` or ``gemini-cli``."""
    components: list[AuditComponent] = []
    problems: list[str] = []
    """Files the agent would read that could not be read (malformed JSON or TOML, a path that
    leads outside the home and project), one sentence each naming the file."""
    notes: list[str] = []
    """What the agent warns of but loads anyway (Codex: a folder's hooks in both
    ``hooks.json`` and ``config.toml``), one sentence each naming the files."""

    def loaded(self) -> list[AuditComponent]:
        return [c for c in self.components if c.decoy is None]

    def decoys(self) -> list[AuditComponent]:
        return [c for c in self.components if c.decoy is not None]


class AuditReport(RecordModel):
    home: str
    project: str | None = None
    agents: list[AgentAudit] = []

    def for_agent(self, agent: str) -> AgentAudit | None:
        return next((a for a in self.agents if a.agent == agent), None)
