"""A JSON file a person wrote with a trailing comma, or left empty, is told so in words, not in
the parser's ("Expecting property name enclosed in double quotes")."""

from __future__ import annotations

from pathlib import Path

import pytest

from proctor.addons.grounding import load_checkpoints
from proctor.errors import ConfigError
from proctor.models.loading import parse_json_text


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (
            '{"concurrency": 2,\n "out": "r",}\n',
            "line 2, column 13: a comma before the closing '}'",
        ),
        ('{"a": [1, 2 , ]}', "line 1, column 15: a comma before the closing ']'"),
        ("", "line 1, column 1: it is empty (expected a JSON value)"),
        ("  \n", "it is empty (expected a JSON value)"),
        ('{"a": }', "line 1, column 7: Expecting value"),  # other mistakes: the parser's words
    ],
)
def test_a_trailing_comma_and_an_empty_file_are_named(text: str, said: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_json_text(text, Path("proctor.json"), unique=True)
    assert str(info.value).startswith("proctor.json: malformed JSON at ")
    assert said in str(info.value)


def test_a_trailing_comma_in_a_checkpoints_line_is_named(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text('{"id": "a", "signals": {"x": [1, 2,]}}\n')
    with pytest.raises(ConfigError, match=r"line 1: malformed JSON at column 36: a comma before"):
        load_checkpoints(path)
