"""Counterbalanced repeats of an A/B suite, planned ahead: ``proctor plan-repeats`` writes a
manifest and ``proctor run --manifest`` executes it.

The manifest lists the tasks (from a goal-label file, optionally only one goal shape), the
conditions, and one run per pair: pair 1 runs the conditions in the order given, pair 2 in the
reverse order, and so on, so that order is never confounded with condition. Each run writes an
ordinary run folder under ``<out>/<results>`` labelled with its session label; ``proctor report``
over all of them reads them as one sample set.
"""

from __future__ import annotations

from pathlib import Path
from typing import get_args

from proctor.errors import ConfigError
from proctor.models.config import SAFE_NAME, CaseConfig
from proctor.models.io import read_record
from proctor.models.run import ManifestRun, RepeatManifest


def plan_repeats(
    goal_labels: dict[str, str], goal_shape: str | None, pairs: int, conditions: list[str]
) -> RepeatManifest:
    known = get_args(get_args(CaseConfig.model_fields["goal_shape"].annotation)[0])
    if goal_shape is not None and goal_shape not in known:
        raise ConfigError(f"--goal-shape {goal_shape}: expected one of {', '.join(known)}")
    for task, shape in goal_labels.items():
        if shape not in known:
            raise ConfigError(
                f"--goal-labels: task '{task}' has goal shape {shape!r}; expected one of "
                f"{', '.join(known)}"
            )
    for condition in conditions:
        if not SAFE_NAME.fullmatch(condition):
            raise ConfigError(
                f"--conditions: {condition!r} cannot name a condition (letters, digits, '.', '_' "
                "or '-', starting with a letter or digit)"
            )
    tasks = sorted(
        t for t, shape in goal_labels.items() if goal_shape is None or shape == goal_shape
    )
    if not tasks and goal_shape is None:
        raise ConfigError("--goal-labels: the file names no task")
    if not tasks:
        shapes = ", ".join(sorted(set(goal_labels.values())))
        raise ConfigError(
            f"--goal-shape {goal_shape}: no task has that goal shape (shapes: {shapes})"
        )
    if len(set(conditions)) != len(conditions) or len(conditions) < 2:
        raise ConfigError("--conditions: give two or more different conditions, comma-separated")
    runs = [
        ManifestRun(
            pair=pair,
            order=conditions if pair % 2 else list(reversed(conditions)),
            results=f"pair-{pair}",
            session=f"{goal_shape or 'all'}-pair-{pair}",
        )
        for pair in range(1, pairs + 1)
    ]
    return RepeatManifest(
        goal_shape=goal_shape, conditions=conditions, tasks=tasks, pairs=pairs, runs=runs
    )


def read_manifest(path: Path) -> RepeatManifest:
    return read_record(path, RepeatManifest)
