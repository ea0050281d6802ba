"""Where a followed trial of a run in progress stands: not started (its run's plan holds it,
no folder yet), running, done; unknown to the run when its plan does not hold it."""

from __future__ import annotations

from pathlib import Path

import pytest

from proctor.models.io import write_record
from proctor.models.run import MatrixCell, ResolvedRecord
from proctor.view.index import ResultsIndex
from proctor.view.synthetic import trial_record, write_run, write_trajectory_lines
from proctor.view.trial_state import planned_keys, trial_state

RUN = "run-20261201T000000Z-planned"


def test_a_planned_trial_is_pending_then_running_then_done(tmp_path: Path) -> None:
    paths = write_run(tmp_path, RUN, trials=1, cases=1, finished=False)
    cells = [
        MatrixCell(case="case-000", agent="scripted", condition="default", repeat=r) for r in (1, 2)
    ]
    write_record(paths.resolved_json, ResolvedRecord(matrix=cells))
    index = ResultsIndex(tmp_path)
    key = "case-000/scripted/default/2"
    assert trial_state(index, RUN, key) == "pending"
    assert trial_state(index, RUN, "case-000/scripted/default/3") is None  # not in the plan
    assert trial_state(index, "run-20261201T000000Z-nope", key) is None
    trial = paths.trial("case-000", "scripted", "default", 2)
    write_trajectory_lines(trial.trajectory, 2)
    assert trial_state(index, RUN, key) == "running"
    write_record(trial.trial_json, trial_record("case-000", "scripted", "default", 2))
    assert trial_state(index, RUN, key) == "done"


def test_a_planned_trial_with_no_folder_of_a_run_that_is_over_is_stopped(tmp_path: Path) -> None:
    """No longer followed: the run is over, and stopped before the trial started (its page
    says so, or, of a run that finished, how the trial counts)."""
    paths = write_run(tmp_path, RUN, trials=1, cases=1)
    cells = [MatrixCell(case="case-000", agent="scripted", condition="default", repeat=2)]
    write_record(paths.resolved_json, ResolvedRecord(matrix=cells))
    assert trial_state(ResultsIndex(tmp_path), RUN, "case-000/scripted/default/2") == "stopped"


def test_the_plan_is_read_again_only_when_resolved_json_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A page that follows a trial asks where it stands every two seconds: the run's plan
    was read from ``resolved.json`` each time, though nothing changed."""
    import proctor.view.trial_state as module

    paths = write_run(tmp_path, RUN, trials=1, cases=1, finished=False)
    cell = MatrixCell(case="case-000", agent="scripted", condition="default", repeat=2)
    write_record(paths.resolved_json, ResolvedRecord(matrix=[cell]))
    reads: list[Path] = []
    real = module.planned_cells
    monkeypatch.setattr(
        module, "planned_cells", lambda run_dir: reads.append(run_dir) or real(run_dir)
    )
    for _ in range(3):
        assert planned_keys(paths.root) == {"case-000/scripted/default/2"}
    assert len(reads) == 1
    more = [cell, cell.model_copy(update={"repeat": 3})]
    write_record(paths.resolved_json, ResolvedRecord(matrix=more))
    assert planned_keys(paths.root) == {
        "case-000/scripted/default/2",
        "case-000/scripted/default/3",
    }
    assert len(reads) == 2
