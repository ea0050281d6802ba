import pytest

from proctor.drive.policy import _parse_reply, classify_turn_end, looks_like_question


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Should I also update the README?", True),
        ("Done. Which option do you prefer?", True),
        ("All tests pass.", False),
        ("", False),
        ("I wondered whether x? Anyway, it works now", None),
    ],
)
def test_deterministic_question_detector(text: str, expected: bool | None) -> None:
    assert looks_like_question(text) is expected


def test_ambiguous_without_a_fast_model_is_not_a_question() -> None:
    assert classify_turn_end("I wondered whether x? Anyway, it works now", None) == (
        False,
        "default",
    )


@pytest.mark.parametrize(
    ("reply", "options", "expected"),
    [
        ('{"action": "answer", "answer": "Use SQLite"}', [], ("answer", "Use SQLite")),
        ('{"action": "approve"}', ["Yes", "No"], ("approve", "Yes")),
        (
            '{"action": "deny"}',
            ["Allow once", "No, suggest changes"],
            ("deny", "No, suggest changes"),
        ),
        ('{"action": "choose", "answer": "blue"}', ["Red", "Blue"], ("choose", "Blue")),
        ('{"action": "choose", "answer": ""}', ["Delete all", "Keep"], ("choose", "")),
        ('{"action": "choose", "answer": "no"}', ["Nope, delete it", "No"], ("choose", "No")),
        (
            '{"action": "choose", "answer": "no"}',
            ["Nope, delete it", "No, keep"],
            ("choose", "No, keep"),
        ),
        ('{"action": "choose", "answer": "no"}', ["Nope, delete it", "Keep"], ("choose", "")),
        ('{"action": "deny"}', ["Nope, delete it", "Deny"], ("deny", "Deny")),
        ("ABORT", [], ("abort", "")),
        ('{"action": "abort", "reason": "unsure"}', [], ("abort", "")),
        ("no json here", [], ("abort", "")),
    ],
)
def test_model_replies_are_read_strictly(
    reply: str, options: list[str], expected: tuple[str, str]
) -> None:
    action, text, _ = _parse_reply(reply, options)
    assert (action, text) == expected


PICKER = """
 ☐ Question

Which color should the button be?

  1. Red
     Red
❯ 2. Blue
     Blue
  3. Type something.
────────────────────────────────
  4. Chat about this

Enter to select · ↑/↓ to navigate · Esc to cancel
"""


def test_claude_picker_is_read_whole_wherever_the_cursor_is() -> None:
    from proctor.agents.claude_code import _cursor, _question_on_screen

    q = _question_on_screen(PICKER)
    assert q is not None
    assert q.text == "Which color should the button be?"
    assert q.options == ["Red", "Blue", "Type something.", "Chat about this"]
    assert _cursor(PICKER) == 1
    assert _question_on_screen(PICKER.replace("Esc to cancel", "")) is None, (
        "half-drawn pickers wait"
    )


def test_repeated_turn_end_questions_are_merged_in_order() -> None:
    from proctor.agents.base import Question
    from proctor.drive.answering import Answer
    from proctor.drive.conversation import question_record
    from proctor.drive.policy import PolicyAnswer
    from proctor.execute.trial_parts import merge_questions
    from proctor.models.trajectory import Event, Trajectory

    ask = "Shall I go on?"
    events = [
        Event(type="user_message", text="go"),
        Event(type="assistant_text", text=ask),
        Event(type="user_message", text="yes"),
        Event(type="assistant_text", text=ask),
        Event(type="user_message", text="no"),
    ]
    trajectory = Trajectory(format="t", events=events)
    records = [
        question_record(Question(ask), PolicyAnswer(Answer(a, "rule")), 1.0) for a in ("yes", "no")
    ]
    merge_questions(trajectory, records)
    assert [(e.type, e.text) for e in trajectory.events] == [
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
