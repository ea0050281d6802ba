"""A headless turn whose ``stop_turn`` is set ends ``interrupted``: its process group is
stopped then, not at the deadline, and the next turn (which resumes the session) runs."""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path
from typing import Any, cast

from proctor.agents.protocol import Launch
from proctor.drive.headless import HeadlessDriver

WORKS = "import os, sys, time; open(sys.argv[1], 'w').write(str(os.getpid())); time.sleep(60)"


class Sleeper:
    """An agent whose turn writes its process id to ``started``, then works for a minute."""

    def __init__(self, started: Path) -> None:
        self.started = started

    def headless_argv(self, launch: Any, message: str, turn: int) -> list[str]:
        return [sys.executable, "-c", WORKS, str(self.started)]

    def provider_failing(self, stdout: list[dict[str, Any]]) -> str | None:
        return None


def _when_started(started: Path, stop: threading.Event) -> None:
    while not started.exists() or not started.read_text():
        time.sleep(0.01)
    stop.set()


def test_a_stopped_turn_ends_interrupted_and_its_process_is_gone(tmp_path: Path) -> None:
    started = tmp_path / "pid"
    launch = Launch(argv=[], env=dict(os.environ), cwd=tmp_path, state=None, mode="headless")
    driver = HeadlessDriver(
        cast(Any, Sleeper(started)),
        launch,
        time.monotonic() + 20,  # (reached only when nothing stops the turn)
        tmp_path / "out",
        tmp_path / "err",
    )
    stop = threading.Event()
    driver.stop_turn = stop
    setter = threading.Thread(target=_when_started, args=(started, stop), daemon=True)
    setter.start()
    outcome = driver.send("one")
    assert outcome.kind == "interrupted"
    pid = int(started.read_text())
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        pass
    else:
        raise AssertionError(f"the turn's process {pid} is still running")
    # A send stopped before it began runs nothing.
    started.unlink()
    assert driver.send("two").kind == "interrupted" and not started.exists()
