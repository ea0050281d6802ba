"""Synthetic runs are written as a run writes its folder: their journals too."""

from __future__ import annotations

import os
from pathlib import Path

from proctor.models.journal import read
from proctor.session.journal import live_orchestrator, live_workers
from proctor.view.records import orchestrator
from proctor.view.synthetic import end_run, end_trial, start_trial, write_run


def _events(path: Path) -> list[str]:
    return [e.event for e in read(path)]


def test_a_finished_synthetic_run_s_journal_ends_as_a_run_s_does(tmp_path: Path) -> None:
    """It held one line, a `run-started` naming the test's process, and no `run-finished`:
    its orchestrator still ran it, by its journal; only its run.json said it was over."""
    paths = write_run(tmp_path, "run-20261201T000000Z-done", trials=2, cases=1)
    trial = ["trial-started", "trial-finished"]
    assert _events(paths.journal) == [
        "run-started", "trials-started", *trial, *trial, "run-finished",
    ]  # fmt: skip
    assert orchestrator(paths.journal) is None and live_orchestrator(paths.journal) is None
    finished = [e for e in read(paths.journal) if e.event == "trial-finished"]
    assert [(e.case, e.repeat, e.status) for e in finished] == [
        ("case-000", 1, "passed"),
        ("case-000", 2, "passed"),
    ]


def test_an_unfinished_synthetic_run_is_run_by_this_process(tmp_path: Path) -> None:
    paths = write_run(tmp_path, "run-20261201T000000Z-live", trials=1, cases=1, finished=False)
    assert _events(paths.journal)[-1] == "trial-finished"
    assert live_orchestrator(paths.journal) == os.getpid()
    start_trial(paths, "case-000", 2)
    assert _events(paths.journal)[-1] == "trial-started"
    assert not paths.trial("case-000", "scripted", "default", 2).trial_json.exists()
    end_trial(paths, "case-000", 2)
    assert paths.trial("case-000", "scripted", "default", 2).trial_json.exists()
    assert _events(paths.journal)[-1] == "trial-finished" and live_workers(paths.journal) == {}
    end_run(paths)
    assert live_orchestrator(paths.journal) is None
