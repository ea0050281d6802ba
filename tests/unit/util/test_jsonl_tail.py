"""Reading a JSONL file another program is still writing, a piece at a time."""

from __future__ import annotations

import json
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


def test_a_file_written_over_in_place_past_what_was_read_is_read_again(tmp_path: Path) -> None:
    """The same inode cut to nothing and written again, longer than before, between two
    reads: its size alone does not tell it, its first bytes do."""
    path, copy = tmp_path / "t.jsonl", tmp_path / "copy.jsonl"
    path.write_text('{"n": 1}\n')
    tail = JsonlTail(path, copy)
    assert tail.new_records() == [{"n": 1}]
    inode = path.stat().st_ino
    with open(path, "r+") as fh:  # O_TRUNC-like: the same file, written over
        fh.truncate(0)
        fh.write('{"n": 2}\n{"n": 3}\n')
    assert path.stat().st_ino == inode
    assert (tail.new_records(), tail.restarted) == ([{"n": 2}, {"n": 3}], True)
    assert copy.read_text() == path.read_text()


def test_a_file_written_over_in_place_after_its_first_line_is_read_again(tmp_path: Path) -> None:
    """Written over with the same first line (a chat's header) but other lines after it: the
    last bytes read tell it."""
    path = tmp_path / "t.jsonl"
    path.write_text('{"head": 1}\n{"n": 1}\n')
    tail = JsonlTail(path)
    tail.new_records()
    with open(path, "r+") as fh:
        fh.truncate(0)
        fh.write('{"head": 1}\n{"n": 9}\n{"n": 10}\n')
    records = tail.new_records()
    assert (records, tail.restarted) == ([{"head": 1}, {"n": 9}, {"n": 10}], True)


def test_a_file_that_only_grows_is_never_read_again(tmp_path: Path) -> None:
    """Control: appends, however many and however long, never start the file over."""
    path = tmp_path / "t.jsonl"
    path.write_text("")
    tail = JsonlTail(path)
    seen = []
    for n in range(300):  # past the bytes compared, many times over
        with open(path, "a") as fh:
            fh.write(json.dumps({"n": n, "pad": "x" * 50}) + "\n")
        seen += tail.new_records()
        assert not tail.restarted
    assert [record["n"] for record in seen] == list(range(300))
