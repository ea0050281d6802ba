"""A ``t.send`` the test stops waiting for (its own ``asyncio.wait_for``, a task it cancels)
interrupts the agent's turn, as the case's timeout ends it: the driver is told to stop the
turn, the turn is recorded ``interrupted`` before the test goes on, and a later send meets a
terminal or ACP session stopped, a headless one resumed."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

from proctor.drive.driver import SessionLog, TurnOutcome
from tests.unit.evals.test_agent_exit import converse

STUCK_SEC = 20.0
"""How long the fake agent's first turn works when nothing stops it (never, when it is)."""


class Busy:
    """An agent whose first turn works until its turn is stopped; later turns end at once."""

    stop_turn: threading.Event | None = None

    def __init__(self) -> None:
        self.log = SessionLog()
        self.stops: list[bool] = []
        """Whether each turn was stopped (its ``stop_turn`` set), turn by turn."""
        self.release = threading.Event()  # (a test's own end: never left working)

    def start(self) -> TurnOutcome:
        return TurnOutcome("turn-end")

    def send(self, message: str) -> TurnOutcome:
        self.log.turns += 1
        if self.log.turns > 1:
            self.stops.append(False)
            return TurnOutcome("turn-end")
        stop = self.stop_turn
        stopped = stop.wait(STUCK_SEC) if stop is not None else self.release.wait(STUCK_SEC)
        self.stops.append(stopped)
        return TurnOutcome("interrupted" if stopped else "turn-end")

    def screen_excerpt(self) -> str:
        return ""

    def finish(self, last: TurnOutcome) -> None: ...

    def close(self) -> None: ...


def test_a_send_the_test_stops_waiting_for_interrupts_the_agent_s_turn(tmp_path: Path) -> None:
    seen: list[list[str]] = []

    async def test(t: Any) -> None:
        try:
            await asyncio.wait_for(t.send("one"), 0.05)
        finally:
            seen.append([turn.outcome for turn in t.turns])  # recorded before it goes on

    driver = Busy()
    try:
        talked = converse(tmp_path, driver, test)
    finally:
        driver.release.set()
    assert driver.stops == [True]
    assert seen == [["interrupted"]]
    assert talked.error is not None and talked.error.startswith("TimeoutError: "), talked.error
    assert talked.outcome.kind == "interrupted"  # the session is asked nothing more


def test_a_later_send_meets_a_stopped_terminal_session(tmp_path: Path) -> None:
    async def test(t: Any) -> None:
        try:
            await asyncio.wait_for(t.send("one"), 0.05)
        except TimeoutError:
            pass
        await t.send("two")

    driver = Busy()
    try:
        talked = converse(tmp_path, driver, test, mode="interactive")
    finally:
        driver.release.set()
    assert driver.stops == [True] and driver.log.turns == 1  # "two" never reached it
    assert talked.error is not None
    assert talked.error.startswith(
        "RuntimeError: t.send('two'): turn 1 was interrupted (its send was cancelled), which "
        "stopped the agent's session; there is no session to send to"
    ), talked.error


def test_a_later_send_resumes_a_headless_session(tmp_path: Path) -> None:
    async def test(t: Any) -> None:
        try:
            await asyncio.wait_for(t.send("one"), 0.05)
        except TimeoutError:
            pass
        (await t.send("two")).expect_ok()

    driver = Busy()
    try:
        talked = converse(tmp_path, driver, test, mode="headless")
    finally:
        driver.release.set()
    assert driver.stops == [True, False]
    assert talked.error is None and talked.outcome.kind == "turn-end"
    assert [r.passed for r in talked.results] == [True]
