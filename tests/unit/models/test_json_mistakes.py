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
        # Cut short (its string was "Unterminated string starting at", naming no place).
        ('{"runs": ["run-2026', "column 11: it ends before its JSON value does: the file is cut"),
        ('{"runs": [1, 2', "column 15: it ends before its JSON value does: the file is cut"),
        # Cut inside a string at a line break: cut short, not a line break to escape.
        ('{"broken\n', "column 9: it ends before its JSON value does: the file is cut short"),
        ('{"a": "x\r\n  ', "column 9: it ends before its JSON value does: the file is cut"),
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


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (
            '\ufeff{"repeats": 1}',
            "line 1, column 1: it starts with a byte-order mark (BOM), which JSON does not "
            "allow: save it as UTF-8 without a BOM",
        ),
        ('// cases\n{"repeats": 1}', "line 1, column 1: a comment ('//'): JSON allows no comments"),
        ('{"repeats": 1 /* one */}', "column 15: a comment ('/*'): JSON allows no comments"),
        ('{"repeats": 1, # one\n}', "column 16: a comment ('#'): JSON allows no comments"),
        ("repeats: 1\nagents:\n  - scripted\n", "line 1, column 1: it reads as YAML, not JSON"),
        ("---\nrepeats: 1\n", "it reads as YAML, not JSON"),
        ("- scripted\n", "it reads as YAML, not JSON"),
        ("{'repeats': 1}", "column 2: a string in single quotes: JSON strings take double"),
        (
            '{"repeats": 1}\n{"agents": []}',
            "line 2, column 1: more text after the end of the JSON value (a file holds one",
        ),
        ('{"description": "a\tb"}', "a control character (a line break or a tab) inside a"),
        ('{"description": "a\nb"}', "a control character (a line break or a tab) inside a"),
    ],
)
def test_a_bom_a_comment_yaml_and_other_mistakes_are_named_in_words(text: str, said: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_json_text(text, Path("config.json"), unique=True)
    assert said in str(info.value)
    assert "decode using" not in str(info.value) and "Extra data" not in str(info.value)
