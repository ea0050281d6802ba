"""The JSON object an agent's final answer ends with."""

from __future__ import annotations

from proctor.util.jsonl import last_json_object


def test_the_last_object_in_prose_or_a_fenced_block() -> None:
    text = 'First {"draft": 1}. Final report:\n```json\n{"fixed": true, "files": ["a.py"]}\n```\n'
    assert last_json_object(text) == {"fixed": True, "files": ["a.py"]}
    assert last_json_object('{"a": {"b": 1}}') == {"a": {"b": 1}}  # the outer one, not the inner


def test_nothing_to_find() -> None:
    assert last_json_object("Done, no report.") is None
    assert last_json_object("[1, 2] and {not json") is None
    assert last_json_object('{broken {"ok": 2}') == {"ok": 2}
