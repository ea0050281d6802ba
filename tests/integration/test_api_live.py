"""`proctor.load_run` and `proctor.recompute_run` of a run that has not finished say so, as
`proctor report` does: still running (its process, the trials so far, exit 75, no verdict yet)
or stopped (killed: how to finish it), never an empty or interrupted run that looks done."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import proctor
from proctor.execute.events import TrialFinished
from tests.conftest import write_case


def _slow_suite(root: Path, repeats: int) -> Path:
    cases = root / "cases"
    write_case(
        cases,
        "slow",
        config={"repeats": repeats, "evaluators": [{"use": "file-exists", "must": ["a.txt"]}]},
        plan={"turns": [{"write": {"path": "a.txt", "content": "a\n"}}, {"shell": "sleep 3"}]},
    )
    return cases


def _wait_for(condition: object, orchestrator: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline and orchestrator.poll() is None
        time.sleep(0.05)


def test_a_run_still_running_then_killed_is_said_so(tmp_path: Path) -> None:
    out = tmp_path / "out"
    argv = [sys.executable, "-m", "proctor", "run", "--source", str(_slow_suite(tmp_path, 4))]
    orchestrator = subprocess.Popen(
        [*argv, "--out", str(out), "--concurrency", "1"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # killed with its trials' workers
    )
    try:
        _wait_for(lambda: list(out.glob("run-*/journal.jsonl")), orchestrator)
        (run_dir,) = out.glob("run-*")
        _wait_for(lambda: (run_dir / "run.json").is_file(), orchestrator)
        _wait_for(lambda: list(run_dir.glob("trials/*/*/*/*/trial.json")), orchestrator)
        live = proctor.load_run(run_dir)
        suite = proctor.recompute_run(run_dir)
        assert orchestrator.poll() is None, "the run ended before it was read"
    finally:
        os.killpg(orchestrator.pid, signal.SIGKILL)
        orchestrator.wait(timeout=60)
    assert live.state == "running" and live.running_pid == orchestrator.pid
    assert live.suite is None and live.planned == 4 and 1 <= len(live.records) < 4
    assert live.notes == [
        f"{run_dir} is still running (process {orchestrator.pid}): these are the figures of the "
        "trials so far, not its result"
    ]
    assert suite.exit_code == proctor.ExitCode.STILL_RUNNING == 75
    assert not suite.interrupted  # still going: nothing was interrupted
    assert suite.exit_reason.startswith(
        f"{run_dir.name} is still running (process {orchestrator.pid}): "
        f"{len(live.records)} of 4 trials finished so far, no verdict yet"
    ), suite.exit_reason
    assert suite.totals.n == len(live.records)

    killed = proctor.load_run(run_dir)  # its process is gone: stopped, and how to finish it
    assert killed.state == "stopped" and killed.running_pid is None and killed.suite is None
    assert killed.notes == [
        f"{run_dir} stopped before every trial ran: `proctor run --resume {run_dir}` finishes it"
    ]
    again = proctor.recompute_run(run_dir)
    assert again.exit_code == 130 and again.exit_reason.startswith("interrupted after ")
    assert again.interrupted


def test_a_run_read_from_its_own_subscriber_is_running_then_finished(tmp_path: Path) -> None:
    out = tmp_path / "out"
    seen: list[tuple[str, int | None, int, list[str]]] = []

    def read_back(event: object) -> None:
        if isinstance(event, TrialFinished):
            (run_dir,) = out.glob("run-*")
            run = proctor.load_run(run_dir)
            suite = proctor.recompute_run(run_dir)
            seen.append((run.state, run.running_pid, suite.exit_code, run.notes))

    cases = tmp_path / "cases"
    write_case(cases, "quick", plan={"turns": [{"say": "hi"}]}, config={"repeats": 2})
    result = proctor.run(cases, out=out, concurrency=1, subscribers=[read_back])
    assert result.exit_code == 0
    assert [(state, pid, code) for state, pid, code, _ in seen] == [
        ("running", os.getpid(), 75),
        ("running", os.getpid(), 75),
    ]
    assert all("is still running" in notes[0] for *_, notes in seen)
    done = proctor.load_run(result.paths.root)  # control: finished
    assert done.state == "finished" and done.running_pid is None and done.notes == []
    assert proctor.recompute_run(result.paths.root).exit_code == 0
