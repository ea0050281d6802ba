"""Two user turns in one session, on every real CLI, headless and in its terminal UI: the driver
sends the second message into the same conversation (headless by resuming the session, in the
TUI by typing it), and the parsed transcript holds both."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from proctor.agents.base import adapter_for
from proctor.agents.protocol import LaunchContext
from proctor.discover.qna import parse_qna_rules
from proctor.drive.driver import Driver
from proctor.drive.headless import HeadlessDriver
from proctor.drive.policy import AnswerPolicy
from proctor.drive.terminal_driver import TerminalDriver
from proctor.execute.collect import usage_check
from proctor.models.config import AgentProfile
from proctor.models.trajectory import AssistantText, UserMessage
from proctor.scripted.server import ScriptedModelServer
from proctor.workspace.environment import agent_environment
from tests.contract.conftest import require_cli

PLAN: dict[str, Any] = {
    "turns": [
        {"write": {"path": "one.txt", "content": "1\n"}},
        {"say": "First turn done."},
        {"endTurn": True},
        {"shell": "cat one.txt"},
        {"say": "Second turn done."},
    ]
}
SESSION = "0c9a6a3e-5d0f-4f0e-9d4c-2b7f3c1e8a01"


def session(agent: str, mode: str, tmp_path: Path, base_url: str) -> Driver:
    adapter = adapter_for(agent, {})
    workspace, home = tmp_path / "ws", tmp_path / "home"
    workspace.mkdir()
    home.mkdir()
    launch = adapter.prepare(
        LaunchContext(
            workspace=workspace,
            home=home,
            scratch=tmp_path,
            env=agent_environment(os.environ, home=home),
            profile=AgentProfile(),
            plan=PLAN,
            repeat=1,
            session_id=SESSION,
            mode=mode,  # type: ignore[arg-type]
            model_base_url=base_url,
            trial_dir=tmp_path,
        )
    )
    deadline = time.monotonic() + 120
    if launch.mode == "headless":
        return HeadlessDriver(
            adapter, launch, deadline, tmp_path / "out.jsonl", tmp_path / "err.log"
        )
    rules = "```rules\n.* => Allow once\n```\n"  # Gemini CLI's TUI confirms each tool
    policy = AnswerPolicy(parse_qna_rules(rules), rules, "task")
    return TerminalDriver(adapter, launch, policy, deadline)


@pytest.mark.parametrize("mode", ["headless", "interactive"])
@pytest.mark.parametrize("agent", ["claude-code", "codex", "gemini-cli"])
def test_two_user_turns_in_one_session(agent: str, mode: str, tmp_path: Path) -> None:
    require_cli(agent)
    server = ScriptedModelServer(PLAN, log_path=tmp_path / "requests.jsonl")
    server.start()
    driver = session(agent, mode, tmp_path, server.base_url)
    try:
        assert driver.start().kind == "turn-end"
        first = driver.send("Write one.txt.")
        assert first.kind == "turn-end", (driver.log.failure, driver.screen_excerpt())
        second = driver.send("Now show it.")
        assert second.kind == "turn-end", (driver.log.failure, driver.screen_excerpt())
        driver.finish(second)
    finally:
        driver.close()
        server.stop()
    adapter = driver.adapter  # type: ignore[attr-defined]
    files = adapter.transcript_files(driver.launch)  # type: ignore[attr-defined]
    assert files, "no transcript"
    trajectory = adapter.parse(files[0])
    events = trajectory.events
    users = [e.text.strip() for e in events if isinstance(e, UserMessage)]
    said = [e.text.strip() for e in events if isinstance(e, AssistantText)]
    assert users == ["Write one.txt.", "Now show it."]
    assert "First turn done." in said and "Second turn done." in said
    assert said.index("First turn done.") < said.index("Second turn done.")
    assert driver.log.turns == 2 and driver.log.exit_code == 0
    if mode == "headless":
        # Each resumed turn's report adds up (Codex reports the thread's totals so far) to the
        # tokens the transcript counts over both turns.
        check = usage_check(trajectory.usage, driver.log.reported_usage)
        assert all(not check.differences.get(model) for model in trajectory.usage), check


@pytest.mark.parametrize("agent", ["claude-code", "codex", "gemini-cli"])
def test_a_headless_question_with_options_is_answered_by_resuming(
    agent: str, run_cli: Callable[..., dict[str, Any]]
) -> None:
    # Headless, a CLI has no question tool: the question arrives as the turn's last text, its
    # options as a numbered list; the rule's answer is sent by resuming the session.
    require_cli(agent)
    plan = {
        "turns": [
            {"ask": "Should I also add tests?", "options": ["Yes", "No"]},
            {"write": {"path": "tests.txt", "content": "tests\n"}},
            {"say": "Added them."},
        ]
    }
    out = run_cli(
        agent,
        plan,
        qna="```rules\n(?i)add tests => Yes\n```\n",
        config={"evaluators": [{"use": "file-exists", "must": ["tests.txt"]}]},
    )
    trial = out["trial"]
    assert trial["status"] == "passed", trial["reason"]
    assert (trial["timings"]["turnsTotal"], trial["timings"]["questionTurns"]) == (2, 1)
    (asked,) = [json.loads(x) for x in (out["dir"] / "questions.jsonl").read_text().splitlines()]
    assert (asked["question"], asked["options"], asked["answer"]) == (
        "Should I also add tests?",
        ["Yes", "No"],
        "Yes",
    )
    # Its question and answer events follow the message that asked, before the answer is sent.
    kinds = [(e["type"], (e.get("text") or "").strip()) for e in out["events"]]
    kinds = [k for k in kinds if k[0] in ("assistant_text", "question", "answer", "user_message")]
    at = kinds.index(("question", "Should I also add tests?"))
    assert kinds[at - 1][0] == "assistant_text" and kinds[at - 1][1].startswith("Should I")
    assert kinds[at + 1 : at + 3] == [("answer", "Yes"), ("user_message", "Yes")]
