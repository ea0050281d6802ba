"""Reading JSON-lines files that another program is still writing.

A line may be half-flushed, hold something other than an object, or not be JSON at all; readers
here skip such lines instead of failing, because the writer (an agent CLI) owns the file.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any


def decode_object(line: str | bytes) -> dict[str, Any] | None:
    """The JSON object on ``line``, or None (blank, half-written, not JSON, not an object)."""
    try:
        value = json.loads(line)
    except (ValueError, RecursionError):  # RecursionError: nested too deeply to read
        return None
    return value if isinstance(value, dict) else None


def read_json_lines(path: Path) -> list[dict[str, Any]]:
    """Every JSON object line of ``path``; other lines are skipped, a missing file is empty."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    rows = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("{") and (record := decode_object(line)) is not None:
            rows.append(record)
    return rows


_MARK = 4096
"""How many of a file's first and of its last bytes read :class:`JsonlTail` compares at each
read to tell a file written over in place."""


class JsonlTail:
    """Reads the complete lines a growing JSONL file gained since the last call.

    A file cut shorter than what was read, replaced by another (a new inode), or written over
    in place (the same inode cut to nothing and written again past what was read: its first or
    its last bytes read are no longer where they were) is read again from its start;
    :attr:`restarted` tells the caller to forget what the earlier reads gave. A last line
    without its newline yet is kept until the newline comes.

    A plain class, not a dataclass: this module is on the scripted agent's import path, which
    starts once per trial, and ``dataclasses`` would cost it ``inspect`` (several ms).
    """

    def __init__(self, path: Path, copy: Path | None = None) -> None:
        self.path = path
        self.copy = copy
        """Where every byte read is appended too (the CLI may delete its file on exit); a file
        read again from its start is copied over it, so the copy holds the file as it is."""
        self.offset = 0
        self.partial = b""
        self.inode: int | None = None
        self.head = b""
        """The file's first bytes read (up to :data:`_MARK` of them)."""
        self.edge = b""
        """The last bytes read (up to :data:`_MARK` of them), just before :attr:`offset`."""
        self.restarted = False
        """Whether the last :meth:`new_records` started the file over (its records are the
        new file's from its start)."""

    def new_records(self) -> list[dict[str, Any]]:
        self.restarted = False
        try:
            with open(self.path, "rb") as fh:
                status = os.fstat(fh.fileno())
                if self.inode is not None and (
                    status.st_ino != self.inode
                    or status.st_size < self.offset
                    or not self._in_place(fh.fileno())
                ):
                    self.offset, self.partial, self.restarted = 0, b"", True
                    self.head = self.edge = b""
                self.inode = status.st_ino
                fh.seek(self.offset)
                chunk = fh.read()
        except OSError:
            return []
        self.offset += len(chunk)
        if len(self.head) < _MARK:
            self.head += chunk[: _MARK - len(self.head)]
        self.edge = (self.edge + chunk[-_MARK:])[-_MARK:]
        if self.copy is not None and (chunk or self.restarted):
            with open(self.copy, "wb" if self.restarted else "ab") as out:
                out.write(chunk)
        data = self.partial + chunk
        *lines, self.partial = data.split(b"\n")
        return [record for line in lines if (record := decode_object(line)) is not None]

    def _in_place(self, fd: int) -> bool:
        """Whether the bytes read before are still where they were: the first and the last
        of them (two small reads, where comparing all of them would read the file again)."""
        if not self.offset:
            return True
        edge_at = self.offset - len(self.edge)
        return (
            os.pread(fd, len(self.head), 0) == self.head
            and os.pread(fd, len(self.edge), edge_at) == self.edge
        )


def last_json_object(text: str) -> dict[str, Any] | None:
    """The last JSON object written in ``text`` (prose around it, or a fenced ``json`` block,
    allowed), or None. Of objects nested in each other, the outermost counts."""
    decoder = json.JSONDecoder()
    found: tuple[int, dict[str, Any]] | None = None
    position = text.find("{")
    while position != -1:
        try:
            value, end = decoder.raw_decode(text, position)
        except ValueError:
            position = text.find("{", position + 1)
            continue
        if isinstance(value, dict):
            found = (end, value)
            position = text.find("{", end)  # inner objects of this one are part of it
        else:
            position = text.find("{", position + 1)
    return found[1] if found else None
