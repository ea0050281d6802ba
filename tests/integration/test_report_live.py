"""`proctor report` of a run still running: the figures of the trials so far, a note, and exit
75 (no verdict yet), never a verdict nor the 130 of an interrupted run; `--write` is refused."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import Run, write_case


def test_a_report_of_a_run_still_running_exits_75(proctor: Run, tmp_path: Path) -> None:
    cases = tmp_path / "cases"
    write_case(
        cases,
        "slow",
        config={"repeats": 4, "evaluators": [{"use": "file-exists", "must": ["a.txt"]}]},
        plan={
            "turns": [
                {"write": {"path": "a.txt", "content": "a\n"}},
                {"shell": "sleep 4"},
                {"say": "done"},
            ]
        },
    )
    out = tmp_path / "out"
    argv = [sys.executable, "-m", "proctor", "run", "--source", str(cases), "--out", str(out)]
    orchestrator = subprocess.Popen(
        [*argv, "--concurrency", "1"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        waited = time.monotonic() + 60
        while not list(out.glob("run-*/trials/*/*/*/*/trial.json")):
            assert time.monotonic() < waited and orchestrator.poll() is None
            time.sleep(0.1)
        (run_dir,) = out.glob("run-*")
        report = proctor("report", str(run_dir))
        as_json = proctor("report", str(run_dir), "--reporter", "json")
        write = proctor("report", str(run_dir), "--write")
        assert orchestrator.poll() is None, "the run ended before it was reported"
    finally:
        orchestrator.send_signal(signal.SIGINT)
        orchestrator.wait(timeout=60)
    assert report.code == 75, report.err
    assert f"{run_dir.name} is still running (process {orchestrator.pid})" in report.err
    assert "**Exit code 75** (still running: no verdict yet)" in report.out
    suite = json.loads(as_json.out)
    assert as_json.code == 75 and suite["exitCode"] == 75 and suite["totals"]["n"] >= 1
    assert "finished so far, no verdict yet" in suite["exitReason"]
    assert suite["interrupted"] is False  # still going: nothing was interrupted
    assert write.code == 2 and "is still running" in write.err
    assert (
        not (run_dir / "suite.json").exists()
        or json.loads((run_dir / "suite.json").read_text())["exitCode"] == 130
    )  # the run wrote it as it stopped, not the refused --write
    stopped = proctor("report", str(run_dir))  # control: interrupted, no longer running
    assert stopped.code == 130 and "still running" not in stopped.err, stopped.err


def test_runs_read_together_one_still_running_exit_75_naming_it(
    proctor: Run, tmp_path: Path
) -> None:
    """`report DONE LIVE`: exit 75 naming the run still running, with its own count of trials
    (not the other run's as its own), and a note on stderr; `compare` of it before its first
    trial ended says it is still running, not that it stopped (its --resume is refused)."""
    quick = tmp_path / "quick"
    write_case(quick, "fix", plan={"turns": [{"say": "hi"}]}, config={"repeats": 2})
    done_out = tmp_path / "done"
    assert proctor("run", "--source", str(quick), "--out", str(done_out)).code == 0
    (done,) = done_out.glob("run-*")
    cases = tmp_path / "cases"
    write_case(
        cases,
        "slow",
        config={"repeats": 3, "evaluators": [{"use": "file-exists", "must": ["a.txt"]}]},
        plan={"turns": [{"write": {"path": "a.txt", "content": "a\n"}}, {"shell": "sleep 4"}]},
    )
    out = tmp_path / "out"
    argv = [sys.executable, "-m", "proctor", "run", "--source", str(cases), "--out", str(out)]
    orchestrator = subprocess.Popen(
        [*argv, "--concurrency", "1"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        waited = time.monotonic() + 60
        while not list(out.glob("run-*/journal.jsonl")) or not list(out.glob("run-*/run.json")):
            assert time.monotonic() < waited and orchestrator.poll() is None
            time.sleep(0.05)
        (live,) = out.glob("run-*")
        early = proctor("compare", str(done), str(live))
        first_ended = list(live.glob("trials/*/*/*/*/trial.json"))
        while not list(live.glob("trials/*/*/*/*/trial.json")):
            assert time.monotonic() < waited and orchestrator.poll() is None
            time.sleep(0.1)
        report = proctor("report", str(done), str(live))
        as_json = proctor("report", str(live), str(done), "--reporter", "json")
        assert orchestrator.poll() is None, "the run ended before it was reported"
    finally:
        orchestrator.send_signal(signal.SIGINT)
        orchestrator.wait(timeout=60)
    if not first_ended:  # else its first trial ended before compare read it: nothing to check
        assert early.code == 2 and early.out == "", early.err
        (line,) = early.err.splitlines()
        assert line.startswith(
            f"proctor: error: {live}: the run is still running (process {orchestrator.pid})"
        ), line
        assert "--resume" not in line
    assert report.code == 75, report.err
    name = live.name
    reason = (
        f"{name} is still running (process {orchestrator.pid}): 1 of 3 of its trials finished"
        " so far (3 of 5 over the 2 runs read), no verdict yet"
    )
    assert f"**Exit code 75** (still running: no verdict yet): {reason}" in report.out, report.out
    assert f"{live} is still running (process {orchestrator.pid})" in report.err
    suite = json.loads(as_json.out)
    assert as_json.code == 75 and suite["exitCode"] == 75 and suite["totals"]["n"] == 3
    assert suite["exitReason"].startswith(reason)
    assert suite["interrupted"] is False  # one run finished, the other still going
