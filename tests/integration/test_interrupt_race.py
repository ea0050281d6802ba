"""An interrupt is never lost, whenever it comes: Ctrl-C or SIGTERM that lands while a worker
is being started still stops the run (exit 130, nothing new started), it is not swallowed
while the run carries on to the end."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

CASES = 400
"""Far more trials than a run can finish in the moment before its interrupt, even on a machine
so loaded that this test sees the first trial late (80 once all finished first on a busy CI
machine); an interrupted run stops long before the last, so the count costs no time."""


def _suite(root: Path) -> Path:
    tasks = [
        {"id": f"c{i:02d}", "prompt": "go", "plan": {"turns": [{"say": "done"}]}}
        for i in range(CASES)
    ]
    path = root / "tasks.json"
    path.write_text(json.dumps({"tasks": tasks}))
    return path


def test_interrupts_landing_while_workers_start_all_stop_the_run(tmp_path: Path) -> None:
    """Eight trials at a time start workers all the time, so each signal has a fair chance of
    landing in the moment a worker is forked; every one of them must end the run with 130."""
    suite = _suite(tmp_path)
    rng = random.Random(7)
    codes = []
    for attempt in range(6):
        out = tmp_path / f"out{attempt}"
        argv = [sys.executable, "-m", "proctor", "run", "--source", str(suite), "--out", str(out)]
        command = subprocess.Popen(
            [*argv, "--concurrency", "8"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        try:
            # Wait for trials to be running, then interrupt at a random moment.
            deadline = time.monotonic() + 60
            while not list(out.glob("run-*/trials/*/scripted/default/1/trial.json")):
                assert time.monotonic() < deadline and command.poll() is None, "no trial finished"
                time.sleep(0.05)
            time.sleep(rng.uniform(0.0, 0.4))
            if attempt % 2:
                os.killpg(command.pid, signal.SIGINT)  # Ctrl-C: the whole process group
            else:
                command.send_signal(signal.SIGTERM)  # a CI cancel: the orchestrator only
            _, err = command.communicate(timeout=120)
        finally:
            if command.poll() is None:
                os.killpg(command.pid, signal.SIGKILL)
        codes.append(command.returncode)
        assert b"Traceback" not in err, err.decode()
        finished = list(out.glob("run-*/trials/*/scripted/default/1/trial.json"))
        assert len(finished) < CASES, "the run went on to the end"
    assert codes == [130] * 6


def test_a_run_started_with_ctrl_c_ignored_runs_on_and_so_do_its_trials(tmp_path: Path) -> None:
    """A shell script's background job starts with SIGINT ignored: a Ctrl-C to its process
    group stops neither the run nor its trials (before, the trials stopped as interrupted
    infra-errors while the run went on, and --repeat-check saw invented differences)."""
    tasks = [
        {"id": f"c{i}", "prompt": "go", "plan": {"turns": [{"shell": "sleep 0.5"}, {"say": "ok"}]}}
        for i in range(4)
    ]
    suite = tmp_path / "tasks.json"
    suite.write_text(json.dumps({"tasks": tasks}))
    out = tmp_path / "out"
    run = f"{sys.executable} -m proctor run --source {suite} --out {out} --concurrency 2"
    command = subprocess.Popen(
        ["sh", "-c", f"trap '' INT; {run} & wait $!"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not list(out.glob("run-*/trials/*/scripted/default/1")):
            assert time.monotonic() < deadline and command.poll() is None, "no trial started"
            time.sleep(0.05)
        time.sleep(0.2)
        os.killpg(command.pid, signal.SIGINT)
        _, err = command.communicate(timeout=120)
    finally:
        if command.poll() is None:
            os.killpg(command.pid, signal.SIGKILL)
    records = [json.loads(p.read_text()) for p in out.glob("run-*/trials/*/*/*/*/trial.json")]
    assert command.returncode == 0, err.decode()
    assert sorted(r["status"] for r in records) == ["passed"] * 4


def test_an_interrupt_while_the_aggregate_is_written_leaves_it_whole(
    tmp_path: Path, monkeypatch: Any, make_case: Any, proctor: Any, stop_handlers: None
) -> None:
    """Ctrl-C after the trials, while the run's aggregate and reports are written: they are
    written whole, then again as interrupted, so that they say what the exit code says (130;
    they said 0 before)."""
    from proctor.report import aggregate as aggregate_module

    make_case("hello", config={"agents": ["scripted"]}, plan={"turns": [{"say": "done"}]})
    real = aggregate_module.aggregate

    def interrupted(*args: Any, **kwargs: Any) -> Any:
        os.kill(os.getpid(), signal.SIGINT)  # lands here, mid-aggregate
        time.sleep(0.05)
        return real(*args, **kwargs)

    monkeypatch.setattr(aggregate_module, "aggregate", interrupted)
    out = tmp_path / "out"
    result = proctor("run", "--source", str(tmp_path / "cases"), "--out", str(out))
    assert result.code == 130, result.err
    (run_dir,) = out.glob("run-*")
    manifest = json.loads((run_dir / "run.json").read_text())
    assert manifest["finishedAt"] is not None and manifest["trialsFinished"] == 1
    assert manifest["interrupted"]
    suite = json.loads((run_dir / "suite.json").read_text())
    assert suite["totals"]["n"] == 1 and suite["exitCode"] == 130 and suite["interrupted"]
    assert f"results in {run_dir}" in result.err and "exit 130: interrupted" in result.err
