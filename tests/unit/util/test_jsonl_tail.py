"""Reading a JSONL file another program is still writing, a piece at a time."""

from __future__ import annotations

import os
from pathlib import Path

from proctor.util.jsonl import JsonlTail


def test_a_file_cut_short_is_read_again_from_its_start(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text('{"n": 1}\n{"n": 2}\n')
    tail = JsonlTail(path)
    assert (tail.new_records(), tail.restarted) == ([{"n": 1}, {"n": 2}], False)
    path.write_text('{"n": 3}\n')
    assert (tail.new_records(), tail.restarted) == ([{"n": 3}], True)
    assert (tail.new_records(), tail.restarted) == ([], False)


def test_a_file_replaced_is_read_again_from_its_start(tmp_path: Path) -> None:
    path, other = tmp_path / "t.jsonl", tmp_path / "other.jsonl"
    path.write_text('{"n": 1}\n{"half": ')
    tail = JsonlTail(path)
    assert tail.new_records() == [{"n": 1}]
    other.write_text('{"n": 2, "padding": "' + "x" * 40 + '"}\n')
    os.replace(other, path)
    records = tail.new_records()
    assert (records[0]["n"], len(records), tail.restarted) == (2, 1, True)


def _replace(path: Path, text: str) -> None:
    """Write ``path`` anew as a temporary file renamed over it (a new inode)."""
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(text)
    os.replace(temporary, path)


def test_the_copy_of_a_file_replaced_holds_the_new_file_only(tmp_path: Path) -> None:
    """A file rewritten whole (Gemini CLI's chat, saved as a new file renamed over the old):
    the copy is the new file, not the old one with the new one after it."""
    path, copy = tmp_path / "chat.jsonl", tmp_path / "copy.jsonl"
    _replace(path, '{"n": 1}\n{"n": 2}\n')
    tail = JsonlTail(path, copy)
    tail.new_records()
    _replace(path, '{"n": 1}\n{"n": 2}\n{"n": 3}\n')
    assert (len(tail.new_records()), tail.restarted) == (3, True)
    assert copy.read_text() == path.read_text()
    path.write_text("")  # cut to nothing
    assert (tail.new_records(), tail.restarted) == ([], True)
    assert copy.read_text() == ""
