"""``proctor audit``: the skills, hooks, plugins, MCP servers, permission rules and instruction
files each agent would load from a home and a project, with the file that defines each, and the
decoys that look like components but would not load. It reports; it does not gate (exit 0).

Without ``--home`` it reads your own setup as the agents find it: ``CLAUDE_CONFIG_DIR``,
``CODEX_HOME`` and ``GEMINI_CLI_HOME`` move their configuration as they move the agents'. With
``--home`` the given folder is read with the default layout and the variables are ignored."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import click

from proctor.cli.options import NAME

MOVED_BY = {
    "CLAUDE_CONFIG_DIR": "claude-code",
    "CODEX_HOME": "codex",
    "GEMINI_CLI_HOME": "gemini-cli",
}
"""The variable that moves an agent's user configuration → that agent."""


def moved_folders(env: Mapping[str, str]) -> dict[str, Path]:
    """The folders the environment names for the agents' user configuration (unset or empty
    variables left out)."""
    return {variable: Path(env[variable]).absolute() for variable in MOVED_BY if env.get(variable)}


@click.command("audit")
@click.option(
    "--home",
    type=click.Path(path_type=Path),
    help="The home folder to read (default: your own home, with CLAUDE_CONFIG_DIR, CODEX_HOME "
    "and GEMINI_CLI_HOME honoured as the agents honour them).",
)
@click.option(
    "--project",
    type=click.Path(path_type=Path),
    help="The project folder to read (default: the current folder).",
)
@click.option(
    "--agent",
    "agents",
    type=NAME,
    multiple=True,
    help="Only this agent: claude-code, codex or gemini-cli (repeatable; default: all three).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the AuditReport as JSON.")
def command(home: Path | None, project: Path | None, agents: tuple[str, ...], as_json: bool) -> int:
    """List, per agent, what it would load from HOME and PROJECT, each with its file."""
    from proctor.addons.audit import AGENT_IDS, audit, shown
    from proctor.addons.audit.render import render_text
    from proctor.agents.credentials import register_user_keys
    from proctor.agents.spec import covered_agent
    from proctor.errors import ConfigError
    from proctor.models.io import dump_json
    from proctor.util.cutting import masked_data
    from proctor.util.masking import mask

    # Every key of the environment and ./.env is masked in what this prints (a hook that
    # sends one in a header, an MCP server given one as an argument).
    register_user_keys()

    moved = moved_folders(os.environ) if home is None else {}
    home = home if home is not None else Path.home()
    project = project if project is not None else Path.cwd()
    for flag, folder in (("--home", home), ("--project", project)):
        if not folder.is_dir():
            raise ConfigError(f"{flag} {folder}: expected an existing folder")
    chosen: list[str] = []
    for name in agents:
        chosen.append(covered_agent(name, AGENT_IDS, "proctor audit"))
    chosen = list(dict.fromkeys(chosen)) or list(AGENT_IDS)
    for variable, folder in moved.items():
        if MOVED_BY[variable] in chosen and not folder.is_dir():
            raise ConfigError(
                f"the environment variable {variable} names {folder}: expected an existing "
                f"folder (it tells {MOVED_BY[variable]} where its configuration is)"
            )
    report = audit(
        home.absolute(),
        project.absolute(),
        chosen,
        claude_config_dir=moved.get("CLAUDE_CONFIG_DIR"),
        codex_home=moved.get("CODEX_HOME"),
        gemini_cli_home=moved.get("GEMINI_CLI_HOME"),
    )
    report = shown(report)  # a credential in a command line or URL is printed masked
    if as_json:
        click.echo(dump_json(masked_data(report.to_dict())), nl=False)
    else:
        click.echo(mask(render_text(report)), nl=False)
    return 0
