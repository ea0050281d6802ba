"""A terminal's byte stream with every registered secret masked (see
:mod:`proctor.util.masking`): a key drawn with escapes or control characters between its
characters, or wrapped over lines, too; :func:`mask_terminal` for a whole recording,
:class:`StreamMask` for a stream passed on as it comes.
"""

from __future__ import annotations

import functools
import re

from proctor.util.masking import MASK, alone, registered_secrets, stands_alone


class StreamMask:
    """The bytes of a stream with every registered secret masked, passed on as they come (a
    terminal mirrored live), one split with escapes too (see :func:`mask_terminal`): the last
    bytes that could begin a secret are held back until the next chunk shows whether they do,
    or until :meth:`flush` at the end."""

    def __init__(self) -> None:
        self.held = b""

    def feed(self, chunk: bytes) -> bytes:
        """What of ``self.held + chunk`` can be passed on now, masked."""
        data = mask_terminal(self.held + chunk)
        cut = _partial_start(data)
        self.held = data[cut:]
        return data[:cut]

    def flush(self) -> bytes:
        """The bytes held back (the stream ended: they begin no secret)."""
        held, self.held = self.held, b""
        return held


_ESCAPE = (
    rb"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: a colour, a cursor move, an erase
    rb"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"  # OSC: a title, a link
    rb"|\x1b[ -/]*[0-Z\\^-~]"  # the other escapes: ESC 7, ESC ( B
    rb"|[\x00-\x1a\x1c-\x1f\x7f]"  # a control character: \r, \b, \n
)
"""What a terminal acts on and never draws."""
_MOVE = rb"(?:\n|\x1b\[[0-9;]*[HfEFdG])"
"""A line break or a cursor jump (to a row, a column, a line below): where a program that
draws a wrapped line (a terminal UI) goes on with it."""
_RAW_EDGE = "(?:[ \t]|\u2502|\u2503|\u2551)".encode()
"""What a terminal UI draws at the edge of a wrapped line (see :mod:`proctor.util.cutting`)."""
_STAY = rb"(?:(?!" + _MOVE + rb")(?:" + _ESCAPE + rb"))"
"""An escape or a control character that leaves the cursor on its line (a colour, a carriage
return)."""
_BETWEEN = (
    rb"(?>(?:"
    + _RAW_EDGE
    + rb"|"
    + _STAY
    + rb")*+"
    + _MOVE
    + rb"(?:"
    + _RAW_EDGE
    + rb"|"
    + _ESCAPE
    + rb")*+|"
    + _STAY
    + rb"*+)"
)
"""What may stand between two characters of a secret in a terminal's byte stream: escapes
and control characters (a colour, the cursor moved on or back, a carriage return), and a
line break or cursor jump with all a terminal UI draws around it: the blanks it pads a line
with to its box's width, however many, the box's edges and the colours they are drawn in,
on both sides of the break (Gemini CLI's: blanks, ``ESC[2m ESC[38;2;…m │ ESC[39m ESC[22m``, CR
LF, ``ESC[2m ESC[38;2;…m │ ESC[22m ESC[39m``, a blank). Blanks or an edge with no line break are not
(two words are not one key). Atomic: none of it is a character of a secret, so what it takes
is never given back (no backtracking)."""


@functools.lru_cache(maxsize=16)
def _terminal_patterns(
    secrets: tuple[str, ...],
) -> tuple[tuple[bytes | None, re.Pattern[bytes]], ...]:
    """Each secret's pattern in a terminal's stream, after what it is looked for as first (see
    :func:`_squeezed`; None: the pattern is run in every case)."""
    return tuple(
        (
            None if _OPENS.search(s) else _squeezed(s.encode()),
            re.compile(_bounded(s, _BETWEEN.join(re.escape(c.encode()) for c in s))),
        )
        for s in secrets
    )


def _bounded(secret: str, pattern: bytes) -> bytes:
    """A secret's ``pattern``, where it stands alone when it is one masked so (see
    :func:`~proctor.util.masking.stands_alone`)."""
    return alone(pattern.decode("latin-1")).encode("latin-1") if stands_alone(secret) else pattern


def mask_terminal(raw: bytes) -> bytes:
    """A terminal's byte stream (``terminal.raw``) with every registered secret masked, one
    drawn with escapes or control characters between its characters (``sk-ant-ab`` +
    ``ESC[1C`` + ``cd…``, a colour changed in it) or wrapped over lines too. The mask keeps
    what the secret spanned between its characters (escapes, control characters, a line
    break with the padding and box edges around it), so the terminal state it leaves
    (colours, the cursor's line) and the frame a terminal UI drew stay. A secret drawn in
    parts that are not one after the other in the stream (a redraw of only the cells that
    changed, the cursor sent back over cells drawn before) is not found: no single stretch of
    the stream holds it."""
    secrets = tuple(registered_secrets())
    if not secrets:
        return raw
    # Where no secret is drawn (nearly always), its pattern is never run: each is looked for
    # first in the stream with all it may skip between two characters taken out.
    drawn = (_squeezed(_ESCAPE_SEQUENCE.sub(b"", raw)), _squeezed(_CSI.sub(b"", raw)))
    for needle, pattern in _terminal_patterns(secrets):
        if needle is not None and not any(needle in d for d in drawn):
            continue
        raw = pattern.sub(lambda m: MASK.encode() + b"".join(_SEPARATOR.findall(m[0])), raw)
    return raw


_OPENS = re.compile("[\x1b\x07\x9b\x9d]")
"""A character of a secret that may begin or end an escape: with one, its pattern is run in
every case."""
_ESCAPE_SEQUENCE = re.compile(
    rb"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[ -/]*[0-Z\\^-~]"
)
_CSI = re.compile(rb"\x1b\[[0-?]*[ -/]*[@-~]")
_BLANKS = bytes([*range(0x1B), *range(0x1C, 0x20), 0x7F, ord(" ")])
_EDGES = [c.encode() for c in "\u2502\u2503\u2551"]


def _squeezed(data: bytes) -> bytes:
    """``data`` without control characters (but ESC), blanks and box edges: what a secret's
    pattern skips between its characters, with its escapes taken out before (all of them, or
    the CSI ones only: a secret in a link's address, inside an OSC, or right after an escape
    of two bytes is found in the second). One character of a secret that is one of these is
    taken out of it too."""
    data = data.translate(None, _BLANKS)
    for edge in _EDGES:
        data = data.replace(edge, b"")
    return data.replace(b"\x1b]", b"") if b"\x1b]" in data else data


_SEPARATOR = re.compile(_BETWEEN)
_UNFINISHED = re.compile(
    rb"(?:" + _RAW_EDGE + rb"|" + _ESCAPE + rb")*+"
    rb"(?:\x1b(?:\[[0-?]*[ -/]*|\][^\x07\x1b]*\x1b?|[ -/]*)?|\xe2[\x94\x95]?)?"
)
"""How a stream may end between two characters of a secret, before the next comes: blanks
or box edges (a line's padding, its break yet to come), escapes, and the first bytes of one
more (an escape, an edge's character)."""
_TRAILING = re.compile(
    rb"(?<![ \t\x00-\x1a\x1c-\x1f\x7f])(?<!\xe2\x94[\x82\x83])(?<!\xe2\x95\x91)"
    rb"(?:" + _UNFINISHED.pattern + rb")\Z"
)
"""What of :data:`_UNFINISHED` ends a stream, looked for from where a run of blanks, control
characters (but ESC) and box edges begins only: not again from each of them (any match from
one of them is a match from the one before it, a step shorter)."""
_REACH_PER_CHAR = 64
"""The most bytes looked back for the start of a secret, per character of the longest: room
for escapes (a colour or two) between each two of its characters."""
_LINE_REACH = 1024
"""The most bytes looked back for what may end a line after a first character of a secret
(a terminal UI's padding, to a wide terminal's last column, and its box's edges)."""


def _partial_start(data: bytes) -> int:
    """Where the first stretch at the end of ``data`` that could begin a registered secret
    starts (its first characters, with what :func:`mask_terminal` finds between them, up to
    the end); ``len(data)`` when none does."""
    by_first, firsts, pairs, longest = _by_first_byte(tuple(registered_secrets()))
    if firsts is None:
        return len(data)
    start = max(0, len(data) - _REACH_PER_CHAR * longest)
    # Where two characters of a secret stand (found at once, however many secrets there
    # are), and near the end, where its first alone may.
    # A first character followed by a line's padding (up to the end) may stand further back.
    trailing = _TRAILING.search(data, max(start, len(data) - _LINE_REACH))
    near_end = max(start, (trailing.start() if trailing else len(data)) - 2 * _REACH_PER_CHAR)
    places = {found.start() for found in pairs.finditer(data, start)}
    places.update(found.start() for found in firsts.finditer(data, near_end))
    for i in sorted(places):
        if any(_begins(data, i, chars) for chars in by_first[data[i : i + 1]]):
            return i
    return len(data)


@functools.lru_cache(maxsize=4)
def _by_first_byte(
    secrets: tuple[str, ...],
) -> tuple[dict[bytes, list[list[bytes]]], re.Pattern[bytes] | None, re.Pattern[bytes], int]:
    """The secrets (each as its characters' bytes) by their first byte, a pattern of those
    bytes, one of where the first two characters of one stand (what may be between them
    too), and the most characters of one."""
    grouped: dict[bytes, list[list[bytes]]] = {}
    for secret in secrets:
        chars = [c.encode() for c in secret]
        grouped.setdefault(chars[0][:1], []).append(chars)
    if not grouped:
        return grouped, None, re.compile(b"(?!)"), 0
    firsts = re.compile(b"[" + b"".join(re.escape(b) for b in grouped) + b"]")
    two = {re.escape(c[0]) + _BETWEEN + re.escape(c[1]) for g in grouped.values() for c in g}
    pairs = re.compile(b"(?=" + b"|".join(sorted(two)) + b")")
    return grouped, firsts, pairs, max(map(len, secrets))


def _begins(data: bytes, pos: int, chars: list[bytes]) -> bool:
    """Whether ``data`` from ``pos`` to its end is the beginning of the secret ``chars``."""
    for k, char in enumerate(chars):
        if k:
            pos = _SEPARATOR.match(data, pos).end()  # type: ignore[union-attr]
        rest = data[pos:]
        if char.startswith(rest):  # the end (or the first bytes of the character) comes
            return True
        if not rest.startswith(char):
            return k > 0 and _UNFINISHED.fullmatch(rest) is not None
        pos += len(char)
    return False  # the whole secret: masked already
