"""The ACP driver against a real ACP agent process (``acp_test_agent.py``, on the SDK's agent
side): turns, history, permission requests answered by the policy or left pending, a stray
stdout line, the raw log, failures, timeouts and stopping."""

from __future__ import annotations

import gc
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from proctor.agents.acp import AcpAgent, AcpSession
from proctor.agents.protocol import Launch, LaunchContext
from proctor.discover.qna import parse_qna_rules
from proctor.drive.acp_driver import AcpDriver
from proctor.drive.budget import BudgetWatch, StepBudget
from proctor.drive.policy import AnswerPolicy
from proctor.models.config import AgentProfile

AGENT = Path(__file__).with_name("acp_test_agent.py")


def policy(rules: str | None) -> AnswerPolicy:
    text = f"```rules\n{rules}\n```\n" if rules else ""
    return AnswerPolicy(parse_qna_rules(text), text, "task")


def launch(tmp_path: Path, *args: str, mode: str | None = None) -> Launch[AcpSession]:
    workspace, home = tmp_path / "ws", tmp_path / "home"
    workspace.mkdir(exist_ok=True)
    home.mkdir(exist_ok=True)
    profile = AgentProfile(
        transport="acp", command=[sys.executable, str(AGENT), *args], permission_mode=mode
    )
    ctx = LaunchContext(
        workspace=workspace,
        home=home,
        scratch=tmp_path,
        env={"PATH": "/usr/bin:/bin", "HOME": str(home)},
        profile=profile,
        plan=None,
        repeat=1,
        session_id="x",
        mode="headless",
        trial_dir=tmp_path / "trial",
    )
    return AcpAgent().prepare(ctx)


@pytest.fixture
def drivers() -> Iterator[list[AcpDriver]]:
    made: list[AcpDriver] = []
    yield made
    for driver in made:
        driver.close()
    gc.collect()  # a pipe or process left open warns now, in the test that left it


def open_driver(
    tmp_path: Path,
    drivers: list[AcpDriver],
    *args: str,
    rules: str | None = None,
    seconds: float = 30,
    mode: str | None = None,
) -> AcpDriver:
    started = launch(tmp_path, *args, mode=mode)
    driver = AcpDriver(
        AcpAgent(), started, policy(rules), time.monotonic() + seconds, tmp_path / "err.log"
    )
    drivers.append(driver)
    return driver


def replies(driver: AcpDriver) -> list[str]:
    events = AcpAgent().parse(driver.launch.state.log).events
    return [e.text for e in events if e.type == "assistant_text"]


def test_two_turns_share_the_session_and_the_log_keeps_every_message(
    tmp_path: Path, drivers: list[AcpDriver]
) -> None:
    driver = open_driver(tmp_path, drivers)
    assert driver.start().kind == "turn-end"
    assert driver.send("first").kind == "turn-end"
    last = driver.send("second")
    assert last.kind == "turn-end"
    driver.finish(last)
    assert replies(driver) == ["turn 1: first (before: nothing)", "turn 2: second (before: first)"]
    assert driver.log.turns == 2 and driver.log.exit_code == 0 and driver.log.failure is None
    records = [json.loads(x) for x in driver.launch.state.log.read_text().splitlines()]
    assert {r["from"] for r in records} == {"client", "agent"}
    methods = [r["message"].get("method") for r in records if r["from"] == "client"]
    assert methods[:2] == ["initialize", "session/new"]
    assert methods.count("session/prompt") == 2
    trajectory = AcpAgent().parse(driver.launch.state.log)
    assert trajectory.session_id == "sess-1" and trajectory.agent_version == "9.9.9"


def test_the_log_holds_the_bytes_exactly_as_they_crossed_the_pipe(
    tmp_path: Path, drivers: list[AcpDriver]
) -> None:
    driver = open_driver(tmp_path, drivers)
    driver.start()
    driver.send("print")
    driver.close()
    lines = driver.launch.state.log.read_bytes().splitlines()
    stray = [r for r in map(json.loads, lines) if "message" not in r]
    assert stray == [{"ts": stray[0]["ts"], "from": "agent", "text": "warming up, not JSON"}]
    prompt = next(x for x in lines if b'"session/prompt"' in x)
    raw = prompt[prompt.index(b'"message":') + len(b'"message":') : -1]
    assert raw.startswith(b'{"jsonrpc":"2.0","id":2,"method":"session/prompt"')
    assert json.loads(raw)["params"]["prompt"] == [{"type": "text", "text": "print"}]


def test_a_permission_request_is_answered_by_the_policy(
    tmp_path: Path, drivers: list[AcpDriver]
) -> None:
    driver = open_driver(tmp_path, drivers, rules="^touch => Allow")
    driver.start()
    assert driver.send("touch made.txt").kind == "turn-end"
    assert (driver.launch.cwd / "made.txt").read_text() == "touched\n"
    [asked] = driver.log.questions
    assert (asked.question, asked.options) == ("touch made.txt", ["Allow", "Reject"])
    assert (asked.answer, asked.policy, asked.where) == ("Allow", "rule", "mid-turn")
    assert replies(driver)[-1] == "touch made.txt: completed"


def test_control_a_policy_that_rejects_makes_the_call_fail(
    tmp_path: Path, drivers: list[AcpDriver]
) -> None:
    driver = open_driver(tmp_path, drivers, rules="^touch => Reject")
    driver.start()
    assert driver.send("touch made.txt").kind == "turn-end"
    assert not (driver.launch.cwd / "made.txt").exists()
    events = AcpAgent().parse(driver.launch.state.log).events
    result = next(e for e in events if e.type == "tool_result")
    assert (result.is_error, result.denied) == (False, True)


def test_an_unanswered_request_stays_pending_and_the_next_send_answers_it(
    tmp_path: Path, drivers: list[AcpDriver]
) -> None:
    driver = open_driver(tmp_path, drivers)  # no rule, no model: the policy cannot answer
    driver.start()
    parked = driver.send("touch later.txt")
    assert parked.kind == "unanswered" and parked.question is not None
    assert parked.question.text == "touch later.txt"
    assert driver.log.questions[0].answer is None
    assert not (driver.launch.cwd / "later.txt").exists()  # the agent still waits
    events = AcpAgent().parse(driver.launch.state.log).events
    assert [e.type for e in events][-2:] == ["tool_call", "question"]
    assert driver.send("Allow").kind == "turn-end"
    assert (driver.launch.cwd / "later.txt").exists()
    assert driver.send("and then?").kind == "turn-end"
    assert replies(driver)[-1] == "turn 2: and then? (before: touch later.txt)"


def test_a_message_that_names_no_option_rejects_and_is_sent_next(
    tmp_path: Path, drivers: list[AcpDriver]
) -> None:
    driver = open_driver(tmp_path, drivers)
    driver.start()
    assert driver.send("touch later.txt").kind == "unanswered"
    assert driver.send("never mind, say hi").kind == "turn-end"
    assert not (driver.launch.cwd / "later.txt").exists()
    assert replies(driver)[-2:] == [
        "touch later.txt: failed",
        "turn 2: never mind, say hi (before: touch later.txt)",
    ]


def test_an_agent_that_dies_mid_turn_has_exited(tmp_path: Path, drivers: list[AcpDriver]) -> None:
    driver = open_driver(tmp_path, drivers)
    driver.start()
    outcome = driver.send("crash")
    driver.finish(outcome)
    assert outcome.kind == "exited" and driver.log.exit_code == 3


def test_a_turn_over_the_step_budget_is_stopped(tmp_path: Path, drivers: list[AcpDriver]) -> None:
    started = launch(tmp_path)
    watch = BudgetWatch(AcpAgent(), started, StepBudget(max_tool_calls=2), poll_sec=0.05)
    driver = AcpDriver(AcpAgent(), started, None, time.monotonic() + 30, tmp_path / "e", watch)
    drivers.append(driver)
    driver.start()
    assert driver.send("calls 2").kind == "turn-end"  # control: at the budget is not over it
    outcome = driver.send("calls 20")
    assert outcome.kind == "over-budget"
    assert driver.log.stopped == "proctor stopped the agent: 3 tool calls > maxToolCalls 2"
    assert driver.process is not None and driver.process.poll() is not None


def test_a_failed_prompt_names_the_agents_error(tmp_path: Path, drivers: list[AcpDriver]) -> None:
    driver = open_driver(tmp_path, drivers)
    driver.start()
    assert driver.send("fail").kind == "exited"
    assert driver.log.failure is not None and "model unavailable" in driver.log.failure


def test_a_turn_that_never_ends_times_out_and_the_agent_is_stopped(
    tmp_path: Path, drivers: list[AcpDriver]
) -> None:
    driver = open_driver(tmp_path, drivers, seconds=3)
    driver.start()
    started = time.monotonic()
    assert driver.send("hang").kind == "timeout"
    assert time.monotonic() - started < 10
    assert driver.process is not None and driver.process.poll() is not None
    client = [json.loads(x) for x in driver.launch.state.log.read_text().splitlines()]
    assert any(r.get("message", {}).get("method") == "session/cancel" for r in client)


def test_authentication_when_the_agent_asks_and_the_profiles_mode(
    tmp_path: Path, drivers: list[AcpDriver]
) -> None:
    driver = open_driver(tmp_path, drivers, "--needs-auth", mode="yolo")
    assert driver.start().kind == "turn-end"
    driver.send("hello")
    assert replies(driver) == ["[mode yolo] turn 1: hello (before: nothing)"]


def test_control_a_mode_the_agent_does_not_offer_fails_the_start(
    tmp_path: Path, drivers: list[AcpDriver]
) -> None:
    driver = open_driver(tmp_path, drivers, mode="turbo")
    assert driver.start().kind == "exited"
    assert driver.log.failure is not None
    assert "permissionMode 'turbo' is not one of the agent's session modes (default, yolo)" in (
        driver.log.failure
    )


def test_a_program_that_is_no_acp_agent_fails_the_start(
    tmp_path: Path, drivers: list[AcpDriver]
) -> None:
    started = launch(tmp_path)
    started.argv = [sys.executable, "-c", "print('hello')"]
    driver = AcpDriver(AcpAgent(), started, None, time.monotonic() + 10, tmp_path / "err.log")
    drivers.append(driver)
    assert driver.start().kind == "exited"
    assert driver.log.failure is not None and "could not open a session" in driver.log.failure


def test_close_is_safe_twice_and_before_start(tmp_path: Path) -> None:
    driver = AcpDriver(AcpAgent(), launch(tmp_path), None, time.monotonic() + 5, tmp_path / "e")
    driver.close()
    driver.close()
    other: Any = AcpDriver(AcpAgent(), launch(tmp_path), None, time.monotonic() + 5, tmp_path / "e")
    other.start()
    other.close()
    other.close()
    assert other.process.poll() is not None
