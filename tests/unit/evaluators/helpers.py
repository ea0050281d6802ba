from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from proctor.evaluators.base import EvaluationContext, get_evaluator, parse_evaluator_specs
from proctor.models.trajectory import Event, Trajectory
from proctor.models.trial import EvaluatorResult
from proctor.paths import TrialPaths


def context(
    tmp_path: Path, events: list[Event] | None = None, agent: str = "scripted"
) -> EvaluationContext:
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    trial = TrialPaths(tmp_path / "trial")
    trial.root.mkdir(exist_ok=True)
    trial.trajectory.write_text("")
    case = tmp_path / "case"
    case.mkdir(exist_ok=True)
    return EvaluationContext(
        workspace=ws,
        trial=trial,
        case_dir=case,
        agent=agent,
        trajectory=Trajectory(format="test", events=events or []),
        raw_transcript=None,
        env=dict(os.environ),
    )


def evaluate(entry: dict[str, Any], ctx: EvaluationContext) -> EvaluatorResult:
    spec = parse_evaluator_specs([entry], "config.json")[0]
    return get_evaluator(spec.use).evaluate(spec, ctx)
