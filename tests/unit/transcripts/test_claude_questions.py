"""An AskUserQuestion call that asks several questions (a hand-made Claude Code 2.1.197 session:
one call answered, one refused): a ``question`` and an ``answer`` event for each question, in the
order asked, each answer its own question's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from proctor.transcripts.claude import parse_claude_lines, parse_claude_session

SESSION = (
    Path(__file__).resolve().parents[2]
    / "fixtures/transcripts/claude-questions/8a4d3b20-0000-4000-8000-000000000002.jsonl"
)
COLOR, SIZE = "Which color should the button be?", "Which size should the button be?"


def test_each_question_of_a_call_has_its_own_question_and_answer_events() -> None:
    events = parse_claude_session(SESSION).events
    asked = [(e.id, e.text, e.options) for e in events if e.type == "question"]
    assert asked[:2] == [
        ("toolu_ask1", COLOR, ["Red", "Blue"]),
        ("toolu_ask1", SIZE, ["Small", "Large"]),
    ]
    answers = [(e.id, e.text) for e in events if e.type == "answer"]
    assert answers[:2] == [("toolu_ask1", "Blue"), ("toolu_ask1", "Large")]
    kinds = [e.type for e in events if getattr(e, "id", None) == "toolu_ask1"]
    assert kinds == ["tool_call", "question", "question", "tool_result", "answer", "answer"]


def test_a_refused_call_answers_each_of_its_questions_with_the_refusal() -> None:
    events = parse_claude_session(SESSION).events
    asked = [e.text for e in events if e.type == "question" and e.id == "toolu_ask2"]
    assert asked == ["Should the button have a border?", "Should the button be rounded?"]
    refusal = next(e for e in events if e.type == "tool_result" and e.id == "toolu_ask2")
    assert refusal.denied
    answers = [e.text for e in events if e.type == "answer" and e.id == "toolu_ask2"]
    assert answers == [refusal.output, refusal.output]


def _call_and_result(answers: object) -> list[str]:
    questions = [{"question": COLOR}, {"question": SIZE}]
    block = {"type": "tool_use", "id": "q1", "name": "AskUserQuestion"}
    call = {
        "type": "assistant",
        "message": {"content": [{**block, "input": {"questions": questions}}]},
    }
    result = {"type": "tool_result", "tool_use_id": "q1", "content": "answered"}
    said = {"type": "user", "toolUseResult": {"answers": answers}, "message": {"content": [result]}}
    return [json.dumps(call), json.dumps(said)]


@pytest.mark.parametrize(
    ("answers", "texts"),
    [
        ({SIZE: "Large", COLOR: "Blue"}, ["Blue", "Large"]),  # by text, whatever their order
        ({SIZE: "Large"}, ["answered", "Large"]),  # one left unanswered: the result's text
        ({"Colour?": "Blue"}, ["Blue", "answered"]),  # named otherwise: the first is the first's
        ("Blue", ["answered", "answered"]),
    ],
)
def test_each_answer_is_found_by_its_questions_text(answers: object, texts: list[str]) -> None:
    events = parse_claude_lines(_call_and_result(answers)).events
    assert [e.text for e in events if e.type == "answer"] == texts


def test_the_questions_of_an_input() -> None:
    from proctor.transcripts.kinds import chosen_answers, questions_of

    assert questions_of({"questions": [{"question": "A?", "options": ["x"]}, 3, {}]}) == [
        ("A?", ["x"]),
        ("", []),
    ]
    assert questions_of({"question": "Go?", "options": [{"label": "Yes"}]}) == [("Go?", ["Yes"])]
    assert questions_of({"questions": []}) == questions_of(None) == [("", [])]
    assert chosen_answers(["A?", "B?"], {"B?": "b"}) == [None, "b"]
    assert chosen_answers(["A?", "B?"], None) == [None, None]
