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
