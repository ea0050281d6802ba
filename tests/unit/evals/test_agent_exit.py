"""An agent that exits in a turn of an eval's conversation, on a headless-like driver whose
later turns run a fresh process: the exit is remembered after a later turn succeeds, and the
trial is ``agent-error`` unless the test declared that exit expected."""

from __future__ import annotations

import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

from proctor.drive.driver import SessionLog, TurnOutcome
from proctor.drive.talk import Talk, Talked
from proctor.evals.conversation import EvalCaseRun, conversation_for
from proctor.execute.verdict import talked_verdict


class Exits:
    """One process per turn: ``codes[n]`` is turn n's exit code (0 ends the turn)."""

    def __init__(self, codes: list[int], failure: str | None = None) -> None:
        self.codes = codes
        self.failure = failure
        self.log = SessionLog()

    def start(self) -> TurnOutcome:
        return TurnOutcome("turn-end")

    def send(self, message: str) -> TurnOutcome:
        code = self.codes[self.log.turns]
        self.log.turns += 1
        self.log.exit_code = code
        self.log.failure = self.failure if code else None
        return TurnOutcome("turn-end" if code == 0 else "exited")

    def screen_excerpt(self) -> str:
        return ""

    def finish(self, last: TurnOutcome) -> None: ...

    def close(self) -> None: ...


class NoTranscript:
    def transcript_files(self, launch: Any) -> list[Path]:
        return []


def converse(tmp_path: Path, driver: Exits, test: Any, mode: str = "headless") -> Talked:
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    talk = Talk(
        driver,
        cast(Any, NoTranscript()),
        cast(Any, SimpleNamespace(mode=mode)),
        cast(Any, None),
        None,
        workspace,
        tmp_path,
        time.monotonic() + 30,
    )
    return conversation_for(EvalCaseRun("c", test, 1, 30.0))(talk)


def verdict_of(talked: Talked, driver: Exits) -> tuple[str, str]:
    v = talked_verdict(
        talked.outcome,
        driver.log.exit_code,
        driver.log.failure,
        talked.results,
        skipped=talked.skipped,
        error=talked.error,
        turns_done=talked.turns_done,
        timeout_sec=30,
        agent_error=talked.agent_error,
    )
    return v.status, v.reason


async def two_turns_gated(t: Any) -> None:
    await t.send("one")
    await t.send("two")
    t.check(1, 1)


def test_an_exit_in_the_middle_is_an_agent_error_after_a_later_turn_succeeds(
    tmp_path: Path,
) -> None:
    driver = Exits([2, 0])
    talked = converse(tmp_path, driver, two_turns_gated)
    assert talked.outcome.kind == "turn-end" and driver.log.exit_code == 0
    assert verdict_of(talked, driver) == (
        "agent-error",
        "agent exited with code 2 before its turn ended (turn 1 of 2)",
    )


def test_the_agent_s_own_failure_is_the_reason(tmp_path: Path) -> None:
    driver = Exits([1, 0], failure="rate limited: 429 from the provider")
    talked = converse(tmp_path, driver, two_turns_gated)
    assert verdict_of(talked, driver) == (
        "agent-error",
        "rate limited: 429 from the provider (turn 1 of 2)",
    )


def test_a_clean_conversation_is_judged_by_its_gates(tmp_path: Path) -> None:
    """The control: the same test with no exit passes."""
    driver = Exits([0, 0])
    talked = converse(tmp_path, driver, two_turns_gated)
    assert talked.agent_error is None
    assert verdict_of(talked, driver)[0] == "passed"


def test_an_exit_the_test_expects_is_left_to_its_gates(tmp_path: Path) -> None:
    async def test(t: Any) -> None:
        (await t.send("one")).expect_exit()
        (await t.send("two")).expect_ok()

    driver = Exits([2, 0])
    talked = converse(tmp_path, driver, test)
    assert talked.agent_error is None
    assert verdict_of(talked, driver) == ("passed", "2 gates passed")


def test_an_unexpected_exit_after_an_expected_one_still_counts(tmp_path: Path) -> None:
    async def test(t: Any) -> None:
        (await t.send("one")).expect_exit()
        await t.send("two")

    driver = Exits([2, 5])
    talked = converse(tmp_path, driver, test)
    status, reason = verdict_of(talked, driver)
    assert (status, reason) == (
        "agent-error",
        "agent exited with code 5 before its turn ended (turn 2 of 2)",
    )


def test_a_skip_after_the_exit_is_the_test_s_decision(tmp_path: Path) -> None:
    async def test(t: Any) -> None:
        turn = await t.send("one")
        if not turn.ok:
            t.skip("the agent is unavailable")

    driver = Exits([2])
    talked = converse(tmp_path, driver, test)
    assert verdict_of(talked, driver) == ("skipped", "the agent is unavailable")


class TerminalQuit(Exits):
    """A terminal session: the agent quits in the last turn, its exit code known only when
    the session ends (``ended_with``)."""

    def __init__(self, ended_with: int) -> None:
        super().__init__([0, 0])
        self.ended_with = ended_with

    def send(self, message: str) -> TurnOutcome:
        self.log.turns += 1
        return TurnOutcome("exited" if message == "/exit" else "turn-end")


async def says_bye(t: Any) -> None:
    await t.send("one")
    await t.send("/exit")
    t.check(1, 1)


def test_a_terminal_agent_that_quits_cleanly_is_judged_by_its_gates(tmp_path: Path) -> None:
    driver = TerminalQuit(ended_with=0)
    talked = converse(tmp_path, driver, says_bye)
    driver.log.exit_code = driver.ended_with  # the session ended
    assert verdict_of(talked, driver)[0] == "passed"


def test_a_terminal_agent_that_exits_non_zero_is_an_agent_error_with_its_code(
    tmp_path: Path,
) -> None:
    """The control: the same quit with exit code 3 is a crash, and the reason says so."""
    driver = TerminalQuit(ended_with=3)
    talked = converse(tmp_path, driver, says_bye)
    driver.log.exit_code = driver.ended_with
    assert verdict_of(talked, driver) == (
        "agent-error",
        "agent exited with code 3 before its turn ended (turn 2 of 2)",
    )


def test_a_send_after_the_session_s_agent_exited_names_the_turn_it_exited_in(
    tmp_path: Path,
) -> None:
    """A terminal (or ACP) session is one process: once it exited, a send has nothing to
    reach, and the error says where it went rather than blaming the turn sent next."""

    async def test(t: Any) -> None:
        (await t.send("one")).expect_exit()
        await t.send("two")

    driver = Exits([3, 0])
    talked = converse(tmp_path, driver, test, mode="interactive")
    assert talked.error is not None and talked.agent_error is None
    assert "t.send('two'): the agent exited in turn 1; there is no session to send to" in (
        talked.error
    )
    assert driver.log.turns == 1  # the second message was never sent
    # The control: a headless CLI resumes the session in a new process, so the send runs.
    again = Exits([3, 0])
    assert converse(tmp_path, again, test).error is None and again.log.turns == 2
