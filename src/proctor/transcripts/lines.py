"""Reading a transcript's lines: fast JSON decoding with a forgiving fallback, and a file's
lines a megabyte at a time."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from proctor.errors import ConfigError

CHUNK = 1 << 20

fast_loads: Callable[[str | bytes], Any]
try:
    from orjson import loads as fast_loads
except ImportError:  # pragma: no cover - orjson is a dependency; the stdlib is the fallback
    fast_loads = json.loads

HEADER_LINES = 64
"""Lines of a session file (blank ones aside) in which its folder and id are looked for."""
SYNTHETIC_MODEL = "<synthetic>"
"""The model Claude Code names on an assistant line it wrote itself, no model's response: an
API error's message, or its filler reply after a command that asks the model nothing
(``/compact``). Its usage, if any, is never counted. Kept here, not with the Claude parser, so
that a history reading a session's first lines need not import the parser."""


def decode_line(line: str | bytes) -> Any:
    """The JSON value of one line, or None when it is not JSON (bad bytes included)."""
    try:
        return fast_loads(line)
    except ValueError:
        pass
    try:  # the stdlib also accepts lone surrogates (an emoji cut in half), orjson does not
        if isinstance(line, bytes):
            # UTF-8 only (a BOM left out), as every CLI writes: given bytes, the stdlib would
            # guess UTF-16 or UTF-32 from their zeros, and read a line of another file's.
            line = line.removeprefix(b"\xef\xbb\xbf").decode("utf-8", "surrogatepass")
        return json.loads(line)
    except (ValueError, RecursionError):  # nested deeper than either reads
        return None


def line_text(line: str | bytes) -> str:
    return line if isinstance(line, str) else line.decode("utf-8", errors="replace")


def file_lines(path: str | Path) -> Iterator[bytes]:
    """The lines of a file, read a megabyte at a time (a line may span many chunks).

    A file that cannot be opened or read is a :class:`~proctor.errors.ConfigError` naming it;
    errors of whoever consumes the lines pass through untouched.
    """
    for block in file_blocks(path):
        yield from block.split(b"\n")


def file_blocks(path: str | Path) -> Iterator[bytes]:
    """A file's bytes in blocks of whole lines, a megabyte or more at a time (a line may span
    many chunks): every block but the last ends where a line does, its newline left out.
    A reader that needs no line as an object of its own reads the lines from the blocks
    (:func:`file_lines` splits them). Errors as :func:`file_lines`.

    Read with the system's calls themselves: a history replay reads thousands of small files,
    where a buffered file object's own calls (a terminal check, seeks, stats) would cost more
    than the read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read ({exc.strerror or exc})") from exc
    try:
        yield from _blocks(fd)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read ({exc.strerror or exc})") from exc
    finally:
        os.close(fd)


def _blocks(fd: int) -> Iterator[bytes]:
    size = os.fstat(fd).st_size
    if size <= CHUNK:  # the common file: one read
        first = os.read(fd, size + 1)
        if len(first) == size:  # one byte short of what was asked: its end (a regular file)
            yield first
        else:  # it grew since (or a read came back short): the rest read too
            yield first + _rest(fd) if first else first
        return
    parts: list[bytes] = []
    while chunk := os.read(fd, CHUNK):
        end = chunk.rfind(b"\n")
        if end < 0:
            parts.append(chunk)
            continue
        if parts:
            parts.append(chunk[:end])
            yield b"".join(parts)
        else:
            yield chunk[:end]
        tail = chunk[end + 1 :]
        parts = [tail] if tail else []
    if parts:
        yield b"".join(parts)


def _rest(fd: int) -> bytes:
    """What a file holds past what its size said (it grew meanwhile); usually nothing."""
    parts = []
    while chunk := os.read(fd, CHUNK):
        parts.append(chunk)
    return b"".join(parts)


def nonblank(lines: Iterable[str | bytes]) -> Iterator[str | bytes]:
    """The lines that hold something other than whitespace."""
    for line in lines:
        if line and not line.isspace():
            yield line


def head_cwd(record: dict[str, Any], claude: bool) -> tuple[bool, str | None]:
    """Whether one of a session file's first records says the folder the session ran in, and
    that folder: a Claude Code record's ``cwd``, or a Codex ``session_meta`` record's (which
    may say none)."""
    if claude:
        cwd = record.get("cwd")
        if isinstance(cwd, str):
            return True, cwd
    payload = record.get("payload")
    if record.get("type") == "session_meta" and isinstance(payload, dict):
        cwd = payload.get("cwd")
        return True, cwd if isinstance(cwd, str) else None
    if record.get("type") == "message" and record.get("role") == "user":
        # A rollout of the releases before the envelope: its header names no folder, the
        # environment it gave the model does (``<environment_context><cwd>…</cwd>``).
        for block in record.get("content") or ():
            text = block.get("text") if isinstance(block, dict) else None
            found = _ENVIRONMENT_CWD.search(text) if isinstance(text, str) else None
            if found is not None:
                return True, found.group(1).strip()
    return False, None


_ENVIRONMENT_CWD = re.compile(r"<environment_context>.*?<cwd>([^<]+)</cwd>", re.DOTALL)
