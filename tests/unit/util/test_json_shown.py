"""A value a message quotes, as JSON writes it."""

from __future__ import annotations

import pytest

from proctor.util.json_shown import json_kind, json_text


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("café", '"café"'),  # a letter is shown as written, not as an escape
        ("it's", '"it\'s"'),
        ('say "hi"', '"say \\"hi\\""'),  # as the JSON file holds it
        ("plug\udcff", '"plug\\xff"'),  # a byte of a name that is not UTF-8, as records show it
        ("x\ud800", '"x\\ud800"'),  # a surrogate that is no byte of a name
        # What shows as nothing or as a plain space is shown as its escape: the value differs
        # from what it looks like.
        ("opus\u00a0", '"opus\\u00a0"'),
        ("op\u200bus", '"op\\u200bus"'),
        ("\ufeffopus", '"\\ufeffopus"'),
        ("a b", '"a b"'),  # a plain space stays one
        ("x\u3164y", '"x\\u3164y"'),  # a Hangul filler: a blank wide letter
        ("a\u061cb", '"a\\u061cb"'),  # the Arabic letter mark
        ("tag\U000e0041", '"tag\\udb40\\udc41"'),  # a tag character: its JSON escape
    ],
)
def test_json_text_quotes_a_string_as_a_json_file_holds_it(value: str, shown: str) -> None:
    assert json_text(value) == shown


def test_json_kind_shows_an_unseen_character_of_a_string_as_its_escape() -> None:
    assert json_kind("2\u00a0") == 'the string "2\\u00a0"'


def test_an_escaped_unseen_character_reads_back_as_json() -> None:
    import json

    for value in ("tag\U000e0041", "x\u3164y", "opus\u00a0"):
        assert json.loads(json_text(value)) == value
