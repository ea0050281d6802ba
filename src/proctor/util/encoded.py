"""The base64 forms of a secret (see :mod:`proctor.util.masking`), and where one stands
wrapped over lines: ``base64`` breaks its output every 76 columns, wherever in it the secret
begins, and a transcript's JSON holds each break as ``\\n``."""

from __future__ import annotations

import base64
import functools
import re
from collections.abc import Iterable

MIN_BASE64_CHARS = 8
"""The fewest characters of a secret whose base64 forms are masked too (a shorter one's
forms would be a few letters, found in any long base64 text)."""
_BASE64_LINE = 76
"""Where ``base64`` (GNU coreutils, by default) breaks its lines."""
_BASE64_PIECE = 6
"""The fewest characters of the last line of ``base64``'s output that is masked alone."""
_URL_SAFE = str.maketrans("+/", "-_")


def stream_forms(value: str) -> set[str]:
    """For each of the three places within a 3-byte group where ``value`` may begin in the
    encoded bytes, the characters its bytes alone decide, as standard and as URL-safe base64
    (none for a value under :data:`MIN_BASE64_CHARS` characters)."""
    if len(value) < MIN_BASE64_CHARS:
        return set()
    data = value.encode()
    forms: set[str] = set()
    for offset in range(3):
        encoded = base64.b64encode(bytes(offset) + data).decode()
        start = -(-8 * offset // 6)  # the first character no byte before the value decides
        end = 8 * (offset + len(data)) // 6  # the last whole one before the bytes after it
        form = encoded[start:end]
        forms.update((form, form.translate(_URL_SAFE)))
    return forms


def base64_forms(value: str) -> set[str]:
    """What of a base64 text holding ``value`` is ``value``'s alone, wherever in the encoded
    bytes it begins (``echo $TOKEN | base64``; ``curl -u user:$TOKEN`` sends
    ``Authorization: Basic`` and base64 of ``user:TOKEN``): its :func:`stream_forms`; and,
    for a value at the start of the stream, each line of what ``base64`` prints wrapped at 76
    columns (a terminal UI draws each line in a frame of its own: whatever stands between the
    lines, each is masked). None for a value under :data:`MIN_BASE64_CHARS` characters."""
    forms = stream_forms(value)
    if len(value) < MIN_BASE64_CHARS:
        return forms
    first = base64.b64encode(value.encode()).decode()[: 8 * len(value.encode()) // 6]
    if len(first) > _BASE64_LINE:  # each line alone, whatever is between
        lines = [first[i : i + _BASE64_LINE] for i in range(0, len(first), _BASE64_LINE)]
        forms.update(line for line in lines if len(line) >= _BASE64_PIECE)
    return forms


_EDGES = "\u2502\u2503\u2551"
"""The box edges a terminal UI draws at the ends of a line (``│``, ``┃``, ``║``)."""
_VALUE = r'(?:true|false|null|-?[0-9.eE+-]++|"(?:[^"\\]++|\\.)*+")'
_FIELDS = 16
"""The most fields of a screen row's object looked through after its text and before the
next one's (Gemini CLI's have 8: ``bold``, ``italic``, … ``fg``, ``bg``): a large JSON object
of many fields is not read again from the end of each of its strings."""
_ROW = (
    rf'"(?:\s*+,\s*+"\w++"\s*+:\s*+{_VALUE}){{0,{_FIELDS}}}+\s*+\}}\s*+(?:\]\s*+,\s*+\[|,)\s*+\{{'
    rf'(?:\s*+"(?!text")\w++"\s*+:\s*+{_VALUE}\s*+,){{0,{_FIELDS}}}+\s*+"text"\s*+:\s*+"'
)
"""Between two rows of a screen as Gemini CLI keeps an interactive command's output in its
transcript (a list of rows, each a list of ``{"text": …, "bold": …, …}``), or two pieces of
one row drawn in different styles: the end of a text, the other fields of its object, the
next object's fields up to its text."""
ROW_MARK = '"text"'
"""What a text holding screen rows holds (where :data:`_ROW` is looked for)."""
_BREAK = rf"(?:\r?\n|(?:\\r)?\\n|{_ROW})"
"""A line break: as a file holds it, as a JSON string does (``\\n``), or the end of a screen
row in a transcript (:data:`_ROW`)."""
_BETWEEN = rf"[ \t{_EDGES}]*+{_BREAK}[ \t{_EDGES}]*+"
"""What stands between two lines of ``base64``'s output: a line break, with the blanks and
box edges a terminal UI pads and frames each line with (a rendered screen, ``screen.log``)."""
_BETWEEN_BYTES = (
    rb"(?:[ \t]|\xe2\x94[\x82\x83]|\xe2\x95\x91)*+"
    + _BREAK.encode()
    + rb"(?:[ \t]|\xe2\x94[\x82\x83]|\xe2\x95\x91)*+"
)
_BETWEEN_ROWS = rf"[ \t]*+{_ROW}[ \t]*+"
"""What stands between two rows of a screen in a transcript, with the blanks padding them."""


@functools.lru_cache(maxsize=512)
def _wrapped(form: str, between: str = _BETWEEN) -> re.Pattern[str]:
    return re.compile(f"(?:{between})?".join(re.escape(c) for c in form))


@functools.lru_cache(maxsize=512)
def _wrapped_bytes(form: str, between: bytes = _BETWEEN_BYTES) -> re.Pattern[bytes]:
    optional = b"(?:" + between + b")?"
    return re.compile(optional.join(re.escape(c.encode()) for c in form))


_ROWS_BYTES = re.compile(_ROW.encode())


def _squeezed(data: bytes) -> bytes:
    """``data`` without what :data:`_BETWEEN` takes (blanks and box edges too): where a form
    is looked for first, as bytes (far quicker to take characters out of than a text)."""
    if ROW_MARK.encode() in data:
        data = _ROWS_BYTES.sub(b"", data)
    data = data.replace(b"\\r", b"").replace(b"\\n", b"").translate(None, b" \t\r\n")
    for edge in _EDGES:
        data = data.replace(edge.encode(), b"")
    return data


def _holds_breaks(text: str) -> bool:
    return "\n" in text or "\\n" in text or ROW_MARK in text


def wrapped_masked(text: str, forms: Iterable[str], mask: str, rows: Iterable[str] = ()) -> str:
    """``text`` with each of ``forms`` (base64, the longest first) that line breaks split
    replaced by ``mask``, what stands between its lines kept (the text keeps its lines and a
    screen its frame), and each of ``rows`` (secrets as they are) that the end of a screen row
    in a transcript splits (see :data:`_ROW`). Each is looked for first in the text with all
    that may stand between taken out, and taken out of it too (a secret with a blank in it):
    only one found there has its pattern run."""
    if not _holds_breaks(text):
        return text
    squeezed = _squeezed(text.encode("utf-8", "surrogatepass"))
    for form in forms:
        if form.encode() in squeezed:
            text = _wrapped(form).sub(lambda m: mask + "".join(_SEPARATORS.findall(m[0])), text)
    if ROW_MARK in text:
        for secret in rows:
            if _squeezed(secret.encode()) in squeezed:
                text = _wrapped(secret, _BETWEEN_ROWS).sub(
                    lambda m: mask + "".join(_SEPARATORS.findall(m[0])), text
                )
    return text


_SEPARATORS = re.compile(_BETWEEN)
_SEPARATORS_BYTES = re.compile(_BETWEEN_BYTES)


def wrapped_masked_bytes(
    data: bytes, forms: Iterable[str], mask: bytes, rows: Iterable[str] = ()
) -> bytes:
    """:func:`wrapped_masked` of a file's bytes (UTF-8 where a box edge is)."""
    if b"\n" not in data and b"\\n" not in data and ROW_MARK.encode() not in data:
        return data
    squeezed = _squeezed(data)
    for form in forms:
        if form.encode() in squeezed:
            data = _wrapped_bytes(form).sub(
                lambda m: mask + b"".join(_SEPARATORS_BYTES.findall(m[0])), data
            )
    if ROW_MARK.encode() in data:
        for secret in rows:
            if _squeezed(secret.encode()) in squeezed:
                data = _wrapped_bytes(secret, _BETWEEN_ROWS.encode()).sub(
                    lambda m: mask + b"".join(_SEPARATORS_BYTES.findall(m[0])), data
                )
    return data
