import pytest

from proctor.drive.policy import (
    _parse_reply,
    classify_turn_end,
    looks_like_question,
    split_options,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Should I also update the README?", True),
        ("Done. Which option do you prefer?", True),
        ("All tests pass.", False),
        ("", False),
        ("I wondered whether x? Anyway, it works now", None),
        ("Should I also update the README?\n1. Yes\n2. No", True),
        ("Which one?\n- Keep\n- Delete", True),
        ("Done. I changed:\n- a.py\n- b.py", False),
    ],
)
def test_deterministic_question_detector(text: str, expected: bool | None) -> None:
    assert looks_like_question(text) is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Should I?\n1. Yes\n2. No", ("Should I?", ["Yes", "No"])),
        ("Pick one:\na) Red\nb) Blue\n", ("Pick one:", ["Red", "Blue"])),
        ("Should I?\n1. Yes", ("Should I?\n1. Yes", [])),  # one line is not a choice
        ("1. Yes\n2. No", ("1. Yes\n2. No", [])),  # a list alone asks nothing
        ("All tests pass.", ("All tests pass.", [])),
    ],
)
def test_a_trailing_list_of_options_is_split_off(
    text: str, expected: tuple[str, list[str]]
) -> None:
    assert split_options(text) == expected


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


def test_a_question_record_masks_a_key_the_terminal_wrapped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """questions.jsonl keeps the question, its options and the screen as read from the
    terminal: a key wrapped over two lines there is masked (the file's own masking finds
    whole keys only)."""
    from proctor.agents.protocol import Question
    from proctor.drive.answering import Answer
    from proctor.drive.policy import PolicyAnswer
    from proctor.drive.questions import question_record
    from proctor.util import masking

    key = "sk-ant-api03-QUESTIONLEAK0123456789ab"
    monkeypatch.setattr(masking, "_SECRETS", set())
    masking.register_secret(key)
    wrapped = key[:20] + "\n  " + key[20:]
    record = question_record(
        Question(f"Use {wrapped}?", [f"yes, {wrapped}", "no"]),
        PolicyAnswer(Answer("no", "rule")),
        1.0,
        screen=f"> Use {wrapped}?\n",
    )
    text = record.model_dump_json()
    assert key[:14] not in text and key[-14:] not in text and "***" in text


def test_a_choice_is_matched_to_its_option_case_folded() -> None:
    reply = '{"action": "choose", "answer": "STRASSE", "reason": "r"}'
    assert _parse_reply(reply, ["Weg", "Straße"])[1] == "Straße"
    assert _parse_reply(reply.replace("STRASSE", "GASSE"), ["Weg", "Straße"])[1] == ""
