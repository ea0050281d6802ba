"""``proctor agents``: which adapters exist, which CLI each found, and installing them."""

from __future__ import annotations

from pathlib import Path

import click

from proctor.cli.options import config_option


@click.group("agents", invoke_without_command=True)
@config_option
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print a JSON list: id, binary (null when not found), version, pinned, problem.",
)
@click.pass_context
def command(ctx: click.Context, config: Path | None, as_json: bool) -> int:
    """List each agent adapter, the binary it found and its version."""
    if ctx.invoked_subcommand is not None:
        return 0
    from proctor.agents.base import adapter_for
    from proctor.agents.cli_base import binary_problem, find_binary
    from proctor.agents.spec import SPECS
    from proctor.models.config import AgentProfile
    from proctor.models.loading import load_top_config

    top, _ = load_top_config(config, Path.cwd())
    rows = []
    for spec in sorted(SPECS, key=lambda s: s.id):
        profile = top.codingagents.get(spec.id, AgentProfile())
        adapter = adapter_for(spec.id, top.codingagents)
        version = adapter.version(profile)
        program = getattr(adapter, "program", None)  # an ACP agent runs its profile's command
        if spec.binary is None:
            binary = None
        else:
            binary = program(profile) if program else find_binary(spec.binary, profile)
        problem = None
        if spec.binary is not None and binary is None:
            if program and profile.command:
                said = adapter.preflight(profile) or "no program"
                problem = said.removeprefix(f"agent '{spec.id}': ")
            elif profile.binary:  # only the profile's binary is looked at: installing won't help
                why = binary_problem(profile.binary) or "names no program"
                problem = f"codingagents.{spec.id}.binary {profile.binary!r} {why}"
            else:
                problem = "run `proctor agents install`"
        row = {
            "id": spec.id,
            "builtIn": spec.binary is None,
            "binary": str(binary) if binary else None,
            "version": version,
            "pinned": spec.version,
            "problem": problem,
        }
        rows.append(row)
        if as_json:
            continue
        if spec.binary is None:
            click.echo(f"{spec.id:12} built in   version {version}")
            continue
        note = "" if version == spec.version else f"  (pinned {spec.version})"
        where = str(binary) if binary else f"not found: {problem}"
        click.echo(f"{spec.id:12} {where}  version {version or '-'}{note}")
    if as_json:
        import json

        click.echo(json.dumps(rows, indent=2))
    return 0


@command.command("install")
@click.option(
    "--dir",
    "folder",
    type=click.Path(path_type=Path, file_okay=False),
    default=Path(".agents"),
    show_default=True,
    help="Where to install (proctor looks in ./.agents and $PROCTOR_AGENTS_DIR).",
)
def install(folder: Path) -> int:
    """Install the pinned agent CLIs from the npm registry (reusing what is there)."""
    from proctor.agents.cli_base import agents_dirs
    from proctor.agents.install import install_agents, missing_pins

    missing = missing_pins(folder)
    if missing:  # npm says nothing until it is done, minutes later on a slow network
        click.echo(f"proctor: installing {', '.join(missing)} into {folder} (npm)", err=True)
    installed = install_agents(folder)
    if installed:
        click.echo(f"installed {', '.join(installed)} into {folder}")
    else:
        click.echo(f"pinned agent CLIs already present in {folder}")
    if folder.resolve() not in {d.resolve() for d in agents_dirs()}:
        where = folder.resolve()
        also = f" (or run proctor from {where.parent})" if where.name == ".agents" else ""
        click.echo(
            f"proctor: note: proctor does not look in {folder}: set "
            f"PROCTOR_AGENTS_DIR={where}{also} for it to find them",
            err=True,
        )
    return 0
