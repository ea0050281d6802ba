"""A stored run read before its run.json is written (the journal's first line comes just before
it) is read as still running, by its journal, not as a run that stopped."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import proctor
from proctor import load_run, recompute_run
from proctor.models.run import JournalEntry
from proctor.util.processes import process_start
from tests.conftest import Run

EXAMPLE_RUN = Path(__file__).resolve().parents[2] / "fixtures" / "results-v1" / "example-suite"
OTHER_RUN = EXAMPLE_RUN.parent / "ab-gate"


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


def test_a_run_still_running_is_not_interrupted(proctor: Run, tmp_path: Path) -> None:
    """Its aggregate of the trials so far says `interrupted` false (nothing was interrupted);
    read with a run that stopped, true (that one was), and with one that finished, false."""
    run = tmp_path / "run"
    shutil.copytree(EXAMPLE_RUN, run)
    manifest = json.loads((run / "run.json").read_text())
    (run / "run.json").write_text(json.dumps({**manifest, "finishedAt": None}))
    (run / "suite.json").unlink()
    _started_by(run, os.getpid(), process_start(os.getpid()))
    live = recompute_run(run)
    assert live.exit_code == 75 and live.interrupted is False
    finished = tmp_path / "finished"
    shutil.copytree(OTHER_RUN, finished)
    stopped = tmp_path / "stopped"
    shutil.copytree(OTHER_RUN, stopped)
    other = json.loads((stopped / "run.json").read_text())
    (stopped / "run.json").write_text(json.dumps({**other, "finishedAt": None}))
    _started_by(stopped, 1, 1)  # its process is gone: it stopped
    assert recompute_run(stopped).interrupted is True
    for other_run, interrupted in ((stopped, True), (finished, False)):
        pooled = proctor("report", str(other_run), str(run), "--json")
        assert pooled.code == 75, pooled.err
        assert pooled.json()["interrupted"] is interrupted


def _finished_line(run: Path) -> None:
    entry = JournalEntry(event="run-finished", time="2026-12-01T00:00:09Z", pid=1, pid_start=1)
    with (run / "journal.jsonl").open("a") as fh:
        fh.write(entry.model_dump_json(by_alias=True) + "\n")


def test_a_run_without_its_run_json_that_stopped_is_read_as_stopped_everywhere(
    proctor: Run, tmp_path: Path
) -> None:
    """Its journal says it started, never wrote its end, and the process that ran it is gone:
    `load_run` says stopped, and `recompute_run` and `proctor report` read it so too (exit
    130, interrupted), saying that without its run.json no resume finishes it."""
    run = tmp_path / "run"
    shutil.copytree(EXAMPLE_RUN, run)
    (run / "run.json").unlink()
    (run / "suite.json").unlink()
    _started_by(run, 1, 1)
    stored = load_run(run)
    assert stored.state == "stopped" and stored.stopped_short
    note = f"{run} stopped before it finished: it has no readable run.json, so `proctor run "
    assert stored.notes[-1].startswith(note), stored.notes
    suite = recompute_run(run)
    assert (suite.exit_code, suite.interrupted) == (130, True), suite.exit_reason
    assert suite.exit_reason.startswith("interrupted after 17 trials finished;")
    report = proctor("report", str(run))
    assert report.code == 130, report.err
    assert f"proctor: note: {note}" in report.err
    # The controls: its journal writes its end (its suite.json lost), or it has no journal
    # (a folder of trials): a finished run, read as one.
    _finished_line(run)
    assert load_run(run).state == "finished"
    assert recompute_run(run).exit_code == 1
    (run / "journal.jsonl").unlink()
    bare = load_run(run)
    assert (bare.state, bare.notes) == ("finished", [])
    assert proctor("report", str(run)).code == 1
