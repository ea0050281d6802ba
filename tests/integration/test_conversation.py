"""The driver's basic operation: send a message, wait for the turn to end, repeat."""

from __future__ import annotations

import os
import time
from pathlib import Path

from proctor.agents.base import LaunchContext
from proctor.agents.scripted import ScriptedAgent
from proctor.drive.answering import parse_qna_rules
from proctor.drive.conversation import Conversation
from proctor.drive.policy import AnswerPolicy
from proctor.drive.pty_session import PtySession
from proctor.models.config import AgentProfile


def start(tmp_path: Path, plan: dict[str, object], rules: str = "") -> Conversation:
    adapter = ScriptedAgent()
    (tmp_path / "ws").mkdir()
    launch = adapter.prepare(
        LaunchContext(
            workspace=tmp_path / "ws",
            home=tmp_path / "home",
            scratch=tmp_path,
            env=dict(os.environ, HOME=str(tmp_path / "home")),
            profile=AgentProfile(),
            plan=plan,
            repeat=1,
            session_id="11111111-2222-3333-4444-555555555555",
        )
    )
    session = PtySession(launch.argv, cwd=launch.cwd, env=launch.env)
    policy = AnswerPolicy(parse_qna_rules(rules), rules, "task")
    return Conversation(
        adapter, launch, session, lambda q, screen: policy.answer(q.text, q.options, screen)
    )


def test_two_messages_in_one_session(tmp_path: Path) -> None:
    plan = {"turns": [{"say": "first"}, {"endTurn": True}, {"say": "second"}]}
    conv = start(tmp_path, plan)
    deadline = time.monotonic() + 20
    try:
        assert conv.wait_ready(deadline).kind == "turn-end"
        assert conv.send("message one", deadline).kind == "turn-end"
        assert conv.send("message two", deadline).kind == "turn-end"
        third = conv.send("anything else?", deadline)
        assert third.kind == "turn-end" and conv.turns == 3
        conv.adapter.request_exit(conv.session)
        assert conv.session.wait_exit(time.monotonic() + 5) == 0
    finally:
        conv.session.kill()
    assert conv.launch.transcript is not None
    trajectory = conv.adapter.parse(conv.launch.transcript)
    kinds = [(e.type, e.text) for e in trajectory.events if e.type != "usage"]
    assert kinds == [
        ("user_message", "message one"),
        ("assistant_text", "first"),
        ("turn_end", None),
        ("user_message", "message two"),
        ("assistant_text", "second"),
        ("turn_end", None),
        ("user_message", "anything else?"),
        ("assistant_text", "I have nothing left in my plan."),
        ("turn_end", None),
    ]


def test_multiline_prompt_arrives_whole(tmp_path: Path) -> None:
    conv = start(tmp_path, {"turns": [{"say": "ok"}]})
    deadline = time.monotonic() + 20
    prompt = "line one\nline two\n\n" + "x" * 6000
    try:
        conv.wait_ready(deadline)
        assert conv.send(prompt, deadline).kind == "turn-end"
    finally:
        conv.session.kill()
    assert conv.launch.transcript is not None
    events = conv.adapter.parse(conv.launch.transcript).events
    assert events[0].type == "user_message" and events[0].text == prompt


def test_question_mid_turn_is_answered_and_recorded(tmp_path: Path) -> None:
    plan = {
        "turns": [{"ask": "Proceed with the migration?", "options": ["Yes", "No"]}, {"say": "k"}]
    }
    conv = start(tmp_path, plan, "```rules\nmigration => Yes\n```\n")
    deadline = time.monotonic() + 20
    try:
        conv.wait_ready(deadline)
        assert conv.send("go", deadline).kind == "turn-end"
    finally:
        conv.session.kill()
    assert [(q.question, q.answer, q.policy) for q in conv.questions] == [
        ("Proceed with the migration?", "Yes", "rule")
    ]
    assert "answer> Yes" in conv.session.screen_text()
