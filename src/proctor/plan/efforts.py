"""A trial's reasoning effort, where it was set (``--agent-effort``, a condition's, a case's or a
``codingagents`` profile's ``agentEffort``), and what is said of it wherever it comes from: a
level Claude Code does not take is refused (exit 2), one given an agent that takes no effort
(the scripted agent, Gemini CLI, an ACP agent) is warned of, and the run goes on."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from proctor.agents.spec import ACP_PREFIX, GEMINI_CLI, spec_for
from proctor.models.config import AgentProfile, Condition
from proctor.models.plan import ResolvedCase, TrialSpec
from proctor.util.json_shown import json_text, name_shown

FLAG = "--agent-effort"
"""Where an effort given on the command line was set (``TrialSpec.agent_effort_from``)."""

EFFORT_NOT_GIVEN: dict[str, str] = {
    "gemini-cli": (
        "Gemini CLI takes no reasoning effort on its command line (its pinned "
        f"{GEMINI_CLI.version} has no such flag: a thinking budget is set in its own "
        "settings.json, modelConfigs)"
    ),
    "acp": (
        "proctor gives an ACP agent no reasoning effort (it starts the agent's command as it is)"
    ),
}
"""The agents (by adapter: a profile's ``agent``, ``acp`` for every ACP agent) that an effort
reaches nothing of besides the scripted agent, each with why: ``proctor run``, ``validate`` and
``proctor eval`` warn of an effort given one, and the run goes on."""


def profile_key(agent: str, profiles: Mapping[str, AgentProfile]) -> str | None:
    """The ``codingagents`` key whose profile ``agent`` runs with (``NAME`` for ``acp:NAME``
    when that profile is an ACP one, as :func:`~proctor.agents.base.profile_for` reads it: a
    profile ``NAME`` of another transport is not ``acp:NAME``'s), or None when it has none
    there."""
    if agent in profiles:
        return agent
    name = agent[len(ACP_PREFIX) :] if agent.startswith(ACP_PREFIX) else None
    if name is None or name not in profiles or profiles[name].transport != "acp":
        return None
    return name


def agent_effort(
    agent: str, profiles: Mapping[str, AgentProfile], flags: Mapping[str, str], top_where: str
) -> tuple[str | None, str | None]:
    """The effort ``agent`` runs with, by ``--agent-effort`` over its profile's ``agentEffort``,
    and where it was set (:data:`FLAG`, ``proctor.json: field
    'codingagents.ID.agentEffort'``); (None, None) when neither sets one."""
    if agent in flags:
        return flags[agent], FLAG
    key = profile_key(agent, profiles)
    if key is not None and profiles[key].agent_effort:
        return profiles[key].agent_effort, f"{top_where}: field 'codingagents.{key}.agentEffort'"
    return None, None


def trial_effort(
    rc: ResolvedCase,
    agent: str,
    condition: str,
    variant: Condition,
    profiles: Mapping[str, AgentProfile],
    flags: Mapping[str, str],
    top_where: str,
) -> tuple[str | None, str | None]:
    """A trial's effort and where it was set: its condition's ``agentEffort`` (in the case's
    ``config.json`` or, for a condition of the top-level configuration, ``top_where``), else
    ``--agent-effort``, else the case's ``agentEffort``, else its profile's."""
    if variant.agent_effort:
        own = condition in (rc.case.config.conditions or {})
        where = rc.case.config_where if own else top_where
        return variant.agent_effort, f"{where}: field 'conditions.{condition}.agentEffort'"
    if agent in flags:
        return flags[agent], FLAG
    if rc.agent_effort:
        return rc.agent_effort, f"{rc.case.config_where}: field 'agentEffort'"
    return agent_effort(agent, profiles, {}, top_where)


def _what(agent: str, kind: str) -> str:
    """What ``agent`` is when it is not its adapter ``kind`` itself (``a profile of
    gemini-cli``, ``an ACP agent``); empty when it is."""
    if agent == kind:
        return ""
    return "an ACP agent" if kind == "acp" else f"a profile of {kind}"


def effort_problem(effort: str, agent: str, kind: str, where: str) -> str | None:
    """Why ``effort`` (set at ``where``) is refused for ``agent`` (run by the adapter
    ``kind``): a level its CLI does not take, when it takes a fixed list (Claude Code's
    ``--effort``), would fail every trial on it once it starts. None when it is taken."""
    spec = spec_for(kind)
    if spec is None or spec.efforts is None or effort in spec.efforts:
        return None
    levels = f"{', '.join(spec.efforts[:-1])} or {spec.efforts[-1]}"
    of = f" (a profile of {spec.id})" if spec.id != agent else ""
    if where == FLAG:
        return f"{FLAG} {name_shown(agent + '=' + effort)}: {agent}{of} takes the effort {levels}"
    return f"{where}: {agent}{of} takes the effort {levels}, not {json_text(effort)}"


def effort_warning(effort: str, agent: str, kind: str, where: str) -> str | None:
    """The warning for ``effort`` (set at ``where``) given ``agent``, whose adapter ``kind``
    (``scripted`` or one of :data:`EFFORT_NOT_GIVEN`) passes no effort on: it is only recorded
    (``agentEffort`` in trial.json) and the run goes on. None for an agent that takes one."""
    if kind != "scripted" and kind not in EFFORT_NOT_GIVEN:
        return None
    field = FLAG if where == FLAG else "agentEffort"
    what = _what(agent, kind)
    if where == FLAG:
        head = f"{FLAG} {json_text(agent + '=' + effort)}" + (
            f" ({agent} is {what})" if what else ""
        )
    else:
        head = f"{where} ({json_text(effort)}, for {agent}" + (f", {what})" if what else ")")
    if kind == "scripted":
        example = "claude-code=high" if where == FLAG else "claude-code"
        return (
            f"{head}: the scripted agent plays its case's plan whatever the effort (it is only "
            f"recorded in trial.json); {field} gives an effort to an agent that reasons, such "
            f"as {example}"
        )
    return (
        f"{head}: {EFFORT_NOT_GIVEN[kind]}, so the run goes on without it (it is only recorded "
        f"in trial.json); {field} gives an effort to claude-code or codex"
    )


def effort_warnings(trials: Iterable[TrialSpec]) -> list[str]:
    """The warnings of the efforts the trials run with (:func:`effort_warning`), wherever each
    was set, once each, in the order of the trials."""
    said: dict[str, None] = {}
    for spec in trials:
        if spec.agent_effort and spec.agent_effort_from:
            kind = spec.profile.agent or spec.agent
            warning = effort_warning(spec.agent_effort, spec.agent, kind, spec.agent_effort_from)
            if warning is not None:
                said[warning] = None
    return list(said)
