"""What a transcript cut short inside its first line still tells: the keys its first record
begins with (``head -c 300 session.jsonl`` keeps no whole record, but its first keys say
which CLI wrote it)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from proctor.util.files import open_regular

FIRST_LINE_MAX = 1 << 20
"""The most of a first line read (a Codex rollout's first record holds the instructions)."""
_KEY = re.compile(r'\s*("(?:[^"\\]|\\.)*")\s*:')


def only_line_cut(path: Path) -> str | None:
    """The text of ``path``'s first line when it is its only one and holds no whole JSON
    value, an object begun (``{"type": "session_meta", …`` cut short); else None."""
    found = document_cut(path)
    return found if found is not None and "\n" not in found else None


def document_cut(path: Path) -> str | None:
    """The text of ``path`` when it is one JSON object begun and cut short: its only line
    (``{"type": "session_meta", …``), or a document over several lines whose first line is
    no whole value (an early Gemini CLI chat, ``{\\n  "sessionId": …``); else None."""
    try:
        with open_regular(path) as fh:  # a named pipe would block: not read
            data = fh.read(FIRST_LINE_MAX + 1)
    except OSError:
        return None
    text = data.decode("utf-8", "replace").strip()
    if len(data) > FIRST_LINE_MAX or not text.startswith("{"):
        return None
    first = text.split("\n", 1)[0]
    if first != text and not unfinished(first) and first.strip() != "{":
        return None  # JSON lines, the first whole (or not JSON): another line was cut
    return text if unfinished(text) else None  # whole, or wrong where it stops: not cut


LAST_LINE_MAX = 16 << 20
"""The most of a file's end read for its last line (a Codex record may hold a large output)."""
LAST_LINE_CUT = (
    "its last line is cut short (the CLI was still writing it, or the file was copied while "
    "it was): the session may have gone on after it"
)
"""What a transcript whose last line is cut short is said to be, by ``parse`` and ``record``."""


def last_line_cut(path: Path) -> bool:
    """Whether the last line with text of the JSON lines file ``path`` is a record begun and
    cut short (``{"type": "response_item", "payload": {"out``): JSON whole up to its end, where
    it stops inside a value. A last line longer than :data:`LAST_LINE_MAX`, counting the white
    space after it, is not judged (what is read is not all of it)."""
    try:
        with open_regular(path) as fh:  # a named pipe would block: not read
            # the byte before the line read too: the newline that says where it begins
            start = max(0, fh.seek(0, 2) - LAST_LINE_MAX - 1)
            fh.seek(start)
            data = fh.read().rstrip()
    except OSError:
        return False
    newline = data.rfind(b"\n")
    if newline < 0 and start > 0:  # the line begins before what was read
        return False
    last = data[newline + 1 :].decode("utf-8", "replace").strip()
    return last.startswith("{") and unfinished(last)


_NUMBER_GOES_ON = re.compile(r"[-+.eE0-9]*")
_ESCAPE_GOES_ON = re.compile(r"\\u[0-9a-fA-F]{0,3}")


def unfinished(text: str) -> bool:
    """Whether ``text`` is JSON stopped short: whole up to its end, where it ends inside a
    value (a string, a number, ``true``, an object...); not JSON that goes wrong before its
    end (``{'a': 1}``, ``{"a": 1}}``), nor a whole value."""
    try:
        json.loads(text)
    except RecursionError:
        return False
    except json.JSONDecodeError as exc:
        if exc.msg.startswith("Unterminated string"):  # (nothing wrong before its end)
            return True
        rest = text[exc.pos :].rstrip()
        if exc.msg.startswith("Invalid \\uXXXX"):
            return _ESCAPE_GOES_ON.fullmatch(rest) is not None
        if (
            exc.msg == "Expecting value"
            and rest
            and any(word.startswith(rest) for word in ("true", "false", "null"))
        ):
            return True
        return _NUMBER_GOES_ON.fullmatch(rest) is not None
    return False


def partial_record(text: str) -> dict[str, Any]:
    """The top-level pairs of the object ``text`` begins, as far as they are whole; the key
    of the pair it is cut inside or after (``{"type":"queue-operation"``, ``{"payload"``), with
    its value when that is whole and can go on no further (a string, an object, ``true``...),
    else None (``"ordinal": 1`` may go on as ``12``)."""
    found = _opening(text)
    if found is None:
        return {}
    pairs, cut = found
    record = dict(pairs)
    if cut is not None and cut[0] == "value":
        record.setdefault(cut[1], _whole_value(cut[2]))
    return record


def _whole_value(begun: str) -> Any:
    """The value whose text is ``begun`` when it is whole and no digit added could change it;
    else None."""
    try:
        value = json.loads(begun) if begun else None
    except (ValueError, RecursionError):
        return None
    if isinstance(value, int | float) and not isinstance(value, bool):
        return None  # a number cut short is a number too
    return value


_CUT_KEY = re.compile(r'\s*"((?:[^"\\]|\\.)*)(\\?|"\s*)$')
_CLAUDE_FIRST = frozenset(
    {
        "queue-operation",
        "summary",
        "file-history-snapshot",
        "last-prompt",
        "mode",
        "permission-mode",
        "ai-title",
        "custom-title",
    }
)
_CODEX_FIRST = frozenset({"session_meta", "response_item", "event_msg", "turn_context"})
Opening = tuple[tuple[str, frozenset[str] | None], ...]
OPENINGS: dict[str, tuple[Opening, ...]] = {
    "claude-code": ((("parentUuid", None),), (("type", _CLAUDE_FIRST),)),
    "codex": (
        (("timestamp", None), ("type", _CODEX_FIRST)),
        (("timestamp", None), ("ordinal", None), ("type", _CODEX_FIRST)),
        (("id", None), ("timestamp", None), ("instructions", None)),
    ),
    "gemini-cli": ((("sessionId", None), ("projectHash", None)),),
    "acp": ((("ts", None), ("from", frozenset({"client", "agent"}))),),
}
"""The keys each format's first record begins with, in order, as the CLIs write them (with
the values a key may hold there, where they tell): Claude Code's ``parentUuid`` or its
session records' ``type``; a Codex rollout's ``timestamp`` then ``type`` (or ``ordinal``, in
later builds; an early one's ``id``, ``timestamp``, ``instructions``); a Gemini CLI chat's
``sessionId`` then ``projectHash``; proctor's ACP log's ``ts`` then ``from``."""


def _opening(text: str) -> tuple[list[tuple[str, Any]], tuple[str, ...] | None] | None:
    """The whole pairs ``text`` begins its object with, in order, and where it is cut:
    ``("key", prefix)`` inside a key, ``("value", key, begun)`` inside that key's value (its
    text so far), None between
    pairs; None when what follows its last whole pair is neither."""
    last_comma = _last_comma(text)
    pairs: list[tuple[str, Any]] = []
    if last_comma is not None:
        try:
            whole = json.loads(text[:last_comma] + "}")
        except (ValueError, RecursionError):
            return None
        if not isinstance(whole, dict):
            return None
        pairs = list(whole.items())
    rest = text[last_comma + 1 if last_comma is not None else 1 :]
    if not rest.strip():
        return pairs, None
    key = _KEY.match(rest)
    if key is not None:
        try:
            return pairs, ("value", json.loads(key.group(1)), rest[key.end() :].strip())
        except ValueError:
            return None
    cut = _CUT_KEY.fullmatch(rest)
    if cut is None:
        return None
    if cut.group(2).startswith('"'):  # the key whole, cut before its colon
        return pairs, ("value", cut.group(1), "")
    return pairs, ("key", cut.group(1))


def begins_like(text: str) -> list[str]:
    """The formats whose first record an object cut short, ``text``, may begin (see
    :data:`OPENINGS`): every one when it is cut before its first key; none when its keys are
    another file's."""
    found = _opening(text)
    if found is None:
        return []
    pairs, cut = found
    return [
        fmt for fmt, openings in OPENINGS.items() if any(_fits(o, pairs, cut) for o in openings)
    ]


def told_by_opening(text: str) -> str | None:
    """The format whose first record's whole opening (see :data:`OPENINGS`) the object
    ``text`` begins with, in whole pairs (``{"timestamp": …, "type": "session_meta"``: a
    Codex rollout, whatever its payload would have said), when one is; else None."""
    pairs = list(partial_record(text).items())
    told = [
        fmt
        for fmt, openings in OPENINGS.items()
        if any(_opens_as(opening, pairs) for opening in openings)
    ]
    return told[0] if len(told) == 1 else None


def _opens_as(opening: Opening, pairs: list[tuple[str, Any]]) -> bool:
    return len(pairs) >= len(opening) and all(
        key == wanted and (allowed is None or value in allowed)
        for (key, value), (wanted, allowed) in zip(pairs, opening, strict=False)
    )


def _fits(opening: Opening, pairs: list[tuple[str, Any]], cut: tuple[str, ...] | None) -> bool:
    """Whether the pairs and the cut may begin a record that opens as ``opening`` does."""
    for (key, value), (wanted, allowed) in zip(pairs, opening, strict=False):
        if key != wanted or (allowed is not None and value not in allowed):
            return False
    if cut is None or len(pairs) >= len(opening):
        return True
    wanted, allowed = opening[len(pairs)]
    if cut[0] == "key":
        return wanted.startswith(cut[1])
    if cut[1] != wanted:
        return False
    begun = cut[2]  # the value's text so far
    return allowed is None or any(f'"{name}"'.startswith(begun) for name in allowed)


def _last_comma(text: str) -> int | None:
    """Where the last comma between ``text``'s top-level pairs is."""
    depth, in_string, escaped = 0, False, False
    last_comma = None
    for i, char in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
        elif char == "," and depth == 1:
            last_comma = i
    return last_comma
