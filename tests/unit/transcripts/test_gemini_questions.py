"""An ``ask_user`` call that asks several questions (a hand-made Gemini CLI 0.61 chat, in the
shape the CLI writes: one call answered in full, one with its first question left unanswered):
a ``question`` and an ``answer`` event for each question, in the order asked, each answer its
own question's, found by the question's index."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from proctor.transcripts.gemini import (
    parse_gemini_chat,
    parse_gemini_chat_plain,
    parse_gemini_lines,
)
from proctor.transcripts.gemini.questions import ask_user_answers

CHAT = (
    Path(__file__).resolve().parents[2]
    / "fixtures/transcripts/gemini-questions/tmp/workspace/chats"
    / "session-2026-12-07T14-32-a1a59672.jsonl"
)
FIRST, SECOND = "ask_user__ask_user_1796653933368_0", "ask_user__ask_user_1796653935102_0"


def test_each_question_of_a_call_has_its_own_question_and_answer_events() -> None:
    events = parse_gemini_chat(CHAT).events
    asked = [(e.id, e.text, e.options) for e in events if e.type == "question"]
    assert asked[:2] == [(FIRST, "Which color?", ["Red", "Blue"]), (FIRST, "Which size?", [])]
    answers = [(e.id, e.text) for e in events if e.type == "answer"]
    assert answers[:2] == [(FIRST, "Blue"), (FIRST, "Medium, please")]
    kinds = [e.type for e in events if getattr(e, "id", None) == FIRST]
    assert kinds == ["tool_call", "question", "question", "tool_result", "answer", "answer"]


def test_a_question_left_unanswered_is_answered_with_the_output() -> None:
    events = parse_gemini_chat(CHAT).events
    asked = [e.text for e in events if e.type == "question" and e.id == SECOND]
    assert asked == ["Which font?", "Add a border?"]
    answers = [e.text for e in events if e.type == "answer" and e.id == SECOND]
    assert answers == ['{"answers":{"1":"Yes"}}', "Yes"]


def test_the_plain_reader_gives_the_same_events() -> None:
    """The reader for a measure (events left as objects) reads the questions alike."""
    plain = parse_gemini_chat_plain(CHAT)
    full = parse_gemini_chat(CHAT)
    said = [(e["type"], e["text"]) for e in plain.events if e["type"] in ("question", "answer")]
    assert said == [(e.type, e.text) for e in full.events if e.type in ("question", "answer")]


@pytest.mark.parametrize(
    ("output", "given"),
    [
        ('{"answers":{"1":"Large","0":"Blue"}}', ["Blue", "Large"]),
        ('{"answers":{"1":"Large"}}', [None, "Large"]),
        ('{"answers":{}}', [None, None]),
        ('{"answers":{"0":["Red","Blue"]}}', ['["Red", "Blue"]', None]),
        ("User dismissed ask_user dialog without answering.", [None, None]),
        ('{"answers":', [None, None]),
        ('{"answers":"Blue"}', [None, None]),
    ],
)
def test_answers_are_found_by_index(output: str, given: list[str | None]) -> None:
    assert ask_user_answers([0, 1], output) == given


def test_an_entry_that_asks_nothing_keeps_its_index() -> None:
    """An entry of ``questions`` that is not a question object gives no ``question`` event,
    yet holds its place: each answer, keyed by its question's place, is its own question's."""
    header = {"sessionId": "s1", "projectHash": "h", "startTime": "t", "lastUpdated": "t"}
    output = json.dumps({"answers": {"1": "Blue", "2": "Large"}})
    entry = {
        "id": "ask1",
        "name": "ask_user",
        "args": {"questions": ["stray", {"question": "Which color?"}, {"question": "Which size?"}]},
        "result": [{"functionResponse": {"id": "ask1", "response": {"output": output}}}],
        "status": "success",
        "timestamp": "2026-01-01T00:00:01Z",
    }
    said = {"id": "g1", "timestamp": "2026-01-01T00:00:00Z", "type": "gemini", "content": ""}
    lines = [json.dumps(header), json.dumps({**said, "model": "gm", "toolCalls": [entry]})]
    events = parse_gemini_lines(lines).events
    pairs = [e.text for e in events if e.type in ("question", "answer")]
    assert pairs == ["Which color?", "Which size?", "Blue", "Large"]


DISMISSED = (
    Path(__file__).resolve().parents[2]
    / "fixtures/transcripts/gemini-dismissed/tmp/workspace/chats"
    / "session-2026-12-07T14-49-df75785f.jsonl"
)
"""Gemini CLI 0.61 on the scripted model, in its TUI: an ``ask_user`` call of two questions
whose picker was dismissed with Esc (status ``cancelled``), the turn then cancelled."""


def test_a_dismissed_call_answers_each_of_its_questions_with_the_refusal() -> None:
    """As Claude Code's refused AskUserQuestion does: its result a denial, and an answer
    event for each question with the result's text, so a record of each pairs with one."""
    events = parse_gemini_chat(DISMISSED).events
    call = next(e for e in events if e.type == "tool_call")
    refusal = next(e for e in events if e.type == "tool_result" and e.id == call.id)
    assert (refusal.output, refusal.denied, refusal.is_error) == (
        "[Operation Cancelled] Reason: User denied execution.",
        True,
        False,
    )
    kinds = [e.type for e in events if getattr(e, "id", None) == call.id]
    assert kinds == ["tool_call", "question", "question", "tool_result", "answer", "answer"]
    answers = [e.text for e in events if e.type == "answer"]
    assert answers == [refusal.output, refusal.output]
    plain = parse_gemini_chat_plain(DISMISSED).events
    assert [e["text"] for e in plain if e["type"] == "answer"] == answers
