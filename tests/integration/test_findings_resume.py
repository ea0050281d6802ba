"""A run stopped with Ctrl-C, taken into the findings ledger as it stood, then finished by
`proctor run --resume`: what the resume ran is applied to the run's findings."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

from tests.conftest import Run, write_case
from tests.integration.test_resume import proctor_argv

MISSING = {"turns": [{"say": "Nothing to do."}]}


def two_cases(root: Path) -> Path:
    """``fast`` fails at once; ``slow`` fails after a pause long enough to be cut short."""
    cases = root / "cases"
    config = {"timeoutSec": 60, "evaluators": [{"use": "file-exists", "must": ["a.txt"]}]}
    write_case(cases, "fast", config=config, plan=MISSING)
    slow = {"turns": [{"shell": "sleep 5"}, {"say": "Nothing to do."}]}
    write_case(cases, "slow", config=config, plan=slow)
    return cases


def test_a_resume_adds_the_checks_it_ran_to_the_findings_of_its_run(
    proctor: Run, tmp_path: Path
) -> None:
    cases, out = two_cases(tmp_path), tmp_path / "out"
    run = subprocess.Popen(
        proctor_argv("run", "--source", str(cases), "--out", str(out)),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while not list(out.glob("run-*/trials/fast/*/*/1/trial.json")):
        assert time.monotonic() < deadline and run.poll() is None
        time.sleep(0.05)
    os.killpg(run.pid, signal.SIGINT)  # Ctrl-C while `slow` sleeps
    _, err = run.communicate(timeout=60)
    assert run.returncode == 130, err
    (run_dir,) = out.glob("run-*")
    ledger = json.loads((out / "findings.json").read_text())
    assert [f["case"] for f in ledger["findings"]] == ["fast"]  # `slow` was cut short
    assert list(ledger["interruptedRuns"]) == [run_dir.name]

    resumed = proctor("run", "--resume", str(run_dir))
    assert resumed.code == 1, resumed.err
    assert "not applied" not in resumed.err
    listed = proctor("findings", str(out), "--json")
    assert listed.code == 0, listed.err
    found = {f["case"]: f for f in listed.json()["findings"]}
    assert sorted(found) == ["fast", "slow"]
    assert found["slow"]["firstSeenRun"] == found["slow"]["lastCheckedRun"] == run_dir.name
    assert [f["failures"] for f in found.values()] == [1, 1]  # the run counted once
    assert list(json.loads((out / "findings.json").read_text())["interruptedRuns"]) == [
        run_dir.name
    ]
    suite = json.loads((run_dir / "suite.json").read_text())
    assert sorted((c["event"], c["case"]) for c in suite["findings"]) == [
        ("new", "fast"),
        ("new", "slow"),
    ]
    # Applied once: the ledger reads the same after another update.
    again = proctor("findings", str(out), "--json")
    assert again.json()["findings"] == listed.json()["findings"]
