"""A run stopped with Ctrl-C, taken into the findings ledger as it stood, then finished by
`proctor run --resume`: what the resume ran is applied to the run's findings, and each of the
run's failures counts once."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

from tests.conftest import Run, write_case
from tests.integration.test_resume import proctor_argv

MISSING = {"turns": [{"say": "Nothing to do."}]}
CONFIG = {"timeoutSec": 60, "evaluators": [{"use": "file-exists", "must": ["a.txt"]}]}


def pausing(seconds: int) -> dict[str, Any]:
    """A plan that fails its check after a pause long enough to be cut short."""
    return {"turns": [{"shell": f"sleep {seconds}"}, {"say": "Nothing to do."}]}


def started(*argv: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        proctor_argv(*argv),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def wait_for(process: subprocess.Popen[str], folder: Path, pattern: str) -> None:
    """Until a trial record matching ``pattern`` says its trial failed (a record a Ctrl-C
    left says it was interrupted)."""
    deadline = time.monotonic() + 60
    while not any(_failed(path) for path in folder.glob(pattern)):
        assert time.monotonic() < deadline and process.poll() is None
        time.sleep(0.05)


def _failed(record: Path) -> bool:
    try:
        return bool(json.loads(record.read_text()).get("status") == "failed")
    except (OSError, ValueError):  # being written
        return False


def interrupted(cases: Path, out: Path, pattern: str, *args: str) -> Path:
    """A run of ``cases`` stopped with Ctrl-C once a trial record matching ``pattern`` is
    written; its folder."""
    run = started("run", "--source", str(cases), "--out", str(out), *args)
    wait_for(run, out, f"run-*/trials/{pattern}")
    os.killpg(run.pid, signal.SIGINT)
    _, err = run.communicate(timeout=60)
    assert run.returncode == 130, err
    (run_dir,) = out.glob("run-*")
    return run_dir


def listed(proctor: Run, out: Path) -> dict[str, dict[str, Any]]:
    result = proctor("findings", str(out), "--json")
    assert result.code == 0, result.err
    return {f["case"]: f for f in result.json()["findings"]}


def test_a_resume_adds_the_checks_it_ran_to_the_findings_of_its_run(
    proctor: Run, tmp_path: Path
) -> None:
    cases, out = tmp_path / "cases", tmp_path / "out"
    write_case(cases, "fast", config=CONFIG, plan=MISSING)
    write_case(cases, "slow", config=CONFIG, plan=pausing(5))
    run_dir = interrupted(cases, out, "fast/*/*/1/trial.json")  # while `slow` sleeps
    ledger = json.loads((out / "findings.json").read_text())
    assert [f["case"] for f in ledger["findings"]] == ["fast"]  # `slow` was cut short
    assert list(ledger["interruptedRuns"]) == [run_dir.name]

    resumed = proctor("run", "--resume", str(run_dir))
    assert resumed.code == 1, resumed.err
    assert "not applied" not in resumed.err
    found = listed(proctor, out)
    assert sorted(found) == ["fast", "slow"]
    assert found["slow"]["firstSeenRun"] == found["slow"]["lastCheckedRun"] == run_dir.name
    assert [f["failures"] for f in found.values()] == [1, 1]  # the run counted once
    suite = json.loads((run_dir / "suite.json").read_text())
    assert sorted((c["event"], c["case"]) for c in suite["findings"]) == [
        ("new", "fast"),
        ("new", "slow"),
    ]
    # Applied once: the ledger reads the same after another update.
    assert listed(proctor, out) == found


def test_a_run_taken_in_while_its_resume_runs_counts_each_failure_once(
    proctor: Run, tmp_path: Path
) -> None:
    """The ledger takes the run in (here: first) while a resume is running trials in it: it
    takes the run as it stopped, and the resume's trials when the resume ends."""
    cases, out = tmp_path / "cases", tmp_path / "out"
    write_case(cases, "fast", config=CONFIG, plan=MISSING)
    write_case(cases, "slow", config=CONFIG, plan=pausing(4))
    write_case(cases, "slower", config=CONFIG, plan=pausing(9))
    run_dir = interrupted(cases, out, "fast/*/*/1/trial.json", "--concurrency", "3")
    (out / "findings.json").unlink()  # as when the run's own update of the ledger failed
    resume = started("run", "--resume", str(run_dir))
    wait_for(resume, run_dir, "trials/slow/*/*/1/trial.json")
    during = listed(proctor, out)  # `slower` is still running
    assert sorted(during) == ["fast"]
    _, err = resume.communicate(timeout=60)
    assert resume.returncode == 1, err
    found = listed(proctor, out)
    assert sorted(found) == ["fast", "slow", "slower"]
    assert [f["failures"] for f in found.values()] == [1, 1, 1]


def test_a_failure_a_person_excluded_before_the_resume_still_counts_the_run_once(
    proctor: Run, tmp_path: Path
) -> None:
    cases, out = tmp_path / "cases", tmp_path / "out"
    write_case(cases, "rep", config={**CONFIG, "repeats": 2}, plan=pausing(3))
    run_dir = interrupted(cases, out, "rep/*/*/1/trial.json", "--concurrency", "1")
    assert listed(proctor, out)["rep"]["failures"] == 1
    marked = proctor(
        "annotate", str(run_dir), "rep/scripted/default/1", "--verdict", "excluded", "--note", "x"
    )
    assert marked.code == 0, marked.err
    resumed = proctor("run", "--resume", str(run_dir))
    assert resumed.code == 1, resumed.err
    assert listed(proctor, out)["rep"]["failures"] == 1


def test_a_finding_whose_trial_a_ctrl_c_cut_short_is_said_not_checked_with_the_resume(
    proctor: Run, tmp_path: Path
) -> None:
    cases, out = tmp_path / "cases", tmp_path / "out"
    write_case(cases, "fast", config=CONFIG, plan=MISSING)
    write_case(cases, "slow", config=CONFIG, plan=pausing(4))
    first = proctor("run", "--source", str(cases), "--out", str(out))
    assert first.code == 1, first.err  # both fail: two findings
    before = set(out.glob("run-*"))
    run = started("run", "--source", str(cases), "--out", str(out), "--concurrency", "2")
    deadline = time.monotonic() + 60
    while not set(out.glob("run-*")) - before:
        assert time.monotonic() < deadline and run.poll() is None
        time.sleep(0.05)
    (latest,) = set(out.glob("run-*")) - before
    wait_for(run, latest, "trials/fast/*/*/1/trial.json")
    while not list(latest.glob("trials/slow/*/*/1")):  # `slow` started: it sleeps
        assert time.monotonic() < deadline and run.poll() is None
        time.sleep(0.05)
    time.sleep(0.5)
    os.killpg(run.pid, signal.SIGINT)
    _, err = run.communicate(timeout=60)
    assert run.returncode == 130, err
    record = json.loads(next(latest.glob("trials/slow/*/*/1/trial.json")).read_text())
    assert record["reason"].startswith("interrupted")  # cut short in the middle
    table = proctor("findings", str(out)).out
    assert f"was not checked by the latest run of its suite ({latest.name}), which was " in table
    assert "`proctor run --resume RUN_DIR` finishes that run" in table
    assert "left without a result" not in table
