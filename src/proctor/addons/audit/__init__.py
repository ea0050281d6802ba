"""The audit of installed components: per agent, the skills, hooks, plugins, MCP servers,
permission rules and instruction files it would load from a home and a project, each with the
file that defines it, and the decoys (files that look like a component but would not load) with
the reason.

Pure reading: nothing is written, a malformed file becomes a problem sentence, and nothing
outside ``home``, ``project`` (and the paths a session's command line names, and for a
project outside the home the folders above it that the agent reads) is read.

>>> from proctor.addons.audit import audit
>>> report = audit(Path.home(), Path.cwd(), ["claude-code"])  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from proctor.addons.audit.claude_code import audit_claude_code
from proctor.addons.audit.codex import audit_codex
from proctor.addons.audit.gemini_cli import audit_gemini_cli
from proctor.addons.audit.reading import Reader
from proctor.models.audit import AgentAudit, AuditComponent, AuditReport

AUDITORS: dict[str, Callable[[Reader], None]] = {
    "claude-code": audit_claude_code,
    "codex": audit_codex,
    "gemini-cli": audit_gemini_cli,
}
"""Agent id → the function that fills a :class:`Reader` with what that agent would load."""
AGENT_IDS = tuple(AUDITORS)

__all__ = ["AGENT_IDS", "AUDITORS", "audit", "audit_agent", "shown"]


def audit(
    home: Path | str,
    project: Path | str | None = None,
    agents: Sequence[str] | None = None,
    *,
    launch_args: Sequence[str] = (),
    claude_config_dir: Path | str | None = None,
    codex_home: Path | str | None = None,
    gemini_cli_home: Path | str | None = None,
) -> AuditReport:
    """What each of ``agents`` (default: all three CLIs) would load from ``home`` and
    ``project``. ``launch_args`` is a session's command line, whose ``--plugin-dir`` and
    ``--mcp-config`` paths Claude Code also loads; ``claude_config_dir``, ``codex_home`` and
    ``gemini_cli_home`` are the values of ``CLAUDE_CONFIG_DIR``, ``CODEX_HOME`` and
    ``GEMINI_CLI_HOME``, when set. Raises KeyError for an unknown agent id."""
    chosen = list(agents) if agents is not None else list(AGENT_IDS)
    unknown = [a for a in chosen if a not in AUDITORS]
    if unknown:
        raise KeyError(unknown[0])
    home = Path(home)  # a path given as text is read as the path it names
    project = Path(project) if project is not None else None
    moved = {
        "claude_config_dir": Path(claude_config_dir) if claude_config_dir is not None else None,
        "codex_home": Path(codex_home) if codex_home is not None else None,
        "gemini_cli_home": Path(gemini_cli_home) if gemini_cli_home is not None else None,
    }
    return AuditReport(
        home=str(home),
        project=str(project) if project is not None else None,
        agents=[audit_agent(a, home, project, launch_args, **moved) for a in chosen],
    )


def audit_agent(
    agent: str,
    home: Path,
    project: Path | None,
    launch_args: Sequence[str] = (),
    claude_config_dir: Path | None = None,
    codex_home: Path | None = None,
    gemini_cli_home: Path | None = None,
) -> AgentAudit:
    """One agent's audit (``agent`` must be a key of :data:`AUDITORS`)."""
    reader = Reader(
        home,
        project,
        launch_args,
        claude_config_dir=claude_config_dir,
        codex_home=codex_home,
        gemini_cli_home=gemini_cli_home,
    )
    AUDITORS[agent](reader)
    # The same file reached twice (the project is the home) is said once, as it is listed once.
    problems = list(dict.fromkeys(reader.problems))
    notes = list(dict.fromkeys(reader.notes))
    return AgentAudit(
        agent=agent, components=unique(reader.components), problems=problems, notes=notes
    )


def unique(components: list[AuditComponent]) -> list[AuditComponent]:
    """The components without exact repeats (the same file reached twice)."""
    seen: set[tuple[str, str, str, str | None]] = set()
    out = []
    for c in components:
        key = (c.kind, c.name, c.file, c.command)
        if key not in seen:
            seen.add(key)
            out.append(c)
    return out


def shown(report: AuditReport) -> AuditReport:
    """The audit as it is printed and recorded: a credential in a command line or URL (a
    URL's password, ``--token …``, an ``api_key`` parameter, an ``Authorization`` or
    ``x-api-key`` header's value, a ``Bearer`` token, a registered key) masked (see
    :func:`~proctor.addons.shown.command_masked`). Checks compare the audit as read."""
    from proctor.addons.shown import command_masked

    shown_report = report.model_copy(deep=True)
    for agent in shown_report.agents:
        for component in agent.components:
            if component.command is not None:
                component.command = command_masked(component.command)
            if component.url is not None:
                component.url = command_masked(component.url)
    return shown_report
