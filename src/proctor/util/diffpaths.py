"""File names in a unified diff, quoted the way git quotes them.

A name that holds a double quote, a backslash, a control character (a newline, a tab) or a
byte that is not UTF-8 is written between double quotes with C escapes, octal for bytes
(``"a/new\\nline.txt"``, ``"a/bad\\377name"``); any other name is written as it is.
Unquoted, a newline in a file name would put text of the agent's choosing on a line of its
own, a fake hunk header among them, and a reader of the diff would skip what follows it.
"""

from __future__ import annotations

_ESCAPES = {
    "\a": "\\a",
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\v": "\\v",
    "\f": "\\f",
    "\r": "\\r",
    '"': '\\"',
    "\\": "\\\\",
}
_UNESCAPES = {v[1]: k for k, v in _ESCAPES.items()}


def _is_byte(ch: str) -> bool:
    """A byte that was not UTF-8, as Python decodes a file name (``surrogateescape``)."""
    return 0xDC80 <= ord(ch) <= 0xDCFF


def _needs_quotes(name: str) -> bool:
    return any(ch in '"\\' or ord(ch) < 0x20 or ord(ch) == 0x7F or _is_byte(ch) for ch in name)


def quote_path(name: str) -> str:
    """``name`` as a diff header writes it: as it is, or quoted with C escapes."""
    if not _needs_quotes(name):
        return name
    out = []
    for ch in name:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\{ord(ch):03o}")
        elif _is_byte(ch):  # the byte itself, in octal, as git writes it
            out.append(f"\\{ord(ch) - 0xDC00:03o}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def unquote_path(text: str) -> tuple[str, str]:
    """The name at the start of ``text`` (quoted or not) and the rest after it. An unquoted
    name runs to the end of ``text``; a quoted one to its closing quote."""
    if not text.startswith('"'):
        return text, ""
    out: list[str] = []
    raw = bytearray()  # octal escapes are bytes of UTF-8
    i = 1
    while i < len(text):
        ch = text[i]
        if ch == '"':
            if raw:
                out.append(raw.decode("utf-8", errors="replace"))
            return "".join(out), text[i + 1 :]
        if ch == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            digits = text[i + 1 : i + 4]
            if len(digits) == 3 and all(d in "01234567" for d in digits):
                raw.append(int(digits, 8) & 0xFF)
                i += 4
                continue
            if raw:
                out.append(raw.decode("utf-8", errors="replace"))
                raw.clear()
            out.append(_UNESCAPES.get(nxt, nxt))
            i += 2
            continue
        if raw:
            out.append(raw.decode("utf-8", errors="replace"))
            raw.clear()
        out.append(ch)
        i += 1
    return text, ""  # no closing quote: not a quoted name after all
