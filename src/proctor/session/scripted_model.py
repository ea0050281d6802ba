"""The warning for ``--agent-model scripted=MODEL``, which ``proctor run`` and ``proctor eval``
give alike once they know that a trial they run is on the scripted agent."""

from __future__ import annotations

from proctor.session.run import warn
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
