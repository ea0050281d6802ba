"""Figures: the numbers an advice cites, the numbers its signals hold, and whether the first
appear among the second.

What counts as a figure in a text (advice, or a string inside the signals):

- integers and decimals, with thousands separators (``12,345`` is 12345; so is ``12 345`` with
  a no-break or thin space, U+00A0, U+2009 or U+202F, but a plain space separates two figures,
  as in "step 1 234 files"), a sign when the minus
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

import bisect
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
    r"(?P<int>\d{1,3}(?P<group>[,\u00a0\u2009\u202f])\d{3}(?:(?P=group)\d{3})*(?!\d)|\d+)"
    r"(?:\.(?P<frac>\d+))?"
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
    for start, end, value, tolerance, percent in _marks(text):
        yield Figure(text[start:end].strip(), value, tolerance, percent, start, end)


_Mark = tuple[int, int, float, float, bool]
"""A figure of a text: ``(start, end, value, tolerance, percent)``."""
_Read = tuple[int, float, float, bool] | None
"""A match read as a figure: where the figure starts in it, its value, tolerance and whether
it is a percentage; None when it is no figure."""


def _marks(text: str) -> Iterator[_Mark]:
    """The figures of ``text`` in order. A spelling met again in the same surroundings (the
    characters around it that decide whether it is a figure) is not read again."""
    known: dict[tuple[str, str, str, str], _Read] = {}
    for match in _TOKEN.finditer(text):
        start, end = match.span()
        digits = match.start("int")
        key = (
            match.group(),
            text[start - 1 : start],
            text[digits - 1 : digits],
            text[end : end + 1],
        )
        if key not in known:
            known[key] = _read(match, *key[1:])
        read = known[key]
        if read is not None:
            offset, value, tolerance, percent = read
            yield start + offset, end, value, tolerance, percent


def _read(match: re.Match[str], before: str, before_digits: str, after: str) -> _Read:
    """``match`` read as a figure, given the characters before it, before its digits and after
    it (see the module's rules)."""
    if match.group("version"):
        return None
    negative = bool(match.group("sign"))
    if negative and _wordy(before):
        negative = False  # a hyphen inside a word or between numbers, not a minus
    elif not negative and _wordy(before_digits):
        return None  # digits glued to a word: a name such as sha256 or v12 (not US$15)
    if match.group("exp") and _wordy(after):
        return None  # 2e4512c: a short commit id, not 2 × 10^4512
    frac = match.group("frac") or ""
    suffix = match.group("suffix") or ""
    scale = MULTIPLIERS.get(suffix, 1.0)
    if match.group("exp"):  # scientific notation: 1e6, 2.5e4
        exponent = int(match.group("exp"))
        scale *= 10.0**exponent if abs(exponent) <= 308 else math.inf
    digits = match.group("int").replace(match.group("group") or ",", "")
    magnitude = float(digits + ("." + frac if frac else "")) * scale
    tolerance = 0.5 * 10.0 ** (-len(frac)) * scale
    if not (math.isfinite(magnitude) and math.isfinite(tolerance)):
        return None  # (99999e305 is no figure anyone reads: it would be infinite)
    offset = 1 if match.group("sign") and not negative else 0
    return offset, -magnitude if negative else magnitude, tolerance, bool(match.group("percent"))


def _wordy(character: str) -> bool:
    """Whether ``character`` (empty at an end of the text) belongs to a word or a number."""
    return character.isalnum() or character == "_"


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


@dataclass(frozen=True)
class Findings:
    """What the check of one advice found."""

    shown: list[Ungrounded]
    """The first ungrounded figures, in order (at most the ``limit`` asked for)."""
    ungrounded: int
    """How many ungrounded figures the advice holds in all."""
    left_out: int
    """Figures of 10 or more within or partly in a hidden range (see :func:`hidden_figures`)."""


def check_advice(
    advice: str, signals: JsonValue, hidden: Sequence[Span] = (), limit: int | None = None
) -> Findings:
    """The ungrounded figures of ``advice`` (the first ``limit`` of them with their sentences,
    and how many in all) and the figures left out within hidden ranges, in one pass whose
    time grows with the length of the advice and of the signals, not their product."""
    known = _SignalIndex(signal_figures(signals))
    ends = [b for _, b in hidden]
    verdicts: dict[tuple[float, float, bool], bool] = {}
    shown: list[Ungrounded] = []
    ungrounded = left_out = 0
    for start, end, value, tolerance, percent in _marks(advice):
        if abs(value) < CHECKED_FROM:
            continue
        overlapping = _overlapping(start, end, hidden, ends) if hidden else []
        if overlapping and any(not (start <= a and b <= end) for a, b in overlapping):
            left_out += 1
            continue
        key = (abs(value), tolerance, percent)
        grounded = verdicts.get(key)
        if grounded is None:
            grounded = verdicts[key] = known.grounds(*key)
        if grounded:
            continue
        ungrounded += 1
        if limit is None or len(shown) < limit:
            shown.append(
                Ungrounded(
                    _short(_shown(advice, start, end, overlapping).strip()),
                    value,
                    sentence_around(advice, start, end, hidden),
                    hidden=bool(overlapping),
                )
            )
    return Findings(shown, ungrounded, left_out)


def ungrounded_figures(
    advice: str, signals: JsonValue, hidden: Sequence[Span] = ()
) -> list[Ungrounded]:
    """The figures of ``advice`` of 10 or more that match no figure of ``signals``.

    ``hidden``: ranges of the advice never shown (registered secrets, in order, apart). A
    figure within one, or partly in one, is part of the secret (the digit runs of a token),
    not a figure the advice cites: it is left out (see :func:`hidden_figures`). A figure that
    holds hidden ranges whole (a forwarded value cited as a number) is checked like any other,
    and shown with them as ``***``, as is its sentence."""
    return check_advice(advice, signals, hidden).shown


def hidden_figures(advice: str, hidden: Sequence[Span]) -> int:
    """How many figures of 10 or more in ``advice`` lie within or partly in a hidden range:
    parts of a secret, left out of :func:`ungrounded_figures`."""
    return check_advice(advice, {}, hidden).left_out


class _SignalIndex:
    """A checkpoint's signal figures, sorted, so that matching a figure is a binary search."""

    def __init__(self, signals: SignalFigures) -> None:
        self.values = sorted(v for v in signals.values if math.isfinite(v))
        self.percents = sorted(v for v in signals.percents if math.isfinite(v))

    def grounds(self, target: float, tolerance: float, percent: bool) -> bool:
        """Whether a figure of ``target`` (written to ``tolerance``) matches a signal figure
        (as :func:`is_grounded`: the candidates near it are checked with the same rule)."""
        reach = tolerance + 1e-8 * max(1.0, target + tolerance)
        pools = (self.values, self.percents) if percent else (self.values,)
        for pool in pools:
            at = bisect.bisect_left(pool, target - reach)
            while at < len(pool) and pool[at] <= target + reach:
                if _close(target, pool[at], tolerance):
                    return True
                at += 1
        return False


def _overlapping(start: int, end: int, hidden: Sequence[Span], ends: Sequence[int]) -> list[Span]:
    """The hidden ranges (in order, apart; ``ends`` their ends) that overlap ``start:end``."""
    found: list[Span] = []
    for at in range(bisect.bisect_right(ends, start), len(hidden)):
        a, b = hidden[at]
        if a >= end:
            break
        found.append((a, b))
    return found


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
