"""``proctor audit``: the skills, hooks, plugins, MCP servers, permission rules and instruction
files each agent would load from a home and a project, with the file that defines each, and the
decoys that look like components but would not load. It reports; it does not gate (exit 0)."""

from __future__ import annotations

from pathlib import Path

import click


@click.command("audit")
@click.option(
    "--home",
    type=click.Path(path_type=Path),
    help="The home folder to read (default: your own home).",
)
@click.option(
    "--project",
    type=click.Path(path_type=Path),
    help="The project folder to read (default: the current folder).",
)
@click.option(
    "--agent",
    "agents",
    multiple=True,
    help="Only this agent: claude-code, codex or gemini-cli (repeatable; default: all three).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the AuditReport as JSON.")
def command(home: Path | None, project: Path | None, agents: tuple[str, ...], as_json: bool) -> int:
    """List, per agent, what it would load from HOME and PROJECT, each with its file."""
    import json

    from proctor.addons.audit import AGENT_IDS, audit
    from proctor.addons.audit.render import render_text
    from proctor.agents.spec import spec_for
    from proctor.errors import ConfigError

    home = home if home is not None else Path.home()
    project = project if project is not None else Path.cwd()
    for flag, folder in (("--home", home), ("--project", project)):
        if not folder.is_dir():
            raise ConfigError(f"{flag} {folder}: expected an existing folder")
    chosen: list[str] = []
    for name in agents:
        spec = spec_for(name)
        if spec is None or spec.id not in AGENT_IDS:
            raise ConfigError(
                f"--agent {name}: unknown agent; expected one of {', '.join(AGENT_IDS)}"
            )
        chosen.append(spec.id)
    report = audit(home.absolute(), project.absolute(), list(dict.fromkeys(chosen)) or None)
    if as_json:
        click.echo(json.dumps(report.to_dict(), indent=2))
    else:
        click.echo(render_text(report), nl=False)
    return 0
