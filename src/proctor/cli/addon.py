"""``proctor addon``: suites for add-on authors. ``check-install`` runs an add-on's installer
in empty scratch homes and checks what it wrote, whether it is idempotent, and whether its
uninstall cleans up and keeps the user's own settings."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from proctor.cli.options import NAME, FiniteRange
from proctor.cli.signals import echo_unless_gone

if TYPE_CHECKING:
    from proctor.models.install_check import InstallCheckReport

AGENT_CHOICES = ("claude-code", "codex", "gemini-cli")


@click.group("addon")
def command() -> None:
    """Suites for add-on authors."""


@command.command("check-install")
@click.option(
    "--install",
    "install",
    required=True,
    metavar="CMD",
    help="The add-on's install command, run with /bin/sh -c in the scratch project. "
    "{home}, {project} and {cwd} (where proctor was started) are replaced.",
)
@click.option("--uninstall", metavar="CMD", help="The uninstall command (same placeholders).")
@click.option(
    "--agent",
    "agents",
    type=NAME,
    multiple=True,
    help="Check this agent's places: claude-code, codex or gemini-cli (repeatable; default: "
    "the expect file's, or all three).",
)
@click.option(
    "--expect",
    type=click.Path(path_type=Path, dir_okay=False),
    metavar="FILE",
    help="JSON or TOML: per agent the skills, hooks, MCP servers (mcp), plugins, commands "
    "and subagents the installer must write, and the project paths it may write.",
)
@click.option(
    "--timeout",
    type=FiniteRange(min=1),
    default=120.0,
    show_default=True,
    help="Seconds each command may run.",
)
@click.option(
    "--keep",
    type=click.Path(path_type=Path, file_okay=False),
    metavar="DIR",
    help="Keep the scratch homes under DIR to look at afterwards.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the checks as JSON.")
def check_install(
    install: str,
    uninstall: str | None,
    agents: tuple[str, ...],
    expect: Path | None,
    timeout: float,
    keep: Path | None,
    as_json: bool,
) -> int:
    """Run an installer in an empty scratch home and project, and check it.

    Checks that every expected component is where each agent loads it, that nothing lands in
    the project unless expected, that installing twice changes nothing, that the user's own
    permissions, instructions, settings and MCP servers survive the install and the
    uninstall, that the uninstall removes what the install added, and that the agent folders
    of your real home did not change. Exits 0 when every check passed, 1 when one failed, 2
    for a configuration error.
    """
    from proctor.addons.audit import shown
    from proctor.addons.install_check import InstallOptions, check_install
    from proctor.addons.install_expect import load_expectation
    from proctor.agents.cli_base import agents_dirs
    from proctor.agents.credentials import register_user_keys
    from proctor.errors import ConfigError
    from proctor.models.io import dump_json
    from proctor.util.cutting import masked_data
    from proctor.util.masking import mask
    from proctor.util.text import controls_escaped

    # Every key of the environment and ./.env is masked in what this prints: an installer's
    # output, and a key it wrote into a configuration the audit lists.
    register_user_keys()

    if not install.strip():
        raise ConfigError("--install: the command is empty")
    if uninstall is not None and not uninstall.strip():
        raise ConfigError("--uninstall: the command is empty; leave the option out to skip it")
    from proctor.agents.spec import covered_agent

    chosen: list[str] = []
    for name in agents:  # the same names (and aliases, such as claude) as audit and hooks test
        chosen.append(covered_agent(name, AGENT_CHOICES, "proctor addon"))
    agents = tuple(dict.fromkeys(chosen))
    if expect is not None and not expect.is_file():
        raise ConfigError(f"--expect {expect}: no such file")
    if keep is not None:
        try:
            keep.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ConfigError(
                f"--keep {keep}: cannot make this folder ({exc.strerror or exc}); expected a "
                "folder proctor can write the scratches into"
            ) from exc
    bins = [d / "node_modules" / ".bin" for d in agents_dirs()]
    kept: list[Path] = []
    options = InstallOptions(
        install=install,
        uninstall=uninstall,
        agents=list(agents) or None,
        expect=load_expectation(expect) if expect is not None else None,
        timeout=timeout,
        scratch_parent=keep.resolve() if keep is not None else None,
        extra_path=[b for b in bins if b.is_dir()],
        on_kept=kept.append,
    )
    try:
        report = check_install(options)
    except KeyboardInterrupt:  # stopped partway: what the commands wrote so far is kept
        for folder in kept:
            click.echo(f"proctor: note: the scratches so far are kept in {folder}", err=True)
        raise
    if report.installed is not None:  # a credential in a command line or URL masked
        report = report.model_copy(update={"installed": shown(report.installed)})
    if as_json:
        echo_unless_gone(dump_json(masked_data(report.to_dict())), nl=False)
    else:
        # What the installer configured (a server's name, a hook's command), with its control
        # characters escaped: a terminal's escape sequence in it is shown, never obeyed.
        echo_unless_gone(controls_escaped(mask(render(report))))
    return 0 if report.ok else 1


def render(report: InstallCheckReport) -> str:
    """One line per check, then the notes and a count."""
    lines = []
    for check in report.checks:
        mark = "PASS" if check.passed else "FAIL"
        agent = f" [{check.agent}]" if check.agent else ""
        lines.append(f"{mark}  {check.name}{agent}: {check.message}")
    lines += [f"note  {note}" for note in report.notes]
    failed = len(report.failed())
    total = len(report.checks)
    lines.append(f"{total} checks, {failed} failed" if failed else f"{total} checks, all passed")
    return "\n".join(lines)
