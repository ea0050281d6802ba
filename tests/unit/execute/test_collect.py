"""The collect phase's pure parts: questions merged into the trajectory, and the CLI's own token
report checked against the transcript's."""

from __future__ import annotations

from pathlib import Path

import pytest

from proctor.agents.protocol import Question
from proctor.drive.answering import Answer
from proctor.drive.policy import PolicyAnswer
from proctor.drive.questions import question_record
from proctor.execute.collect import merge_questions, pair_answers, usage_check
from proctor.models.trajectory import AnswerEvent, ModelUsage, Trajectory, make_event
from proctor.models.trial import QuestionRecord
from proctor.transcripts.claude import parse_claude_session
from proctor.transcripts.gemini import parse_gemini_chat


def test_repeated_turn_end_questions_are_merged_in_order() -> None:
    ask = "Shall I go on?"
    events = [
        make_event("user_message", text="go"),
        make_event("assistant_text", text=ask),
        make_event("user_message", text="yes"),
        make_event("assistant_text", text=ask),
        make_event("user_message", text="no"),
    ]
    trajectory = Trajectory(format="t", events=events)
    records = [
        question_record(Question(ask), PolicyAnswer(Answer(a, "rule")), 1.0) for a in ("yes", "no")
    ]
    merge_questions(trajectory, records)
    assert [(e.type, getattr(e, "text", None)) for e in trajectory.events] == [
        ("user_message", "go"),
        ("assistant_text", ask),
        ("question", ask),
        ("answer", "yes"),
        ("user_message", "yes"),
        ("assistant_text", ask),
        ("question", ask),
        ("answer", "no"),
        ("user_message", "no"),
    ]


def test_a_turn_end_question_with_options_is_merged_right_after_its_message() -> None:
    """A headless CLI asks in text, its options a numbered list: the record holds the question
    without the list, and its events follow the message that asked it, not the session's end."""
    ask = "Should I also update the README?\n\n1. Yes\n2. No"
    events = [
        make_event("user_message", text="go"),
        make_event("assistant_text", text=ask),
        make_event("user_message", text="No"),
        make_event("assistant_text", text="Understood."),
    ]
    trajectory = Trajectory(format="t", events=events)
    asked = Question("Should I also update the README?", ["Yes", "No"])
    merge_questions(trajectory, [question_record(asked, PolicyAnswer(Answer("No", "rule")), 1.0)])
    assert [(e.type, getattr(e, "text", None)) for e in trajectory.events] == [
        ("user_message", "go"),
        ("assistant_text", ask),
        ("question", "Should I also update the README?"),
        ("answer", "No"),
        ("user_message", "No"),
        ("assistant_text", "Understood."),
    ]


def test_a_mid_turn_answer_gets_the_policy_that_gave_it() -> None:
    events = [make_event("question", id="q", text="Which?"), make_event("answer", id="q", text="A")]
    trajectory = Trajectory(format="t", events=events)
    asked = question_record(
        Question("Which?", ["A"]), PolicyAnswer(Answer("A", "rule")), 1.0, "mid-turn"
    )
    merge_questions(trajectory, [asked])
    assert trajectory.events[1].policy == "rule"  # type: ignore[union-attr]


def _record(question: Question, answer: str, policy: str) -> QuestionRecord:
    decided = PolicyAnswer(Answer(answer, policy))  # type: ignore[arg-type]
    return question_record(question, decided, 1.0, "mid-turn")


def _policies(trajectory: Trajectory) -> list[tuple[str | None, str | None]]:
    return [(e.id, e.policy) for e in trajectory.events if isinstance(e, AnswerEvent)]


def test_an_approval_the_transcript_has_no_answer_for_takes_no_answer_event() -> None:
    """Claude Code over a terminal: a permission prompt (answered by the model), then an
    AskUserQuestion (answered by a rule). Only the question has an answer in the transcript,
    and it gets the rule's policy: not the approval's."""
    events = [
        make_event("tool_call", id="b1", name="Bash"),
        make_event("tool_result", id="b1"),
        make_event("question", id="q1", text="Which colour?", options=["Blue", "Red"]),
        make_event("answer", id="q1", text="Blue"),
    ]
    trajectory = Trajectory(format="t", events=events)
    approval = _record(
        Question("Do you want to proceed?", ["Yes", "No"], kind="permission"), "Yes", "model"
    )
    asked = _record(Question("Which colour?", ["Blue", "Red"], "q1"), "Blue", "rule")
    merge_questions(trajectory, [approval, asked])
    assert _policies(trajectory) == [("q1", "rule")]


def test_without_ids_an_answer_is_paired_by_its_question_text() -> None:
    events = [
        make_event("question", id="q1", text="Which  colour\nshall I use?"),
        make_event("answer", id="q1", text="Blue"),
    ]
    trajectory = Trajectory(format="t", events=events)
    approval = _record(Question("Run `ls`?", ["Yes", "No"]), "Yes", "model")  # kind unknown
    asked = _record(Question("which colour shall I use?"), "Blue", "rule")
    merge_questions(trajectory, [approval, asked])
    assert _policies(trajectory) == [("q1", "rule")]


def test_answers_are_paired_by_id_whatever_their_order() -> None:
    events = [
        make_event("question", id="q1", text="First?"),
        make_event("answer", id="q1", text="A"),
        make_event("question", id="q2", text="Second?"),
        make_event("answer", id="q2", text="B"),
    ]
    trajectory = Trajectory(format="t", events=events)
    second = _record(Question("Second?", [], "q2"), "B", "model")
    first = _record(Question("Changed on screen?", [], "q1"), "A", "rule")
    merge_questions(trajectory, [second, first])
    assert _policies(trajectory) == [("q1", "rule"), ("q2", "model")]


def test_failing_id_and_text_answers_go_in_order_among_records_of_their_kind() -> None:
    """An ACP permission request's answer is a tool call's; a question's is not. A record of
    one kind never takes the other's answer."""
    events = [
        make_event("tool_call", id="t1", name="Write"),
        make_event("question", id="t1", text="Write /w/a"),
        make_event("answer", id="t1", text="Allow"),
        make_event("question", id="q1", text="Which?"),
        make_event("answer", id="q1", text="A"),
    ]
    trajectory = Trajectory(format="t", events=events)
    asked = _record(Question("Which one?"), "A", "rule")
    allowed = _record(Question("Write a", ["Allow"], kind="permission"), "Allow", "model")
    merge_questions(trajectory, [asked, allowed])
    assert _policies(trajectory) == [("t1", "model"), ("q1", "rule")]


def test_a_record_whose_id_the_transcript_lacks_takes_no_other_answer() -> None:
    events = [make_event("question", id="q2", text="Second?"), make_event("answer", id="q2")]
    trajectory = Trajectory(format="t", events=events)
    merge_questions(trajectory, [_record(Question("First?", [], "q1"), "A", "rule")])
    assert _policies(trajectory) == [("q2", None)]


SESSION = (
    Path(__file__).resolve().parents[2]
    / "fixtures/transcripts/claude-questions/8a4d3b20-0000-4000-8000-000000000002.jsonl"
)
COLOR, SIZE = "Which color should the button be?", "Which size should the button be?"


@pytest.mark.parametrize("reverse", [False, True])
def test_each_question_of_a_call_pairs_with_its_own_answer(reverse: bool) -> None:
    """Claude Code over a terminal: one AskUserQuestion call with two questions draws two
    pickers, recorded on two lines with the call's id; each record gets the answer event of its
    own question (by id and text, in whatever order the records come)."""
    trajectory = parse_claude_session(SESSION)
    color = _record(Question(COLOR, ["Red", "Blue"], "toolu_ask1"), "Blue", "rule")
    size = _record(Question(SIZE, ["Small", "Large"], "toolu_ask1"), "Large", "model")
    records = [size, color] if reverse else [color, size]
    assert [(a.text, r.question) for a, r in pair_answers(trajectory.events, records)] == [
        ("Blue", COLOR),
        ("Large", SIZE),
    ]
    merge_questions(trajectory, records)
    policies = [(e.id, e.text, e.policy) for e in trajectory.events if isinstance(e, AnswerEvent)]
    assert policies[:2] == [("toolu_ask1", "Blue", "rule"), ("toolu_ask1", "Large", "model")]


def test_a_record_of_a_refused_call_pairs_with_its_own_questions_answer() -> None:
    """A call refused at its second picker: the first question's record and the second's each
    pair with their own question's answer event (both the refusal's text)."""
    trajectory = parse_claude_session(SESSION)
    asked = ["Should the button have a border?", "Should the button be rounded?"]
    records = [
        _record(Question(asked[1], ["Yes", "No"], "toolu_ask2"), "", "abort"),
        _record(Question(asked[0], ["Yes", "No"], "toolu_ask2"), "Yes", "rule"),
    ]
    merge_questions(trajectory, records)
    policies = [e.policy for e in trajectory.events if isinstance(e, AnswerEvent)]
    assert policies == [None, None, "rule", "abort"]


GEMINI_CHAT = (
    Path(__file__).resolve().parents[2]
    / "fixtures/transcripts/gemini-questions/tmp/workspace/chats"
    / "session-2026-12-07T14-32-a1a59672.jsonl"
)


@pytest.mark.parametrize("reverse", [False, True])
def test_each_ask_user_question_pairs_with_its_own_answer_by_text(reverse: bool) -> None:
    """Gemini CLI over a terminal: its ask_user pickers are recorded with no tool call id, one
    line per question; each takes the answer event of the question with its text, in whatever
    order the lines come."""
    trajectory = parse_gemini_chat(GEMINI_CHAT)
    asked = [
        (Question("Which color?", ["Red", "Blue"]), "Blue", "rule"),
        (Question("Which size?", ["Yes", "No"]), "Medium, please", "model"),
        (Question("Which font?", []), "", "abort"),
        (Question("Add a border?", ["Yes", "No"]), "Yes", "rule"),
    ]
    records = [_record(*a) for a in asked]
    merge_questions(trajectory, records[::-1] if reverse else records)
    policies = [(e.text, e.policy) for e in trajectory.events if isinstance(e, AnswerEvent)]
    assert policies == [
        ("Blue", "rule"),
        ("Medium, please", "model"),
        ('{"answers":{"1":"Yes"}}', "abort"),
        ("Yes", "rule"),
    ]


GEMINI_DISMISSED = (
    Path(__file__).resolve().parents[2]
    / "fixtures/transcripts/gemini-dismissed/tmp/workspace/chats"
    / "session-2026-12-07T14-49-df75785f.jsonl"
)


def test_the_record_of_a_dismissed_ask_user_picker_pairs_with_its_questions_answer() -> None:
    """Gemini CLI's ask_user picker dismissed (Esc) at its first question: the question's
    record pairs with that question's answer event (the refusal's text), as a refused
    AskUserQuestion's does."""
    trajectory = parse_gemini_chat(GEMINI_DISMISSED)
    merge_questions(trajectory, [_record(Question("Which color?", ["Red", "Blue"]), "Esc", "rule")])
    policies = [(e.text, e.policy) for e in trajectory.events if isinstance(e, AnswerEvent)]
    refusal = "[Operation Cancelled] Reason: User denied execution."
    assert policies == [(refusal, "rule"), (refusal, None)]


def test_ask_user_questions_read_otherwise_on_screen_pair_in_order() -> None:
    """Lines whose question is not the transcript's (read off a screen otherwise) take the
    answer events of the questions asked in order."""
    trajectory = parse_gemini_chat(GEMINI_CHAT)
    records = [
        _record(Question(f"Question {n}?", []), "x", policy)
        for n, policy in enumerate(("rule", "model", "abort", "rule"))
    ]
    merge_questions(trajectory, records)
    policies = [e.policy for e in trajectory.events if isinstance(e, AnswerEvent)]
    assert policies == ["rule", "model", "abort", "rule"]


def test_usage_check_records_differences_and_control() -> None:
    parsed = {"m": ModelUsage(input_tokens=10, output_tokens=5)}
    same = usage_check(parsed, {"m": {"inputTokens": 10, "outputTokens": 5}})
    assert same.ok and same.differences == {}
    off = usage_check(parsed, {"m": {"inputTokens": 10, "outputTokens": 9}})
    assert not off.ok and off.differences == {"m": {"outputTokens": 4}}
    missing = usage_check(parsed, {"other": {"inputTokens": 1}})
    assert missing.differences == {
        "m": {"inputTokens": -10, "outputTokens": -5},
        "other": {"inputTokens": 1},
    }


def test_an_approval_before_a_question_whose_call_the_transcript_holds_takes_no_answer() -> None:
    """The question tool's call, question and answer events share one id (Claude Code's
    AskUserQuestion, Codex's request_user_input, Gemini's ask_user): its answer is a
    question's, not a permission's, so the approval before it (no id, no answer in the
    transcript) does not give it its policy, nor does a question record read from the last
    line of a question wrapped on screen lose its own."""
    events = [
        make_event("tool_call", id="c1", name="AskUserQuestion", kind="question"),
        make_event("question", id="c1", text="Which colour shall I use for the spring campaign?"),
        make_event("tool_result", id="c1"),
        make_event("answer", id="c1", text="Blue"),
    ]
    for asked_text in ("Which colour?", "for the spring campaign?"):
        trajectory = Trajectory(format="t", events=[e.model_copy() for e in events])
        approval = _record(
            Question("Do you want to proceed?", ["Yes", "No"], kind="permission"), "Yes", "model"
        )
        asked = _record(Question(asked_text, ["Blue", "Red"]), "Blue", "rule")
        merge_questions(trajectory, [approval, asked])
        assert _policies(trajectory) == [("c1", "rule")], asked_text


def test_an_approval_worded_as_the_end_of_a_question_does_not_take_its_answer() -> None:
    events = [
        make_event("tool_call", id="c1", name="AskUserQuestion", kind="question"),
        make_event("question", id="c1", text="I've drafted the migration. Do you want to proceed?"),
        make_event("answer", id="c1", text="Yes"),
    ]
    trajectory = Trajectory(format="t", events=events)
    approval = _record(
        Question("Do you want to proceed?", ["Yes", "No"], kind="permission"), "Yes", "model"
    )
    asked = _record(Question("Do you want to proceed?", ["Yes", "No"]), "Yes", "rule")
    merge_questions(trajectory, [approval, asked])
    assert _policies(trajectory) == [("c1", "rule")]
