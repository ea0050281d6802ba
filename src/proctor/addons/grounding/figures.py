"""Figures: the numbers an advice cites, the numbers its signals hold, and whether the first
appear among the second.

What counts as a figure in a text (advice, or a string inside the signals):

- integers and decimals, with thousands separators (``12,345`` is 12345), a sign when the minus
  stands alone (``-15``; the hyphen of ``2026-03-01`` or ``10-20`` is not a sign), a currency
  mark (``$1.20``, also after a country prefix: ``US$15``), a percentage (``45%``,
  ``45 percent``), a multiplier suffix (``12k``, ``1.2M``, ``3B``, ``2bn``) and any other unit
  written straight after (``3x``, ``200ms``);
- not a figure: digits glued to a word before them (``sha256``, ``v12``, ``test_42``: names,
  not quantities) and dotted versions (``1.2.3``). Years, dates and clock times are figures like
  any other (``2026`` must be in the signals to be cited).

A figure is grounded when its value matches a signal figure within the precision it is written
with: half a unit of its last digit (``4,200`` matches 4200 only; ``4.2k`` matches 4150 to 4250;
``$1.37`` matches 1.365 to 1.375). Signs are ignored (``-15`` and ``15`` are the same figure).
A percentage also matches a ratio: a signal written as a decimal between 0 and 1 (``0.71``)
grounds ``71%``. Nothing else is derived: a sum, a difference or a projection of the signals is
not in them, so it is not grounded.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from pydantic import JsonValue

from proctor.util.masking import MASK

#: Figures smaller than this (in absolute value) are not checked.
CHECKED_FROM = 10.0
MULTIPLIERS = {"k": 1e3, "K": 1e3, "M": 1e6, "B": 1e9, "bn": 1e9}
_TOKEN = re.compile(
    r"(?P<version>v?\d+(?:\.\d+){2,})"
    r"|(?P<sign>[-\u2212])?(?P<currency>[$\u20ac\u00a3])?"
    r"(?P<int>\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?:\.(?P<frac>\d+))?"
    r"(?:[eE](?P<exp>[-+]?\d+)(?![A-Za-z]))?"
    r"(?:(?P<percent>\s?%|\s(?:percent|per cent)\b)|(?P<suffix>bn|[kKMB])(?![A-Za-z]))?"
)
_SENTENCE_END = re.compile(r"[.!?](?=\s)|\n")
_TEXT_LIMIT = 240
Span = tuple[int, int]
"""A range of a text, ``(start, end)``."""


@dataclass(frozen=True)
class Figure:
    """A number as written in a text, its value and the precision it is written with."""

    written: str
    value: float
    tolerance: float
    percent: bool
    start: int
    end: int

    @property
    def checked(self) -> bool:
        return abs(self.value) >= CHECKED_FROM


@dataclass(frozen=True)
class SignalFigures:
    """Every number a checkpoint's signals hold, and the percentages their ratios stand for."""

    values: tuple[float, ...]
    percents: tuple[float, ...]


@dataclass(frozen=True)
class Ungrounded:
    """A checked figure of the advice that matches no signal figure, with its sentence."""

    figure: str
    value: float
    text: str
    hidden: bool = False
    """Whether the figure as written holds a hidden range (a forwarded value), shown ``***``."""


def figures_in(text: str) -> list[Figure]:
    """The figures of ``text`` in order (see the module's rules)."""
    return list(_scan(text))


def _scan(text: str) -> Iterator[Figure]:
    for match in _TOKEN.finditer(text):
        if match.group("version"):
            continue
        negative = bool(match.group("sign"))
        if negative and _glued(text, match.start()):
            negative = False  # a hyphen inside a word or between numbers, not a minus
        elif not negative and _glued(text, match.start("int")):
            continue  # digits glued to a word: a name such as sha256 or v12 (not US$15)
        if match.group("exp") and _word_after(text, match.end()):
            continue  # 2e4512c: a short commit id, not 2 × 10^4512
        figure = _figure(text, match, negative)
        if math.isfinite(figure.value) and math.isfinite(figure.tolerance):
            yield figure  # (99999e305 is no figure anyone reads: it would be infinite)


def _word_after(text: str, position: int) -> bool:
    return position < len(text) and (text[position].isalnum() or text[position] == "_")


def _glued(text: str, position: int) -> bool:
    """Whether the character before ``position`` belongs to a word (or a number)."""
    return position > 0 and (text[position - 1].isalnum() or text[position - 1] == "_")


def _figure(text: str, match: re.Match[str], negative: bool) -> Figure:
    frac = match.group("frac") or ""
    suffix = match.group("suffix") or ""
    scale = MULTIPLIERS.get(suffix, 1.0)
    if match.group("exp"):  # scientific notation: 1e6, 2.5e4
        exponent = int(match.group("exp"))
        scale *= 10.0**exponent if abs(exponent) <= 308 else math.inf
    magnitude = float(match.group("int").replace(",", "") + ("." + frac if frac else "")) * scale
    start = match.start() if negative or not match.group("sign") else match.start() + 1
    return Figure(
        written=text[start : match.end()].strip(),
        value=-magnitude if negative else magnitude,
        tolerance=0.5 * 10.0 ** (-len(frac)) * scale,
        percent=bool(match.group("percent")),
        start=start,
        end=match.end(),
    )


def signal_figures(signals: JsonValue) -> SignalFigures:
    """The numbers anywhere in ``signals``: numeric values, and figures inside string values.

    Booleans and keys are not figures. A float between 0 and 1 also stands for its percentage.
    An integer too large to be a float (past 1.8e308) is no figure, like such a number written
    in a text (see :func:`figures_in`).
    """
    values: list[float] = []
    percents: list[float] = []
    for item in _leaves(signals):
        if isinstance(item, bool) or item is None:
            continue
        if isinstance(item, str):
            values.extend(abs(f.value) for f in figures_in(item))
            continue
        try:
            values.append(abs(float(item)))
        except OverflowError:
            continue
        if isinstance(item, float) and 0 < abs(item) <= 1:
            percents.append(abs(item) * 100)
    return SignalFigures(tuple(values), tuple(percents))


def _leaves(value: JsonValue) -> Iterator[str | int | float | bool | None]:
    if isinstance(value, dict):
        for item in value.values():
            yield from _leaves(item)
    elif isinstance(value, list):
        for item in value:
            yield from _leaves(item)
    else:
        yield value


def is_grounded(figure: Figure, signals: SignalFigures) -> bool:
    """Whether ``figure`` matches a signal figure within the precision it is written with."""
    target = abs(figure.value)
    candidates = signals.values + (signals.percents if figure.percent else ())
    return any(_close(target, value, figure.tolerance) for value in candidates)


def _close(target: float, value: float, tolerance: float) -> bool:
    slack = 1e-9 * max(1.0, abs(value))  # binary fractions: 1.365 is not exactly 1.365
    return math.isfinite(value) and abs(target - value) <= tolerance + slack


def ungrounded_figures(
    advice: str, signals: JsonValue, hidden: Sequence[Span] = ()
) -> list[Ungrounded]:
    """The figures of ``advice`` of 10 or more that match no figure of ``signals``.

    ``hidden``: ranges of the advice never shown (registered secrets, in order, apart). A
    figure within one, or partly in one, is part of the secret (the digit runs of a token),
    not a figure the advice cites: it is left out (see :func:`hidden_figures`). A figure that
    holds hidden ranges whole (a forwarded value cited as a number) is checked like any other,
    and shown with them as ``***``, as is its sentence."""
    known = signal_figures(signals)
    return [
        Ungrounded(
            _short(_shown(advice, figure.start, figure.end, hidden).strip()),
            figure.value,
            sentence_around(advice, figure.start, figure.end, hidden),
            hidden=any(figure.start <= a and b <= figure.end for a, b in hidden),
        )
        for figure in figures_in(advice)
        if figure.checked and not _in_hidden(figure, hidden) and not is_grounded(figure, known)
    ]


def hidden_figures(advice: str, hidden: Sequence[Span]) -> int:
    """How many figures of 10 or more in ``advice`` lie within or partly in a hidden range:
    parts of a secret, left out of :func:`ungrounded_figures`."""
    return sum(1 for f in figures_in(advice) if f.checked and _in_hidden(f, hidden))


def _in_hidden(figure: Figure, hidden: Sequence[Span]) -> bool:
    """Whether ``figure`` overlaps a hidden range it does not hold whole."""
    return any(
        a < figure.end and figure.start < b and not (figure.start <= a and b <= figure.end)
        for a, b in hidden
    )


def _short(written: str) -> str:
    """A figure as the report shows it: a run of thousands of digits is cut in the middle."""
    return written if len(written) <= 40 else f"{written[:18]}…{written[-18:]}"


def _outside(position: int, hidden: Sequence[Span], *, right: bool) -> int:
    """``position`` moved off any hidden range it falls inside: to the range's end (``right``,
    a cut after the text) or its start, so that the range is shown whole, as ``***``."""
    for a, b in hidden:
        if a < position < b:
            return b if right else a
    return position


def _shown(text: str, start: int, end: int, hidden: Sequence[Span]) -> str:
    """``text[start:end]`` with each hidden range in it written ``***`` (the cut points must
    not fall inside one: see :func:`_outside`)."""
    parts: list[str] = []
    at = start
    for a, b in hidden:
        if start <= a and b <= end:
            parts += [text[at:a], MASK]
            at = b
    return "".join(parts) + text[at:end]


def sentence_around(text: str, start: int, end: int, hidden: Sequence[Span] = ()) -> str:
    """The sentence (or line) of ``text`` holding ``text[start:end]``, shortened if long;
    each ``hidden`` range shown as ``***``, whole (a cut never falls inside one)."""
    # Sentence ends are looked for near the figure only: a sentence past this reach is
    # shortened below anyway, and scanning from the start for every figure was quadratic.
    reach = _TEXT_LIMIT + 200
    floor = max(0, start - reach)
    left = floor
    for boundary in _SENTENCE_END.finditer(text, floor, start):
        left = boundary.end()
    following = _SENTENCE_END.search(text, end, end + reach)
    right = following.end() if following else min(len(text), end + reach)
    left, right = _outside(left, hidden, right=False), _outside(right, hidden, right=True)
    sentence = " ".join(_shown(text, left, right, hidden).split())
    if len(sentence) <= _TEXT_LIMIT:
        return sentence
    first = _outside(max(left, start - 100), hidden, right=False)
    last = _outside(min(right, end + 100), hidden, right=True)
    middle = " ".join(_shown(text, first, last, hidden).split())
    return f"... {middle} ..."
