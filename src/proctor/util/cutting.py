"""Text cut for a page without cutting a registered secret in two.

Masking replaces whole secrets only, so a cut through one would leave its first part in the
clear. Every cut the viewer makes (a long event text, a long raw line, the head of a diff or
of a terminal) stops at the start of a secret it would split instead. A terminal's screen
(``screen.log``) wraps its lines at the terminal's width, so there a secret may also be split
by a line break: :func:`mask_wrapped` masks it so, and a cut never splits it either.

A text kept in a record or printed (a program's last line of output, the tail of its output,
a shortened label) is masked whole first and cut after: :func:`masked_head`,
:func:`masked_tail`, :func:`masked_short` and :func:`output_tail`. A record printed as JSON is
masked string by string (:func:`masked_data`).
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from proctor.util.files import open_regular
from proctor.util.masking import MASK, alone, mask, registered_secrets, stands_alone
from proctor.util.processes import TAIL_CHARS, Outcome

_EDGE = "[ \t\u2502\u2503\u2551]"
"""What a terminal UI draws at the edge of a wrapped line: blanks, a box's vertical line."""
_EDGE_MOST = 4
_INDENT_MOST = 8
_BREAK = f"(?:{_EDGE}{{0,{_EDGE_MOST}}}\\r?\\n{_EDGE}{{0,{_INDENT_MOST}}})?"
"""What may stand between two characters of a secret on a screen: a line break (the line
wrapped there), with the blanks or box edge a UI draws before it and the indent it draws
after it (Codex CLI indents a wrapped line by two spaces)."""
_UTF8_MOST = 4
"""The most bytes one character takes in UTF-8."""


@lru_cache(maxsize=16)
def _patterns(secrets: tuple[str, ...], wrapped: bool) -> tuple[re.Pattern[str], ...]:
    """A pattern per secret, the longest first; ``wrapped``: a line break allowed between any
    two of its characters."""
    between = _BREAK if wrapped else ""
    joined = [(s, between.join(re.escape(c) for c in s)) for s in secrets]
    return tuple(re.compile(alone(p) if stands_alone(s) else p) for s, p in joined)


@lru_cache(maxsize=16)
def _finders(secrets: tuple[str, ...], wrapped: bool) -> tuple[re.Pattern[str], ...]:
    """The patterns of :func:`_patterns` as lookaheads, so that every place a secret starts is
    found, occurrences that overlap included."""
    return tuple(re.compile(f"(?=({p.pattern}))") for p in _patterns(secrets, wrapped))


def reach(*, wrapped: bool = False) -> int:
    """The most characters a registered secret spans in a text: its length, or on a screen
    with a line break (and its edges) after each character, that many times more (0 with
    none)."""
    longest = max(map(len, registered_secrets()), default=0)
    return (3 + _EDGE_MOST + _INDENT_MOST) * longest if wrapped else longest


def clear_cut(text: str, at: int, *, wrapped: bool = False) -> int:
    """Where to cut ``text`` to show at most ``at`` characters: ``at``, or the start of a
    registered secret that would be cut in two there (and so on back, should another span
    that place). ``text`` must go on past ``at`` by :func:`reach` characters (or to its end)
    for a secret there to be seen whole."""
    secrets = tuple(registered_secrets())
    if not secrets or at >= len(text):
        return min(at, len(text))
    span = reach(wrapped=wrapped)
    finders = _finders(secrets, wrapped)
    moved = True
    while moved and at > 0:
        moved = False
        start = max(0, at - span)
        window = text[start : at + span]
        for finder in finders:
            for found in finder.finditer(window):
                if start + found.start() < at < start + found.end(1):
                    at, moved = start + found.start(), True
                    break
            if moved:
                break
    return at


def mask_wrapped(text: str) -> str:
    """``text`` (a terminal's screen) with every registered secret masked, one that a line
    wraps too; the mask keeps the line breaks the secret spanned, so the lines stay lines."""
    for pattern in _patterns(tuple(registered_secrets()), True):
        text = pattern.sub(lambda m: MASK + "".join(re.findall(r"\r?\n", m.group())), text)
    return text


def read_head(path: Path, limit: int, *, wrapped: bool = False) -> tuple[str | None, bool]:
    """The first ``limit`` bytes of a text file (None when absent), and whether it is longer.
    A registered secret the limit would cut in two is left out whole (see :func:`clear_cut`;
    ``wrapped``: the file is a screen, whose lines a secret may span)."""
    margin = _UTF8_MOST * reach(wrapped=wrapped)
    try:
        with open_regular(path) as fh:
            data = fh.read(limit + 1 + margin)
    except OSError:
        return None, False
    if len(data) <= limit:
        return data.decode("utf-8", errors="replace"), False
    # The head as bytes cut it (a character split at the end is one replacement character,
    # as it is one character of the whole), then moved back off any secret it splits.
    shown = len(data[:limit].decode("utf-8", errors="replace"))
    text = data.decode("utf-8", errors="replace")
    return text[: clear_cut(text, shown, wrapped=wrapped)], True


def cut_line(line: bytes, limit: int) -> tuple[str, int]:
    """A line of bytes shown as at most its first ``limit`` bytes (a character split at the
    cut left out, and a registered secret the cut would split left out whole), and how many
    bytes are not shown."""
    head = line[:limit].decode("utf-8", errors="ignore")
    text = line[: limit + _UTF8_MOST * reach()].decode("utf-8", errors="ignore")
    at = clear_cut(text, len(head))
    return text[:at], len(line) - limit + len(head[at:].encode())


def masked_head(text: str, limit: int) -> str:
    """The first ``limit`` characters of ``text`` with every registered secret masked: masked
    whole before the cut, so no first part of a key survives it."""
    return mask(text)[: max(limit, 0)]


def masked_tail(text: str, limit: int) -> str:
    """The last ``limit`` characters of ``text`` with every registered secret masked: masked
    whole before the cut, so no last part of a key survives it."""
    return mask(text)[-limit:] if limit > 0 else ""


def masked_short(text: str, limit: int, mark: str = "…") -> str:
    """``text`` with every registered secret masked, then shortened to ``limit`` characters
    (``mark`` the last of them) when longer."""
    masked = mask(text)
    return masked if len(masked) <= limit else masked[: max(limit - len(mark), 0)] + mark


def output_tail(outcome: Outcome, limit: int = TAIL_CHARS) -> str:
    """The last ``limit`` characters of a program's output (its standard output, then its
    error output), every registered secret masked before the cut."""
    out, err = outcome.stdout, outcome.stderr
    return masked_tail((out + ("\n" if out and err else "") + err).strip(), limit)


def masked_data(value: Any) -> Any:
    """A JSON-like value (dicts, lists, strings, numbers) with every registered secret masked
    in each string of it, the keys of a dict too: for a record printed as JSON, whose escapes
    could otherwise hide a key from a mask of the printed text."""
    if isinstance(value, str):
        return mask(value)
    if isinstance(value, dict):
        return {masked_data(k): masked_data(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [masked_data(v) for v in value]
    return value


def secret_spans(text: str) -> list[tuple[int, int]]:
    """Where registered secrets occur in ``text``: ``(start, end)`` ranges in order, those
    that overlap or touch merged into one. For a reader that must treat every part of a
    secret as the secret (a run of digits inside a token is no figure of its own)."""
    finders = _finders(tuple(registered_secrets()), False)
    found = sorted((m.start(), m.end(1)) for finder in finders for m in finder.finditer(text))
    merged: list[tuple[int, int]] = []
    for start, end in found:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged
