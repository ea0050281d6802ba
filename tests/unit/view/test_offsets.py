"""Byte offsets of JSON lines: pages read by seeking, scans continued as a file grows."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from proctor.view.offsets import pack, read_lines, scan_offsets, unpack

CALL = b'{"type": "tool_call", "id": "t1", "name": "Bash"}\n'
TEXT = b'{"type": "assistant_text", "text": "hi"}\n'


def test_every_line_and_tool_call_is_found(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(TEXT + CALL + b"\n" + TEXT + CALL)
    offsets = scan_offsets(path)
    assert offsets.lines == 4  # the blank line is not an event
    assert list(offsets.tool_calls) == [1, 3]
    assert read_lines(path, offsets, 1, 2) == [CALL.strip(), TEXT.strip()]
    assert read_lines(path, offsets, 3, 10) == [CALL.strip()]
    assert read_lines(path, offsets, 4, 10) == []


def test_a_growing_file_is_scanned_on_and_an_unfinished_line_waits(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(TEXT + b'{"type": "tool_')
    first = scan_offsets(path)
    assert first.lines == 1 and first.scanned_to == len(TEXT)
    with path.open("ab") as fh:
        fh.write(b'call", "id": "t2"}\n' + TEXT)
    grown = scan_offsets(path, first)
    assert grown.lines == 3
    assert list(grown.tool_calls) == [1]
    assert read_lines(path, grown, 1, 1) == [b'{"type": "tool_call", "id": "t2"}']


def test_a_replaced_or_shrunk_file_is_scanned_again(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(TEXT * 5)
    known = scan_offsets(path)
    replacement = tmp_path / "new.jsonl"
    replacement.write_bytes(CALL)
    os.replace(replacement, path)
    again = scan_offsets(path, known)
    assert again.lines == 1 and list(again.tool_calls) == [0]


def test_continuing_a_stale_scan_of_another_file_would_be_wrong(tmp_path: Path) -> None:
    """Control: reusing offsets without the identity check reads the wrong bytes."""
    path = tmp_path / "t.jsonl"
    path.write_bytes(TEXT * 5)
    known = scan_offsets(path)
    replacement = tmp_path / "new.jsonl"
    replacement.write_bytes(CALL * 6)
    os.replace(replacement, path)
    assert read_lines(path, known, 1, 1) != [CALL.strip()]
    assert read_lines(path, scan_offsets(path, known), 1, 1) == [CALL.strip()]


def test_offsets_round_trip_through_bytes(tmp_path: Path) -> None:
    values = scan_offsets(tmp_path / "missing").starts  # (a file of no lines)
    values.extend([0, 10, 1 << 40])
    assert list(unpack(pack(values))) == [0, 10, 1 << 40]
    assert list(unpack(None)) == []


def test_an_appended_file_is_scanned_on_from_where_the_scan_stopped(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(TEXT * 200)  # longer than the bytes a fingerprint samples
    first = scan_offsets(path)
    with path.open("ab") as fh:
        fh.write(CALL * 3)
    grown = scan_offsets(path, first)
    assert grown is first  # continued, not started again
    assert grown.lines == 203 and list(grown.tool_calls) == [200, 201, 202]
    assert read_lines(path, grown, 199, 2) == [TEXT.strip(), CALL.strip()]
    assert scan_offsets(path, grown) is grown  # unchanged: nothing to scan


@pytest.mark.parametrize("size", ["same", "larger"])
def test_a_file_rewritten_in_place_is_scanned_again(tmp_path: Path, size: str) -> None:
    path = tmp_path / "t.jsonl"
    old = TEXT * 5
    path.write_bytes(old)
    known = scan_offsets(path)
    inode = path.stat().st_ino
    if size == "same":  # other lines, other boundaries, the same length
        filler = b'{"type": "assistant_text", "text": "'
        new = CALL + filler + b"x" * (len(old) - len(CALL) - len(filler) - 3) + b'"}\n'
        assert len(new) == len(old)
    else:
        new = CALL * 6
    with path.open("wb") as fh:  # truncated and written again: the same inode
        fh.write(new)
    assert path.stat().st_ino == inode
    again = scan_offsets(path, known)
    expected = [line for line in new.split(b"\n") if line]
    assert again.lines == len(expected)
    assert list(again.tool_calls) == ([0] if size == "same" else list(range(6)))
    assert read_lines(path, again, 0, 10) == expected
