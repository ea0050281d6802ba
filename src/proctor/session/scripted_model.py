"""The warnings for ``--agent-model scripted=MODEL`` and an effort (``--agent-effort
ID=EFFORT``, or an ``agentEffort`` a file sets) of the scripted agent, Gemini CLI or an ACP
agent, none of which is given an effort, which ``proctor run`` (``--manifest`` too) and
``proctor eval`` give alike once they know that a trial they run is on such an agent; and
``proctor eval``'s for a ``--model`` that reaches no case."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from proctor.plan.efforts import EFFORT_NOT_GIVEN, effort_warnings
from proctor.session.start import warn
from proctor.util.json_shown import json_text

if TYPE_CHECKING:
    from proctor.models.config import CliOverrides
    from proctor.models.plan import TrialSpec

__all__ = [
    "EFFORT_NOT_GIVEN",
    "model_reaches_none",
    "warn_flags_not_taken",
    "warn_scripted_model",
]


def warn_scripted_model(model: str, agent: str = "scripted") -> None:
    """``--agent-model scripted=MODEL`` (or ``ID=MODEL`` for ``agent``, a ``codingagents``
    profile of the scripted agent): the scripted agent plays its case's plan whatever the
    model and only writes its name into the transcript (as ``proctor eval --model`` warns).
    Said only when a trial the run runs is on that agent: for a run with none, the pair
    changes nothing worth a word."""
    of = "" if agent == "scripted" else f" ({agent} is a profile of the scripted agent)"
    warn(
        f"--agent-model {json_text(agent + '=' + model)}{of}: the scripted agent plays its case's "
        "plan whatever the model (it only writes the model's name into its transcript); "
        "--agent-model names an agent that runs the model, and --model scripted runs a real "
        "CLI on proctor's scripted model"
    )


def warn_flags_not_taken(overrides: CliOverrides, trials: Sequence[TrialSpec]) -> None:
    """``--agent-model scripted=…`` (or ``ID=…`` for a ``codingagents`` profile of the
    scripted agent) is warned of when one of ``trials`` runs on that agent: for a run with
    none, the pair changes nothing worth a word. So is an effort a trial runs with for an
    agent given no effort, the scripted agent, Gemini CLI, an ACP agent, wherever it was set
    (``--agent-effort``, a condition's, a case's or a profile's ``agentEffort``): each
    warning once, however many trials (or, for ``--manifest``, pairs) share it."""
    on_scripted = {t.agent for t in trials if (t.profile.agent or t.agent) == "scripted"}
    for agent, model in overrides.agent_models.items():
        if agent in on_scripted:
            warn_scripted_model(model, agent)
    for said in effort_warnings(trials):
        warn(said)


def model_reaches_none(model: str, agents: Sequence[str], agent_models: Mapping[str, str]) -> str:
    """``proctor eval``'s warning for a ``--model`` no selected case is given: ``--agent-model``
    gives each case's agent its model, and comes first."""
    pairs = ", ".join(f"{a}={agent_models[a]}" for a in agents)
    return (
        f"--model {json_text(model)} applies to no selected case: every case runs on an agent "
        f"--agent-model gives its model ({pairs}), which comes before --model"
    )
