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
    try:
        with open_regular(path) as fh:  # a named pipe would block: not read
            data = fh.read(FIRST_LINE_MAX + 1)
    except OSError:
        return None
    text = data.decode("utf-8", "replace").strip()
    if len(data) > FIRST_LINE_MAX or "\n" in text or not text.startswith("{"):
        return None
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return text
    return None  # whole: not cut short


def partial_record(text: str) -> dict[str, Any]:
    """The top-level pairs of the object ``text`` begins, as far as they are whole; the key
    of the pair it is cut inside, with None for its value."""
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
    record: dict[str, Any] = {}
    if last_comma is not None:
        try:
            whole = json.loads(text[:last_comma] + "}")
        except (ValueError, RecursionError):
            return {}
        if not isinstance(whole, dict):
            return {}
        record = whole
    rest = text[last_comma + 1 if last_comma is not None else 1 :]
    key = _KEY.match(rest)
    if key is not None:
        try:
            record.setdefault(json.loads(key.group(1)), None)
        except ValueError:
            pass
    return record
