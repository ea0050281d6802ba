"""The collect phase's pure parts: questions merged into the trajectory, and the CLI's own token
report checked against the transcript's."""

from __future__ import annotations

from proctor.agents.protocol import Question
from proctor.drive.answering import Answer
from proctor.drive.policy import PolicyAnswer
from proctor.drive.questions import question_record
from proctor.execute.collect import merge_questions, usage_check
from proctor.models.trajectory import ModelUsage, Trajectory, make_event


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


def test_a_mid_turn_answer_gets_the_policy_that_gave_it() -> None:
    events = [make_event("question", id="q", text="Which?"), make_event("answer", id="q", text="A")]
    trajectory = Trajectory(format="t", events=events)
    asked = question_record(
        Question("Which?", ["A"]), PolicyAnswer(Answer("A", "rule")), 1.0, "mid-turn"
    )
    merge_questions(trajectory, [asked])
    assert trajectory.events[1].policy == "rule"  # type: ignore[union-attr]


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
