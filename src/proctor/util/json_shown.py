"""A JSON value as a message shows it: its kind (``the string "3"``, ``an object``) or its
text as JSON writes it, masked and cut to a readable length."""

from __future__ import annotations

import json
import math
import re
import unicodedata
from typing import Any

from proctor.util.masking import mask
from proctor.util.text import SHOWN

_UNSEEN = re.compile(
    "[\u00a0\u00ad\u034f\u061c\u115f\u1160\u1680\u17b4\u17b5\u180e\u2000-\u200f"
    "\u2028-\u202f\u205f-\u2064\u2066-\u206f\u3000\u3164\ufeff\uffa0\ufff9-\ufffb"
    "\U000e0000-\U000e007f]"
)
"""Characters a terminal shows as nothing or as a plain space: a no-break or zero-width space,
a soft hyphen, a byte order mark, a direction mark. A value that holds one differs from what
it looks like; quoted, each is shown as the JSON escape that writes it (``\\u00a0``)."""


def _unseen_escaped(text: str) -> str:
    return _UNSEEN.sub(_json_escape, text)


def _json_escape(match: re.Match[str]) -> str:
    """A character as JSON escapes it: beyond U+FFFF, as its two UTF-16 halves."""
    code = ord(match.group())
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def json_kind(value: Any) -> str:
    """``value`` as JSON names it: ``true``, ``null``, ``the string "3"``, ``3.5``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, str):
        # Masked before it is cut: a key cut in two is no longer the key the output masks.
        text = _unseen_escaped(mask(json.dumps(value, ensure_ascii=False)))
        return "the string " + (text if len(text) <= 60 else text[:56] + '..."')
    if isinstance(value, int | float):
        return short(value)
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list | tuple):
        return "a list"
    return short(value)


WHOLE = 300
"""The ``limit`` of :func:`json_text` for the value a message is about (a mistyped option,
a rule line, a trial's name): what is wrong is often at its end, and a cut would hide it."""


def json_text(value: Any, limit: int = 60) -> str:
    """``value`` as JSON writes it (``true``, ``null``, ``"a\\u0000b"``, ``1e+307``), cut to
    ``limit`` characters; a character that shows as nothing or as a plain space (a no-break
    space, a zero-width one) is its escape (``"a\\u00a0b"``); a lone surrogate stays an
    escape, so the sentence can be printed, written as the records write it (the byte of a
    name that is not UTF-8 as ``\\xff``, as the rest of the message shows that name)."""
    try:
        text = json.dumps(value, ensure_ascii=False, default=str)
    except ValueError:  # a structure that holds itself: not from a JSON file
        text = str(value)
    text = _unseen_escaped(mask(text.encode("utf-8", SHOWN).decode("utf-8")))  # before the cut
    return text if len(text) <= limit else text[: limit - 3] + "..."


def name_shown(name: str) -> str:
    """A name as a listing shows it: as it is, or, when it holds a character that shows as
    nothing, as a plain space or as a broken line, or starts or ends with white space, as
    JSON writes it, that character an escape (``"fi\\u200bx"``, ``"fix "``)."""
    plain = name == name.strip() and not _UNSEEN.search(name)
    if plain and not any(unicodedata.category(c) in ("Cc", "Zl", "Zp") for c in name):
        return name
    return json_text(name, WHOLE)


def name_quoted(name: str) -> str:
    """A name as a sentence quotes it: ``'fix-a-bug'``, or, when :func:`name_shown` would
    write it as JSON (a no-break space in it, a blank one), as JSON writes it
    (``"fix-a-bug\\u00a0"``), so it is told apart from the name it looks like."""
    shown = name_shown(name)
    return f"'{name}'" if shown == name and name else json_text(name, WHOLE)


def short(value: Any) -> str:
    """``value`` as a message shows it: as JSON writes it (``true``, ``null``, ``"x"``), an
    object or a list by its kind."""
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list | tuple):
        return "a list"
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)  # what 1e400 reads as: inf (JSON has no word for it)
    return json_text(value)
