"""A file's lines and blocks of whole lines, read a megabyte at a time: the same lines as the
whole file split, whatever the lengths of its lines against the pieces it is read in."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from proctor.errors import ConfigError
from proctor.transcripts import lines
from proctor.transcripts.lines import CHUNK, file_blocks, file_lines


def _content(seed: int) -> bytes:
    rng = random.Random(seed)
    lines = []
    size = 0
    while size < 3 * CHUNK + rng.randrange(CHUNK):
        length = rng.choice([0, 1, 80, 5_000, CHUNK // 3, CHUNK + 17, 2 * CHUNK])
        line = bytes([97 + len(lines) % 26]) * length
        lines.append(line)
        size += length + 1
    return b"\n".join(lines) + (b"\n" if seed % 2 else b"")


@pytest.mark.parametrize("seed", range(6))
def test_lines_and_blocks_are_the_file_split(seed: int, tmp_path: Path) -> None:
    content = _content(seed)
    path = tmp_path / "big.jsonl"
    path.write_bytes(content)
    expected = [line for line in content.split(b"\n") if line]
    assert [line for line in file_lines(path) if line] == expected
    blocks = list(file_blocks(path))
    assert len(blocks) > 1
    assert [line for b in blocks for line in b.split(b"\n") if line] == expected
    assert all(not b.endswith(b"\n") for b in blocks[:-1])


def test_a_small_file_is_one_block(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"a\nb\n")
    assert list(file_blocks(path)) == [b"a\nb\n"]
    assert list(file_lines(path)) == [b"a", b"b", b""]


def test_an_unreadable_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="gone.jsonl: cannot be read"):
        list(file_blocks(tmp_path / "gone.jsonl"))


def test_an_empty_file_is_one_empty_block(tmp_path: Path) -> None:
    path = tmp_path / "e.jsonl"
    path.write_bytes(b"")
    assert list(file_blocks(path)) == [b""]
    assert [line for line in file_lines(path) if line] == []


def test_a_file_that_grew_after_its_size_was_taken_is_read_to_its_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A session being written while it is read: what lies past the size first seen is read
    too, as a buffered read to the end reads it."""
    path = tmp_path / "live.jsonl"
    content = b"".join(b'{"n": %d}\n' % i for i in range(5_000))
    path.write_bytes(content)
    real_fstat = os.fstat

    class Smaller:
        def __init__(self, result: os.stat_result) -> None:
            self.st_size = result.st_size // 3

    monkeypatch.setattr(lines.os, "fstat", lambda fd: Smaller(real_fstat(fd)))
    assert b"".join(file_blocks(path)) == content


def test_a_read_that_comes_back_short_is_read_on_to_the_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file read in one call is taken as whole only when the read gave exactly its size."""
    path = tmp_path / "slow.jsonl"
    content = b"".join(b'{"n": %d}\n' % i for i in range(500))
    path.write_bytes(content)
    real_read = os.read
    calls: list[int] = []

    def short_first(fd: int, n: int) -> bytes:
        calls.append(n)
        return real_read(fd, n // 2 if len(calls) == 1 else n)

    monkeypatch.setattr(lines.os, "read", short_first)
    assert b"".join(file_blocks(path)) == content
    calls.clear()
    monkeypatch.setattr(lines.os, "read", lambda fd, n: calls.append(n) or real_read(fd, n))
    assert b"".join(file_blocks(path)) == content
    assert calls == [len(content) + 1]  # a whole file: one read, none to find its end


def test_a_folder_is_named_and_nothing_stays_open(tmp_path: Path) -> None:
    before = len(os.listdir("/proc/self/fd"))
    with pytest.raises(ConfigError, match="is a folder|cannot be read"):
        list(file_blocks(tmp_path))
    assert len(os.listdir("/proc/self/fd")) == before


def test_a_reader_that_stops_early_leaves_no_file_open(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    path.write_bytes(_content(1))
    before = len(os.listdir("/proc/self/fd"))
    blocks = file_blocks(path)
    next(blocks)
    assert len(os.listdir("/proc/self/fd")) == before + 1
    blocks.close()
    assert len(os.listdir("/proc/self/fd")) == before
