"""Byte offsets of the lines of a JSON-lines file, so a page of a huge ``trajectory.jsonl`` is
read by seeking, never by loading the file whole.

A scan remembers where it stopped; a file that grew (a trial still running) is scanned on
from there, a file that shrank, was replaced or was rewritten in place is scanned again from
the start.
"""

from __future__ import annotations

import json
import os
from array import array
from dataclasses import dataclass, field
from hashlib import blake2b
from pathlib import Path
from typing import BinaryIO

from proctor.models.trajectory import HARNESS_TOOLS, is_harness_call
from proctor.util.files import open_regular

_CHUNK = 1 << 20
_SAMPLE = 4096
"""Bytes taken from the start of the file and from just before ``scanned_to`` for its
fingerprint."""
_TOOL_CALL_MARKS = (b'"type": "tool_call"', b'"type":"tool_call"')
_HARNESS_MARKS = tuple(name.encode() for name in sorted(HARNESS_TOOLS))
"""A line naming none of these is no call of a harness tool, without reading its JSON."""


@dataclass
class LineOffsets:
    """Where each complete line starts, which of them are tool calls, and how far the file
    was read (a last line without its newline is not counted until it is finished)."""

    starts: array[int] = field(default_factory=lambda: array("q"))
    tool_calls: array[int] = field(default_factory=lambda: array("q"))
    """Line numbers (0-based) of the ``tool_call`` events, in order, but those of a search of
    the agent's own tool list (no step: :func:`~proctor.models.trajectory.is_harness_call`):
    step ``n`` of the process metrics is the ``n``-th of them."""
    scanned_to: int = 0
    identity: tuple[int, int] = (0, 0)
    """(inode, device) of the file scanned, to notice a replaced file."""
    fingerprint: bytes = b""
    """A digest of the first bytes of the file and of those just before ``scanned_to``, to
    notice a file rewritten in place (same inode, truncated and written again): appending
    leaves them as they were."""

    @property
    def lines(self) -> int:
        return len(self.starts)


def scan_offsets(path: Path, known: LineOffsets | None = None) -> LineOffsets:
    """The line offsets of ``path``, continuing ``known`` when the same file only grew."""
    try:
        fh = open_regular(path)
    except OSError:  # missing, or a folder or a pipe where the file belongs: nothing to read
        return LineOffsets()
    with fh:
        stat = os.fstat(fh.fileno())
        identity = (stat.st_ino, stat.st_dev)
        if known is None or not _continues(fh, stat.st_size, identity, known):
            known = LineOffsets(identity=identity)
        if stat.st_size == known.scanned_to:
            return known
        _scan_on(fh, known)
        known.fingerprint = _fingerprint(fh, known.scanned_to)
    return known


def _continues(fh: BinaryIO, size: int, identity: tuple[int, int], known: LineOffsets) -> bool:
    """Whether ``known`` is a scan of the start of this very file, which only grew since."""
    if known.identity != identity or size < known.scanned_to:
        return False
    return known.scanned_to == 0 or _fingerprint(fh, known.scanned_to) == known.fingerprint


def _fingerprint(fh: BinaryIO, scanned_to: int) -> bytes:
    fh.seek(0)
    head = fh.read(min(_SAMPLE, scanned_to))
    tail_from = max(0, scanned_to - _SAMPLE)
    fh.seek(tail_from)
    tail = fh.read(scanned_to - tail_from)
    return blake2b(head + b"\0" + tail, digest_size=16).digest()


def _scan_on(fh: BinaryIO, known: LineOffsets) -> None:
    """Extend ``known`` with the complete lines after ``known.scanned_to``."""
    fh.seek(known.scanned_to)
    position = known.scanned_to
    pending = b""
    while True:
        chunk = fh.read(_CHUNK)
        if not chunk:
            break
        data = pending + chunk
        base = position - len(pending)
        start = 0
        while True:
            end = data.find(b"\n", start)
            if end < 0:
                break
            line = data[start:end]
            if line.strip():
                if any(mark in line for mark in _TOOL_CALL_MARKS) and not _harness_call(line):
                    known.tool_calls.append(len(known.starts))
                known.starts.append(base + start)
            start = end + 1
        pending = data[start:]
        position += len(chunk)
    known.scanned_to = position - len(pending)


def _harness_call(line: bytes) -> bool:
    """Whether the ``tool_call`` line is a call of a harness tool, which is no step."""
    if not any(mark in line for mark in _HARNESS_MARKS):
        return False
    try:
        event = json.loads(line)
    except ValueError:
        return False
    return type(event) is dict and is_harness_call(event.get("name"), event.get("kind"))


def read_lines(path: Path, offsets: LineOffsets, first: int, count: int) -> list[bytes]:
    """Lines ``first`` .. ``first + count - 1`` (0-based) of the scanned part of ``path``."""
    if first >= offsets.lines or count <= 0:
        return []
    last = min(first + count, offsets.lines)
    begin = offsets.starts[first]
    end = offsets.starts[last] if last < offsets.lines else offsets.scanned_to
    with open_regular(path) as fh:
        fh.seek(begin)
        data = fh.read(end - begin)
    return [line for line in data.split(b"\n") if line.strip()][: last - first]


def pack(values: array[int]) -> bytes:
    return values.tobytes()


def unpack(blob: bytes | None) -> array[int]:
    values = array("q")
    if blob:
        values.frombytes(blob)
    return values
