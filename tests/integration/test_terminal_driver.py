"""The terminal driver's basic operation: send a message, wait for the turn to end, answer
questions on the way, send again in the same session."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from proctor.agents.protocol import (
    AgentState,
    Launch,
    LaunchContext,
    NotChosen,
    Question,
    Terminal,
)
from proctor.agents.scripted import ScriptedAgent
from proctor.agents.terminal import answer_picker, option_index
from proctor.discover.qna import parse_qna_rules
from proctor.drive.policy import AnswerPolicy
from proctor.drive.terminal_driver import TerminalDriver
from proctor.models.config import AgentProfile
from proctor.models.trajectory import TurnEnd


class PickerAgent(ScriptedAgent):
    """The scripted agent, answering as a picker without a free-text entry does: an answer
    that names none of the options chooses nothing."""

    def answer(
        self, terminal: Terminal, launch: Launch[Any], question: Question, text: str
    ) -> bool:
        if option_index(question.options, text) is None:
            return False
        return super().answer(terminal, launch, question, text)


def start(
    tmp_path: Path, plan: dict[str, object], rules: str = "", adapter: ScriptedAgent | None = None
) -> TerminalDriver:
    adapter = adapter or ScriptedAgent()
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
    policy = AnswerPolicy(parse_qna_rules(rules), rules, "task")
    return TerminalDriver(adapter, launch, policy, time.monotonic() + 20)


def text_of(event: object) -> str | None:
    return None if isinstance(event, TurnEnd) else getattr(event, "text", None)


def test_three_messages_in_one_session(tmp_path: Path) -> None:
    plan = {"turns": [{"say": "first"}, {"endTurn": True}, {"say": "second"}]}
    driver = start(tmp_path, plan)
    try:
        assert driver.start().kind == "turn-end"
        assert driver.send("message one").kind == "turn-end"
        assert driver.send("message two").kind == "turn-end"
        third = driver.send("anything else?")
        assert third.kind == "turn-end" and driver.log.turns == 3
        driver.finish(third)
        assert driver.log.exit_code == 0
    finally:
        driver.close()
    assert driver.launch.transcript is not None
    trajectory = driver.adapter.parse(driver.launch.transcript)
    kinds = [(e.type, text_of(e)) for e in trajectory.events if e.type != "usage"]
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
    assert driver.log.terminal and "message two" in driver.log.screen


def test_multiline_prompt_arrives_whole(tmp_path: Path) -> None:
    driver = start(tmp_path, {"turns": [{"say": "ok"}]})
    prompt = "line one\nline two\n\n" + "x" * 6000
    try:
        driver.start()
        assert driver.send(prompt).kind == "turn-end"
    finally:
        driver.close()
    assert driver.launch.transcript is not None
    events = driver.adapter.parse(driver.launch.transcript).events
    assert events[0].type == "user_message" and events[0].text == prompt


def test_question_mid_turn_is_answered_and_recorded(tmp_path: Path) -> None:
    plan = {
        "turns": [{"ask": "Proceed with the migration?", "options": ["Yes", "No"]}, {"say": "k"}]
    }
    driver = start(tmp_path, plan, "```rules\nmigration => Yes\n```\n")
    try:
        driver.start()
        assert driver.send("go").kind == "turn-end"
        screen = driver.session.screen_text() if driver.session else ""
    finally:
        driver.close()
    assert [(q.question, q.answer, q.policy) for q in driver.log.questions] == [
        ("Proceed with the migration?", "Yes", "rule")
    ]
    assert "answer> Yes" in screen


def test_a_question_no_rule_answers_ends_the_turn_unanswered(tmp_path: Path) -> None:
    plan = {"turns": [{"ask": "Delete the database?", "options": ["Yes", "No"]}]}
    driver = start(tmp_path, plan)
    try:
        driver.start()
        outcome = driver.send("go")
    finally:
        driver.close()
    assert outcome.kind == "unanswered" and outcome.question is not None
    assert outcome.question.text == "Delete the database?"


def test_an_answer_naming_no_option_chooses_nothing_and_is_unanswered(tmp_path: Path) -> None:
    plan = {"turns": [{"ask": "Run rm -rf build?", "options": ["Yes, proceed", "No, stop"]}]}
    driver = start(tmp_path, plan, "```rules\n(?i)rm => Maybe later\n```\n", PickerAgent())
    try:
        driver.start()
        outcome = driver.send("go")
    finally:
        driver.close()
    assert outcome.kind == "unanswered", outcome
    assert outcome.detail == (
        'the answer "Maybe later" is none of its options ("Yes, proceed", "No, stop")'
    )
    [record] = driver.log.questions
    assert (record.answer, record.policy, record.rule) == (None, "abort", "(?i)rm => Maybe later")
    assert record.reason == outcome.detail + "; nothing was chosen"


class DroppingAgent(ScriptedAgent):
    """The scripted agent as a program that does not number its questions (Gemini CLI's
    pickers) and drops every answer: the question stays on screen, redrawn and unchanged."""

    def __init__(self) -> None:
        super().__init__()
        self.answers: list[str] = []

    def state(self, terminal: Terminal, launch: Launch[Any]) -> AgentState:
        state = super().state(terminal, launch)
        return AgentState("question") if state.kind == "question" else state

    def answer(
        self, terminal: Terminal, launch: Launch[Any], question: Question, text: str
    ) -> bool:
        self.answers.append(text)
        return True


def test_a_question_whose_answer_does_not_take_is_recorded_once(tmp_path: Path) -> None:
    """Still on screen after its answer, the question is the same one: answered again a few
    times, recorded once, then the turn ends unanswered and its record says so."""
    plan = {"turns": [{"ask": "Which color?", "options": ["Red", "Blue"]}, {"say": "k"}]}
    adapter = DroppingAgent()
    driver = start(tmp_path, plan, "```rules\ncolor => Blue\n```\n", adapter)
    try:
        driver.start()
        outcome = driver.send("go")
    finally:
        driver.close()
    assert outcome.kind == "unanswered", outcome
    assert adapter.answers == ["Blue"] * 3
    detail = 'the answer "Blue" did not take: the question was still shown after 3 tries'
    assert outcome.detail == detail
    [record] = driver.log.questions
    assert (record.question, record.answer, record.policy) == ("Which color?", None, "abort")
    assert record.reason == detail + "; nothing more was pressed"


class RefusingAgainAgent(DroppingAgent):
    """Drops the first answer; the picker, still shown, then does not take it again."""

    def answer(
        self, terminal: Terminal, launch: Launch[Any], question: Question, text: str
    ) -> bool:
        super().answer(terminal, launch, question, text)
        if len(self.answers) > 1:
            raise NotChosen("the cursor did not reach its entry")
        return True


def test_an_answer_given_again_but_not_chosen_ends_the_turn_with_its_reason(
    tmp_path: Path,
) -> None:
    plan = {"turns": [{"ask": "Which color?", "options": ["Red", "Blue"]}, {"say": "k"}]}
    adapter = RefusingAgainAgent()
    driver = start(tmp_path, plan, "```rules\ncolor => Blue\n```\n", adapter)
    try:
        driver.start()
        outcome = driver.send("go")
    finally:
        driver.close()
    assert outcome.kind == "unanswered", outcome
    assert adapter.answers == ["Blue"] * 2
    detail = 'the answer "Blue" did not take after 2 tries: the cursor did not reach its entry'
    assert outcome.detail == detail
    [record] = driver.log.questions
    assert (record.answer, record.policy) == (None, "abort")
    assert record.reason == detail + "; nothing more was pressed"


class ChangingAgent(DroppingAgent):
    """An agent whose question changes at each answer (a new picker every time, never
    numbered): only the turn's deadline ends it."""

    def pending_question(
        self, terminal: Terminal, launch: Launch[Any], deadline: float = float("inf")
    ) -> Question | None:
        return Question(f"Which color, try {len(self.answers) + 1}?", ["Red", "Blue"], None)


def test_a_question_that_changes_at_each_answer_ends_at_the_deadline(tmp_path: Path) -> None:
    """Each answer brings another question: the turn still ends when its time is up."""
    plan = {"turns": [{"ask": "Which color?", "options": ["Red", "Blue"]}, {"say": "k"}]}
    adapter = ChangingAgent()
    driver = start(tmp_path, plan, "```rules\ncolor => Blue\n```\n", adapter)
    try:
        driver.start()
        driver.deadline = time.monotonic() + 2
        outcome = driver.send("go")
    finally:
        driver.close()
    assert outcome.kind == "timeout", outcome
    assert len(adapter.answers) >= 1


class Stopped(Exception):
    pass


def test_a_turn_cut_short_keeps_the_screen_it_showed(tmp_path: Path) -> None:
    """A stop signal mid-turn (Ctrl-C): closing the driver keeps the screen as it was then and
    every byte written, not an empty screen."""
    driver = start(tmp_path, {"turns": [{"say": "working on it"}, {"sleep": 20}]})
    assert driver.start().kind == "turn-end"

    def stop_once_shown() -> None:
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if driver.session is not None and b"working on it" in bytes(driver.session.raw):
                break
            time.sleep(0.02)
        os.kill(os.getpid(), signal.SIGALRM)

    def stopped(signum: int, frame: object) -> None:
        raise Stopped

    old = signal.signal(signal.SIGALRM, stopped)
    watcher = threading.Thread(target=stop_once_shown)
    watcher.start()
    try:
        with pytest.raises(Stopped):
            driver.send("go")
    finally:
        watcher.join()
        signal.signal(signal.SIGALRM, old)
        driver.close()
    assert "working on it" in driver.log.screen
    assert b"working on it" in driver.log.terminal


class StuckPickerAgent(ScriptedAgent):
    """The scripted agent, answering as a picker whose cursor cannot be read does."""

    def answer(
        self, terminal: Terminal, launch: Launch[Any], question: Question, text: str
    ) -> bool:
        return answer_picker(terminal, question.options, text, lambda s: None, lambda s: question)


def test_an_answer_the_picker_did_not_take_is_recorded_once_and_unanswered(
    tmp_path: Path,
) -> None:
    """A picker whose cursor proctor could not move is not taken as answered: the question is
    recorded once, unanswered, saying why, and the turn ends there (not at the trial's
    timeout, with a record for every look at the picker)."""
    plan = {"turns": [{"ask": "Run rm -rf build?", "options": ["Yes, proceed", "No, stop"]}]}
    driver = start(tmp_path, plan, "```rules\n(?i)rm => No, stop\n```\n", StuckPickerAgent())
    try:
        driver.start()
        driver.deadline = time.monotonic() + 5
        outcome = driver.send("go")
    finally:
        driver.close()
    assert outcome.kind == "unanswered", outcome
    assert (
        outcome.detail == 'the answer "No, stop" was not chosen: the cursor did not reach its entry'
    )
    [record] = driver.log.questions
    assert (record.answer, record.policy, record.reason) == (None, "abort", outcome.detail)
