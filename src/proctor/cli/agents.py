"""``proctor agents``: which adapters exist, which CLI each found, and installing them."""

from __future__ import annotations

from pathlib import Path

import click

from proctor.cli.options import config_option


@click.group("agents", invoke_without_command=True)
@config_option
@click.pass_context
def command(ctx: click.Context, config: Path | None) -> int:
    """List each agent adapter, the binary it found and its version."""
    if ctx.invoked_subcommand is not None:
        return 0
    from proctor.agents.base import registry
    from proctor.agents.cli_base import cli_version, find_binary
    from proctor.agents.install import PACKAGES, PINNED
    from proctor.models.config import AgentProfile
    from proctor.plan.resolve import load_top_config

    top, _, _ = load_top_config(config, Path.cwd())
    for name, cls in sorted(registry().items()):
        adapter = cls()
        profile = top.codingagents.get(name, AgentProfile())
        if name not in PACKAGES:
            click.echo(f"{name:12} built in   version {adapter.version(profile)}")
            continue
        package, binary_name = PACKAGES[name]
        binary = find_binary(binary_name, profile)
        version = cli_version(str(binary)) if binary else None
        pin = PINNED[package]
        note = "" if version == pin else f"  (pinned {pin})"
        where = str(binary) if binary else "not found: run `proctor agents install`"
        click.echo(f"{name:12} {where}  version {version or '-'}{note}")
    return 0


@command.command("install")
@click.option(
    "--dir",
    "folder",
    type=click.Path(path_type=Path, file_okay=False),
    default=Path(".agents"),
    show_default=True,
    help="Where to install.",
)
def install(folder: Path) -> int:
    """Install the pinned agent CLIs from the npm registry (reusing what is there)."""
    from proctor.agents.install import install_agents

    installed = install_agents(folder)
    if installed:
        click.echo(f"installed {', '.join(installed)} into {folder}")
    else:
        click.echo(f"pinned agent CLIs already present in {folder}")
    return 0
