"""The index following a run in progress: every page of it refreshes the index (at most once a
second), so a refresh that finds nothing changed must cost a few ``stat`` calls, not one per
trial; and a trial that ends, or an orchestrator that is gone, must show at the next one."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from proctor.models.io import write_record, write_text_atomic
from proctor.models.run import JournalEntry
from proctor.paths import RunPaths
from proctor.util.processes import process_start
from proctor.view.index import ResultsIndex
from proctor.view.synthetic import trial_record, write_run

RUN = "run-20261201T000000Z-inprogress"


@pytest.fixture
def listings(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Each run folder whose ``trial.json`` files the index looked for."""
    seen: list[Path] = []
    real = RunPaths.trial_jsons

    def spy(self: RunPaths) -> list[Path]:
        seen.append(self.root)
        return real(self)

    monkeypatch.setattr(RunPaths, "trial_jsons", spy)
    return seen


def _finish(paths: RunPaths, case: str, repeat: int) -> None:
    """A trial ending as a run writes it: its record, then its journal line."""
    record = trial_record(case, "scripted", "default", repeat)
    write_record(paths.trial(case, "scripted", "default", repeat).trial_json, record)
    line = JournalEntry(
        event="trial-finished",
        time="2026-12-01T00:00:05Z",
        case=case,
        agent="scripted",
        condition="default",
        repeat=repeat,
        status="passed",
    )
    with paths.journal.open("a", encoding="utf-8") as fh:
        fh.write(line.model_dump_json(by_alias=True, exclude_none=True) + "\n")


def test_a_run_in_progress_that_did_not_change_is_not_read_again(
    tmp_path: Path, listings: list[Path]
) -> None:
    """Each poll of a running run's pages listed and stat-ed every trial.json of it."""
    write_run(tmp_path, RUN, trials=30, cases=3, finished=False)
    index = ResultsIndex(tmp_path)
    assert index.refresh(force=True) == 1
    assert index.run_row(RUN)["in_progress"] == 1  # type: ignore[index]
    listings.clear()
    for _ in range(3):
        assert index.refresh(force=True) == 0
    assert listings == []
    assert index.run_row(RUN)["in_progress"] == 1  # type: ignore[index]


def test_a_trial_that_ends_shows_at_the_next_refresh(tmp_path: Path) -> None:
    paths = write_run(tmp_path, RUN, trials=4, cases=1, finished=False)
    index = ResultsIndex(tmp_path)
    index.refresh(force=True)
    for repeat in (5, 6):
        _finish(paths, "case-000", repeat)
        assert index.refresh(force=True) == 1
        assert index.run_row(RUN)["trials"] == repeat  # type: ignore[index]
    assert index.refresh(force=True) == 0


def test_a_run_whose_orchestrator_dies_is_no_longer_in_progress(tmp_path: Path) -> None:
    """Killed, the orchestrator changes no file of its run: the index still sees it gone."""
    paths = write_run(tmp_path, RUN, trials=2, cases=1, finished=False)
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        start = process_start(child.pid)
        entry = JournalEntry(
            event="run-started", time="2026-12-01T00:00:00Z", pid=child.pid, pid_start=start
        )
        write_text_atomic(paths.journal, entry.model_dump_json(by_alias=True) + "\n")
        index = ResultsIndex(tmp_path)
        index.refresh(force=True)
        assert index.run_row(RUN)["in_progress"] == 1  # type: ignore[index]
        assert index.refresh(force=True) == 0
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
    assert index.refresh(force=True) == 1
    assert index.run_row(RUN)["in_progress"] == 0  # type: ignore[index]
    assert index.refresh(force=True) == 0
