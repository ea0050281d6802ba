"""A stored run read before its run.json is written (the journal's first line comes just before
it) is read as still running, by its journal, not as a run that stopped."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import proctor
from proctor.models.run import JournalEntry
from proctor.util.processes import process_start

EXAMPLE_RUN = Path(__file__).resolve().parents[2] / "fixtures" / "results-v1" / "example-suite"


def _started_by(run: Path, pid: int, pid_start: int | None) -> None:
    entry = JournalEntry(
        event="run-started", time="2026-12-01T00:00:00Z", pid=pid, pid_start=pid_start
    )
    (run / "journal.jsonl").write_text(entry.model_dump_json(by_alias=True) + "\n")


def test_a_run_without_its_run_json_yet_whose_process_runs_it_is_running(
    tmp_path: Path,
) -> None:
    run = tmp_path / "run"
    shutil.copytree(EXAMPLE_RUN, run)
    (run / "run.json").unlink()
    (run / "suite.json").unlink()
    _started_by(run, os.getpid(), process_start(os.getpid()))
    stored = proctor.load_run(run)
    assert stored.state == "running" and stored.running_pid == os.getpid()
    assert stored.notes[-1].startswith(f"{run} is still running (process {os.getpid()})")
    assert proctor.recompute_run(run).exit_code == 75
    # The control: the process it names is another (pid 1, started at another time).
    _started_by(run, 1, 1)
    stopped = proctor.load_run(run)
    assert stopped.state == "stopped" and stopped.running_pid is None
