"""Ctrl-C during a trial: the trial is recorded as interrupted without keeping its workspace
(``--resume`` runs it again in a fresh one), so a large workspace cannot hold up the stop."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

from tests.conftest import write_case
from tests.integration.test_resume import proctor_argv


def test_an_interrupted_trial_keeps_no_workspace(tmp_path: Path) -> None:
    cases = tmp_path / "cases"
    plan = {"turns": [{"write": {"path": "a.txt", "content": "a\n"}}, {"shell": "sleep 30"}]}
    write_case(cases, "long", plan=plan)
    out = tmp_path / "out"
    run = subprocess.Popen(
        proctor_argv("run", "--source", str(cases), "--out", str(out), "--keep-workspace"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not any(
        "trial-started" in p.read_text() for p in out.glob("run-*/journal.jsonl")
    ):
        time.sleep(0.05)
    time.sleep(1.0)  # into the shell step
    os.killpg(run.pid, signal.SIGINT)
    _, err = run.communicate(timeout=60)
    assert run.returncode == 130, err
    (trial,) = out.glob("run-*/trials/long/scripted/default/1")
    record = json.loads((trial / "trial.json").read_text())
    assert record["reason"].startswith("interrupted:"), record["reason"]
    assert record.get("workspace") is None and not (trial / "workspace").exists()
