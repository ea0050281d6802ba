"""Stopping the workers on Ctrl-C: a trial whose worker has to be killed because it would not
stop in time is recorded as interrupted, so ``--resume`` runs it again."""

from __future__ import annotations

import multiprocessing
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from proctor.execute import executor
from proctor.execute.executor import RunOutcome, _stop_workers
from proctor.paths import RunPaths
from proctor.session.resume import finished_record
from tests.unit.execute.test_executor import spec


def _deaf_worker(deaf: Any) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    deaf.set()
    time.sleep(60)


def test_a_worker_killed_after_the_grace_is_recorded_as_interrupted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(executor, "STOP_GRACE_SEC", 0.5)
    run = RunPaths(tmp_path / "run")
    trial = spec(tmp_path)
    context = multiprocessing.get_context("fork")
    deaf = context.Event()
    proc = context.Process(target=_deaf_worker, args=(deaf,))
    proc.start()
    # Its handler is set (a fixed pause was too short for a child started late on a loaded
    # machine: SIGTERM then ended it before it could ignore it).
    assert deaf.wait(60)
    outcome = RunOutcome()
    _stop_workers({proc.sentinel: (proc, trial)}, run, outcome, [])
    assert not proc.is_alive() and proc.exitcode == -signal.SIGKILL
    (record,) = outcome.records
    assert record.status == "infra-error"
    assert record.reason.startswith("interrupted:") and "did not stop within 0.5 s" in record.reason
    assert finished_record(run, trial) is None  # what --resume runs again
