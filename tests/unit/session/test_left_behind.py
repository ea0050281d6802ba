"""A resume stops the workers a dead orchestrator left behind: a worker that was stopped with
it (Ctrl-Z, then the orchestrator killed) is continued, so it handles the SIGTERM and records
its trial at once rather than being killed once the grace period is over."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from proctor.execute.events import TrialStarted
from proctor.paths import RunPaths
from proctor.session import resume
from proctor.session.journal import Journal

WORKER = (
    "import signal, sys, time\n"
    "signal.signal(signal.SIGTERM, lambda *a: sys.exit(7))\n"
    "print('ready', flush=True)\n"
    "time.sleep(60)\n"
)


def test_a_stopped_worker_left_behind_is_continued_and_stops_on_sigterm(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(resume, "WORKER_GRACE_SEC", 8.0)
    worker = subprocess.Popen([sys.executable, "-c", WORKER], stdout=subprocess.PIPE)
    assert worker.stdout is not None and worker.stdout.readline() == b"ready\n"
    os.kill(worker.pid, signal.SIGSTOP)
    threading.Thread(target=worker.wait, daemon=True).start()  # reaped as it ends
    paths = RunPaths(tmp_path / "run")
    paths.root.mkdir()
    started = TrialStarted(
        case="c", agent="scripted", condition="default", repeat=1, pid=worker.pid
    )
    Journal(paths.journal)(started)
    began = time.monotonic()
    try:
        resume.stop_left_behind(paths, [])
    finally:
        if worker.poll() is None:
            worker.kill()
        worker.stdout.close()
    assert time.monotonic() - began < 5
    assert worker.wait(5) == 7  # its own SIGTERM handler ran: not killed
