"""The agents a configuration and the command line name, checked before any case is planned:
``--agent-model ID=…`` and ``--agent-effort ID=…`` name agents proctor knows, with an effort
the agent's CLI takes; and each ``codingagents`` profile of the top-level configuration, used
by the run or not, names one of proctor's adapters and an ``agentEffort`` its CLI takes."""

from __future__ import annotations

from proctor.agents.base import known_agent_ids, profile_for
from proctor.agents.spec import unknown_agent
from proctor.errors import ConfigError
from proctor.models.config import CliOverrides, TopConfig
from proctor.plan.efforts import FLAG, effort_problem


def check_agent_flags(top: TopConfig, cli: CliOverrides) -> None:
    """``--agent-model ID=…`` and ``--agent-effort ID=…`` name agents proctor knows: a typo
    would otherwise never apply, and the run would go on with the default. An effort is one
    the agent's CLI takes, when it takes a fixed list (Claude Code's ``--effort``); ``proctor
    eval`` checks them as ``proctor run`` does, by ``--dry-run`` too."""
    known = known_agent_ids(top.codingagents)
    for option, given in (
        ("--agent-model", cli.agent_models),
        ("--agent-effort", cli.agent_efforts),
    ):
        for agent in given:
            if agent not in known:
                said = unknown_agent(agent, known)
                raise ConfigError(f"{option} {agent}=…: {said}")
    for agent, effort in cli.agent_efforts.items():
        # A level the agent's CLI does not take would fail every trial on it, once it starts.
        kind = profile_for(agent, top.codingagents).agent or agent
        problem = effort_problem(effort, agent, kind, FLAG)
        if problem is not None:
            raise ConfigError(problem)


def note(exc: ConfigError, problems: list[str] | None) -> None:
    """``exc`` raised, or, given ``problems``, noted there (the caller checks on)."""
    if problems is None:
        raise exc
    problems.append(str(exc))


def check_profiles(top: TopConfig, where: str, problems: list[str] | None = None) -> list[str]:
    """Every profile, whether a trial of the run uses it or not: its ``agent`` names one of
    proctor's adapters (otherwise the profile names no agent, and a case using it would be
    blamed for an unknown agent), and its ``agentEffort`` is a level that agent's CLI takes,
    when it takes a fixed list (Claude Code's ``--effort``), as a used one is refused: a bad
    value in the file is named there, not only once a case comes to run on it. With
    ``problems``, each such profile is noted there, and their names returned."""
    from proctor.agents.spec import ACP_PRESETS, SPECS

    builtin = sorted(spec.id for spec in SPECS)
    unusable: list[str] = []
    for name, profile in top.codingagents.items():
        said = None
        if profile.transport == "acp":
            pass  # (proctor gives an ACP agent no effort: warned of where a trial runs it)
        elif profile.agent is None:
            if name not in builtin and name not in ACP_PRESETS:  # else its own settings
                said = (
                    f"{where}: field 'codingagents.{name}.agent' is required: '{name}' is not "
                    f"one of proctor's agents, so its profile names the one it runs (known: "
                    f"{', '.join(builtin)})"
                )
        elif profile.agent not in builtin:
            said = f"{where}: field 'codingagents.{name}.agent': "
            said += unknown_agent(profile.agent, builtin)
        if said is None and profile.agent_effort and profile.transport != "acp":
            field = f"{where}: field 'codingagents.{name}.agentEffort'"
            said = effort_problem(profile.agent_effort, name, profile.agent or name, field)
        if said is not None:
            note(ConfigError(said), problems)
            unusable.append(name)
    return unusable
