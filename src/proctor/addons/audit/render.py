"""The audit as text for people: per agent, grouped by kind, one line per component with the
file that defines it; decoys marked with the reason, notes and problems last. What the files
gave (a name, a command, a path) is shown with its control characters escaped, a line break
too: a terminal's escape sequence in a project's ``.mcp.json`` is shown, never obeyed, and
never starts a line of its own."""

from __future__ import annotations

from proctor.models.audit import AgentAudit, AuditComponent, AuditReport
from proctor.util.text import escaped_line, plural

KIND_TITLES = {
    "skill": "skills",
    "hook": "hooks",
    "plugin": "plugins",
    "mcp": "MCP servers",
    "command": "slash commands",
    "subagent": "subagents",
    "permission": "permission rules",
    "instructions": "instruction files",
    "settings": "other agents' settings files",
}


def describe(c: AuditComponent) -> str:
    """The component's one-line summary, without its file."""
    if c.kind == "hook":
        return f"{c.name}  → {c.command}" if c.command else c.name
    if c.kind == "mcp":
        target = c.command or c.url
        transport = f" ({c.transport})" if c.transport else ""
        return f"{c.name}{transport} {target}" if target else c.name
    if c.kind == "permission":
        return f"{c.decision}: {c.name}"
    if c.kind == "plugin" and c.enabled is not None:
        return f"{c.name} ({'enabled' if c.enabled else 'not enabled'})"
    return c.name


def render_agent(agent: AgentAudit) -> list[str]:
    loaded, decoys = len(agent.loaded()), len(agent.decoys())
    lines = [f"{agent.agent}: {loaded} loaded, {plural(decoys, 'decoy')}"]
    for kind, title in KIND_TITLES.items():
        rows = [c for c in agent.components if c.kind == kind]
        if not rows:
            continue
        lines.append(f"  {title}:")
        for c in rows:
            scope = "" if c.scope == "user" else f" [{c.scope}{': ' + c.above if c.above else ''}]"
            linked = f" -> {c.linked_to}" if c.linked_to else ""
            lines.append(f"    {describe(c)}{scope}  ({c.file}{linked})")
            if c.decoy:
                lines.append(f"      DECOY: {c.decoy}")
    for note in agent.notes:
        lines.append(f"  note: {note}")
    for problem in agent.problems:
        lines.append(f"  problem: {problem}")
    if not agent.components and not agent.problems:
        lines.append("  (nothing installed)")
    return lines


def render_text(report: AuditReport) -> str:
    head = f"audit of home {report.home}" + (
        f" and project {report.project}" if report.project else ""
    )
    lines = [head]
    for agent in report.agents:
        lines += ["", *render_agent(agent)]
    return "\n".join(escaped(line) for line in lines) + "\n"


def escaped(line: str) -> str:
    """One line of the report with its control characters shown as escapes (``\\x1b``,
    ``\\n``)."""
    return escaped_line(line)
