"""``proctor agents``: which adapters exist, which CLI each found, and installing them."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from proctor.agents.spec import unknown_agent
from proctor.cli.options import NAME, config_option
from proctor.util.json_shown import name_shown

if TYPE_CHECKING:
    from proctor.models.config import AgentProfile


@click.group("agents", invoke_without_command=True)
@config_option
@click.option(
    "--agent",
    "agents",
    type=NAME,
    multiple=True,
    metavar="ID",
    help="Only this agent (repeatable): a built-in id, a profile's, or acp:NAME.",
)
@click.option(
    "--check",
    is_flag=True,
    help="Exit 2, each problem a sentence on stderr, when an agent listed cannot run.",
)
@click.option(
    "--model",
    "backend",
    type=click.Choice(["scripted", "provider"]),
    help="As run's: scripted needs no agent credentials (default: each profile's backend, "
    "else provider).",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print a JSON list: id, agent, builtIn, binary (null when not found), version, "
    "versionProblem (why there is none), pinned, versionWarning, problem, credentials.",
)
@click.pass_context
def command(
    ctx: click.Context,
    config: Path | None,
    agents: tuple[str, ...],
    check: bool,
    backend: str | None,
    as_json: bool,
) -> int:
    """List each agent adapter and each profile of proctor.json, the binary it found, its
    version, and the key or login it would be lent on a real provider (names only, never a
    value).

    --check exits 2 when an agent listed cannot run as `proctor run` would start it: not
    found, at another version than its profile pins, or, on a real provider (not --model
    scripted, nor a profile's "backend": "scripted"), without a key or login to lend it."""
    if ctx.invoked_subcommand is not None:
        return 0
    from proctor.agents.base import known_agent_ids
    from proctor.agents.spec import SPECS
    from proctor.errors import ConfigError
    from proctor.models.loading import load_top_config
    from proctor.paths import current_folder
    from proctor.plan.agent_checks import check_profiles

    top, found = load_top_config(config, current_folder())
    profiles = top.codingagents
    check_profiles(top, str(found or "proctor.json"))
    builtin = sorted(spec.id for spec in SPECS)
    # A profile without an agent of its own, named as a configured ACP agent, holds the
    # settings of `acp:NAME`, the id listed for it.
    known = {i for i in known_agent_ids(profiles) if i in builtin or _runs(profiles.get(i))}
    for agent in agents:
        if agent not in known:
            raise ConfigError(f"--agent {name_shown(agent)}: {unknown_agent(agent, known)}")
    own = [name for name, p in profiles.items() if name not in builtin and _runs(p)]
    ids = list(dict.fromkeys(agents)) if agents else builtin + own
    rows, sentences = [], []
    width = max([12, *map(len, ids)])
    for agent_id in ids:
        row, sentence = _row(agent_id, profiles, backend)
        rows.append(row)
        if sentence:
            sentences.append(sentence)
        if not as_json:
            click.echo(_line(row, width))
    if as_json:
        import json

        click.echo(json.dumps(rows, indent=2))
    if check and len(sentences) > 1:  # one problem is the one sentence of the error below
        for sentence in sentences:
            click.echo(f"proctor: error: {sentence}", err=True)
    if check and sentences:
        raise ConfigError(
            sentences[0]
            if len(sentences) == 1
            else f"{len(sentences)} agents cannot run, each named above"
        )
    return 0


def _runs(profile: AgentProfile | None) -> bool:
    return profile is None or profile.agent is not None


def _row(
    agent_id: str, profiles: Mapping[str, AgentProfile], backend: str | None
) -> tuple[dict[str, Any], str | None]:
    """What ``proctor agents`` lists of one agent id, and the sentence of its problem (the one
    the run's check says) or None."""
    from proctor.agents.base import adapter_for, profile_for
    from proctor.agents.cli_base import binary_problem, find_binary
    from proctor.errors import AgentError
    from proctor.plan.checks import named_as_profile

    profile = profile_for(agent_id, profiles)
    adapter = adapter_for(agent_id, profiles)
    spec = adapter.spec
    program = getattr(adapter, "program", None)  # an ACP agent runs its profile's command
    builtin = spec.binary is None
    binary = None
    if spec.binary is not None:
        binary = program(profile) if program else find_binary(spec.binary, profile)
    said = adapter.preflight(profile)
    if said:  # a profile of its own is named as such, not as the adapter it runs on
        said = named_as_profile(said, adapter.name, agent_id)
    problem = None
    if said:
        if binary is None and not builtin and not (program and profile.command):
            if profile.binary:  # only the profile's binary is looked at: installing won't help
                why = binary_problem(profile.binary) or "names no program"
                problem = f"codingagents.{agent_id}.binary {profile.binary!r} {why}"
            else:
                problem = "run `proctor agents install`"
        else:
            problem = _unnamed(said, agent_id)
    try:  # run's and validate's warning: a CLI at another version than proctor pins
        version_warning = adapter.version_warning(profile)
    except AgentError:
        version_warning = None  # a setting the run refuses, said as the problem
    credentials = _credentials(agent_id, adapter.name, profile, backend)
    if not said and credentials and credentials["problem"]:
        said = credentials["problem"]
        problem = _unnamed(said, agent_id)
    row = {
        "id": agent_id,
        "agent": adapter.name,
        "builtIn": builtin,
        "binary": str(binary) if binary else None,
        "version": adapter.version(profile),
        "versionProblem": adapter.version_problem(profile),
        # The profile's own pin (the one the run checks), else proctor's: none for an ACP
        # agent's own command, which starts no program proctor pins.
        "pinned": profile.version or adapter.pinned_version(profile),
        "versionWarning": version_warning,
        "problem": problem,
        "credentials": credentials,
    }
    return row, said


def _credentials(
    agent_id: str, adapter: str, profile: AgentProfile, backend: str | None
) -> dict[str, Any] | None:
    """The key variables (names) and login files the agent would be lent on a real provider,
    whether its trials need them (not on the scripted model) and, when they do, the sentence
    of the run's check when it cannot authenticate; None for an agent lent nothing."""
    import os

    from proctor.agents.credentials import lent_names
    from proctor.plan.checks import authentication_problem, named_as_profile

    backend = backend or profile.backend or "provider"
    if adapter == "acp":  # lent nothing by design: the keys its profile passes it
        from proctor.agents.acp.adapter import AcpAgent, passed_keys

        warning = AcpAgent().credentials_warning(profile, os.environ)
        return {
            "needed": backend != "scripted",
            "keys": passed_keys(profile, os.environ),
            "logins": [],
            "problem": None,
            "warning": warning if backend != "scripted" else None,
        }
    lent = lent_names(adapter, profile, os.environ)
    if lent is None:
        return None
    keys, files = lent
    said = authentication_problem(adapter, profile, backend)
    return {
        "needed": backend != "scripted",
        "keys": keys,
        "logins": [str(f) for f in files],
        "problem": named_as_profile(said, adapter, agent_id) if said else None,
        "warning": None,
    }


def _line(row: dict[str, Any], width: int) -> str:
    ident = row["id"]
    if row["builtIn"]:
        text = f"{ident:{width}} built in   version {row['version']}"
        return text + (f"  ({row['problem']})" if row["problem"] else "")
    note = "" if row["pinned"] in (None, row["version"]) else f"  (pinned {row['pinned']})"
    if row["versionWarning"]:  # it says the pin, and what to do, as run and validate do
        note = f"  (warning: {row['versionWarning']})"
    credentials = row["credentials"]
    lent, said = _lent(credentials, ident)
    problem = None if row["problem"] == said else row["problem"]  # said after the credentials
    if row["binary"] is None:
        where = f"not found: {problem}"
    else:
        where = row["binary"] + (f"  ({problem})" if problem else "")
    version = row["version"] or "-"
    said = f"{problem or ''} {row['versionWarning'] or ''}"
    if row["versionProblem"] and row["versionProblem"] not in said:
        version += f" ({row['versionProblem']})"  # unless the problem or warning says it
    return f"{ident:{width}} {where}  version {version}{note}{lent}"


def _lent(credentials: dict[str, Any] | None, ident: str) -> tuple[str, str | None]:
    """What the line says of the credentials: the key variables set (``***``, never a value)
    and the login files found, or that the scripted model needs none; and the problem it
    says of them (as the row's ``problem`` says it) or None."""
    if credentials is None:
        return "", None
    if not credentials["needed"]:
        return "  credentials: not needed (scripted model)", None
    lent = [f"{name}=***" for name in credentials["keys"]]
    lent += [f"login {path}" for path in credentials["logins"]]
    text = f"  credentials: {', '.join(lent) or 'none'}"
    said = credentials["problem"]
    if credentials["warning"]:
        text += f"  (warning: {credentials['warning']})"
    if not said:
        return text, None
    said = _unnamed(said, ident)
    return f"{text}  ({said})", said


def _unnamed(said: str, ident: str) -> str:
    """The run's sentence of an agent without the agent it names first (its row names it)."""
    return said.removeprefix(f"agent '{ident}': ").removeprefix(f"agent '{ident}' ")


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
