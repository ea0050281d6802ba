"""Checkpoints derived from a stored run's trials."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from proctor.addons.grounding import checkpoints_from_run, has_waste, trial_signals
from proctor.errors import ConfigError
from proctor.models.trial import TrialRecord


def record(**process: Any) -> dict[str, Any]:
    return {
        "schemaVersion": TrialRecord.current_schema_version,
        "case": "fix",
        "agent": "scripted",
        "repeat": 1,
        "status": "passed",
        "toolCalls": 11,
        "usage": {"m1": {"inputTokens": 40000, "outputTokens": 2000}, "m2": {"inputTokens": 210}},
        "timings": {"agentMs": 1_380_000},
        "cost": {"totalUsd": 1.23456},
        "process": process or None,
    }


WASTEFUL = {
    "steps": {"toolCalls": 11, "reads": 6},
    "context": {"filesRead": ["a.py", "b.py"]},
    "checks": [
        {"step": 1, "command": "pytest", "outcome": "fail"},
        {"step": 2, "command": "pytest", "outcome": "fail"},
        {"step": 3, "command": "ruff", "outcome": "fail"},
        {"step": 4, "command": "pytest", "outcome": "fail"},
        {"step": 5, "command": "pytest", "outcome": "pass"},
    ],
    "loops": 1,
}


def test_a_trial_gives_the_figures_it_recorded() -> None:
    signals = trial_signals(TrialRecord.model_validate(record(**WASTEFUL)))
    assert signals == {
        "tokensSoFar": 42210,
        "inputTokens": 40210,
        "outputTokens": 2000,
        "toolCalls": 11,
        "minutesElapsed": 23.0,
        "costUsd": 1.2346,
        "reads": 6,
        "redundantReads": 4,
        "repeatedFailures": 2,
        "loops": 1,
        "rework": 0,
    }


def test_distinct_reads_and_distinct_failures_are_not_waste() -> None:
    clean = {
        "steps": {"reads": 2},
        "context": {"filesRead": ["a.py", "b.py"]},
        "checks": [
            {"step": 1, "command": "pytest", "outcome": "fail"},
            {"step": 2, "command": "ruff", "outcome": "fail"},
        ],
    }
    signals = trial_signals(TrialRecord.model_validate(record(**clean)))
    assert (signals["redundantReads"], signals["repeatedFailures"]) == (0, 0)


def write_run(root: Path, trials: dict[str, dict[str, Any]]) -> Path:
    for name, data in trials.items():
        folder = root / "trials" / name / "scripted" / "default" / "1"
        folder.mkdir(parents=True)
        (folder / "trial.json").write_text(json.dumps(data))
    return root


def test_a_run_folder_gives_one_checkpoint_per_trial_with_derived_waste(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", {"loopy": record(**WASTEFUL), "quiet": record()})
    file = checkpoints_from_run(run)
    assert [c.id for c in file.checkpoints] == [
        "loopy/scripted/default/1",
        "quiet/scripted/default/1",
    ]
    assert [has_waste(c, file.waste_thresholds) for c in file.checkpoints] == [True, False]


def test_a_folder_without_trials_is_a_configuration_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no trials"):
        checkpoints_from_run(tmp_path)


def test_a_results_directory_is_refused_naming_its_newest_run(tmp_path: Path) -> None:
    for name in ("run-20261201T000000Z-aaaaaa", "run-20261202T000000Z-bbbbbb"):
        run = write_run(tmp_path / name, {"fix": record()})
        (run / "run.json").write_text("{}")
    with pytest.raises(ConfigError) as info:
        checkpoints_from_run(tmp_path)
    assert str(info.value) == (
        f"{tmp_path}: --checkpoints names a results directory, not a run folder; name one of "
        f"its runs (the newest: {tmp_path / 'run-20261202T000000Z-bbbbbb'})"
    )


def test_a_trial_excluded_by_hand_makes_no_checkpoint_and_a_note_says_so(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", {"a": record(), "b": record(), "c": record()})
    marks = [
        {"trial": "a/scripted/default/1", "verdict": "excluded", "note": "x", "at": "t"},
        {"trial": "b/scripted/default/1", "verdict": "failed", "note": "y", "at": "t"},
    ]
    (run / "annotations.json").write_text(json.dumps({"schemaVersion": 1, "annotations": marks}))
    notes: list[str] = []
    file = checkpoints_from_run(run, notes)
    assert [c.id for c in file.checkpoints] == ["b/scripted/default/1", "c/scripted/default/1"]
    assert notes == [
        "1 trial excluded by hand (`proctor annotate`) made no checkpoint: a/scripted/default/1"
    ]


def test_marks_that_do_not_read_are_refused_not_passed_over(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", {"a": record()})
    (run / "annotations.json").write_text("{not json")
    with pytest.raises(ConfigError) as info:
        checkpoints_from_run(run)
    assert str(info.value).startswith(f"{run / 'annotations.json'}")
    assert str(info.value).endswith(
        "; the trials it excludes would be taken as checkpoints: mend it, or move it away to "
        "take every trial"
    )
