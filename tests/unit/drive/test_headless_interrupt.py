"""A headless turn whose ``stop_turn`` is set ends ``interrupted``: its process group is
stopped then, not at the deadline, and the next turn (which resumes the session) runs."""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path
from typing import Any, cast

from proctor.agents.protocol import HeadlessReport, Launch
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

    def refused_key(self, launch: Any, event: dict[str, Any]) -> str | None:
        return None

    def headless_report(self, launch: Any, stdout: list[dict[str, Any]], stderr: str) -> Any:
        return HeadlessReport()

    def transcript_files(self, launch: Any) -> list[Path]:
        return []


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


SAYS = (
    "import json, os, sys, time; print(json.dumps({'type': 'thread.started', 'thread_id': "
    "sys.argv[2]}), flush=True); open(sys.argv[1], 'w').write(str(os.getpid())); "
    "time.sleep(60)"
)


class Resumable(Sleeper):
    """An agent whose turn names its session on stdout first (as Codex's thread.started
    does), then works; its session is saved when ``saved`` exists. Records each turn's
    number and the session each report read."""

    def __init__(self, started: Path, saved: Path) -> None:
        super().__init__(started)
        self.saved = saved
        self.turns: list[int] = []
        self.session: str | None = None

    def headless_argv(self, launch: Any, message: str, turn: int) -> list[str]:
        self.turns.append(turn)
        return [sys.executable, "-c", SAYS, str(self.started), f"s{len(self.turns)}"]

    def headless_report(self, launch: Any, stdout: list[dict[str, Any]], stderr: str) -> Any:
        self.session = next((e["thread_id"] for e in stdout if "thread_id" in e), None)
        return HeadlessReport()

    def transcript_files(self, launch: Any) -> list[Path]:
        return [self.saved] if self.saved.exists() else []


def _stopped_first_turn(tmp_path: Path, saved: bool) -> tuple[Resumable, HeadlessDriver]:
    started = tmp_path / "pid"
    agent = Resumable(started, tmp_path / "session.jsonl")
    if saved:
        agent.saved.write_text("{}\n")
    launch = Launch(argv=[], env=dict(os.environ), cwd=tmp_path, state=None, mode="headless")
    driver = HeadlessDriver(
        cast(Any, agent), launch, time.monotonic() + 20, tmp_path / "out", tmp_path / "err"
    )
    stop = threading.Event()
    driver.stop_turn = stop
    threading.Thread(target=_when_started, args=(started, stop), daemon=True).start()
    assert driver.send("one").kind == "interrupted"
    return agent, driver


def test_a_stopped_turn_s_report_is_read_so_its_session_can_be_resumed(tmp_path: Path) -> None:
    """The session id a turn stopped mid-way printed (Codex's thread) is read, and a session
    it saved is resumed by the next send (turn 2)."""
    agent, driver = _stopped_first_turn(tmp_path, saved=True)
    assert agent.session == "s1"
    started = tmp_path / "pid"
    started.unlink()
    stop = threading.Event()
    driver.stop_turn = stop
    threading.Thread(target=_when_started, args=(started, stop), daemon=True).start()
    driver.send("two")
    assert agent.turns == [1, 2]
    assert (tmp_path / "out").read_text().count("thread.started") == 2  # appended


def test_a_first_turn_stopped_before_its_session_was_saved_is_started_afresh(
    tmp_path: Path,
) -> None:
    """No transcript yet: nothing to resume, so the next send starts the session (turn 1
    again), its output appended to the stopped turn's."""
    agent, driver = _stopped_first_turn(tmp_path, saved=False)
    started = tmp_path / "pid"
    started.unlink()
    stop = threading.Event()
    driver.stop_turn = stop
    threading.Thread(target=_when_started, args=(started, stop), daemon=True).start()
    driver.send("two")
    assert agent.turns == [1, 1]
    assert driver.log.turns == 2  # every message sent counts (timings.turnsTotal)
    assert (tmp_path / "out").read_text().count("thread.started") == 2
