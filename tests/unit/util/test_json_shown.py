"""A value a message quotes, as JSON writes it."""

from __future__ import annotations

import pytest

from proctor.util.json_shown import json_text


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("café", '"café"'),  # a letter is shown as written, not as an escape
        ("it's", '"it\'s"'),
        ('say "hi"', '"say \\"hi\\""'),  # as the JSON file holds it
        ("plug\udcff", '"plug\\xff"'),  # a byte of a name that is not UTF-8, as records show it
        ("x\ud800", '"x\\ud800"'),  # a surrogate that is no byte of a name
    ],
)
def test_json_text_quotes_a_string_as_a_json_file_holds_it(value: str, shown: str) -> None:
    assert json_text(value) == shown
