"""The warnings for ``--agent-model scripted=MODEL`` and ``--agent-effort scripted=EFFORT``,
which ``proctor run`` and ``proctor eval`` give alike once they know that a trial they run is on
the scripted agent; and ``proctor eval``'s for a ``--model`` that reaches no case."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from proctor.session.start import warn
from proctor.util.json_shown import json_text


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


def warn_scripted_effort(effort: str, agent: str = "scripted") -> None:
    """``--agent-effort scripted=EFFORT`` (or ``ID=EFFORT`` for a profile of the scripted
    agent), said as :func:`warn_scripted_model` is: the scripted agent reasons about nothing,
    so any effort is taken and only recorded (``agentEffort`` in trial.json)."""
    of = "" if agent == "scripted" else f" ({agent} is a profile of the scripted agent)"
    warn(
        f"--agent-effort {json_text(agent + '=' + effort)}{of}: the scripted agent plays its "
        "case's plan whatever the effort (it is only recorded in trial.json); --agent-effort "
        "gives an effort to an agent that reasons, such as claude-code=high"
    )


def model_reaches_none(model: str, agents: Sequence[str], agent_models: Mapping[str, str]) -> str:
    """``proctor eval``'s warning for a ``--model`` no selected case is given: ``--agent-model``
    gives each case's agent its model, and comes first."""
    pairs = ", ".join(f"{a}={agent_models[a]}" for a in agents)
    return (
        f"--model {json_text(model)} applies to no selected case: every case runs on an agent "
        f"--agent-model gives its model ({pairs}), which comes before --model"
    )
