"""Small text helpers shared by the Markdown writers and the checks of what users write."""

from __future__ import annotations

import codecs
import difflib
import math
import re
import unicodedata
from collections.abc import Callable, Iterable

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
"""Control characters but tab and newline, and the marks and overrides that reorder text
shown from right to left (a line written one way that reads another)."""


def controls_escaped(text: str) -> str:
    """``text`` with its control characters but tab and newline shown as ``\\x1b``-style
    escapes (a direction override as ``\\u202e``): a terminal's escape sequence in it is
    shown, never obeyed, and no text reads in another order than it was written."""
    return _CONTROL.sub(_escaped, text)


def escaped_line(text: str) -> str:
    """``text`` shown as one line of a report: its control characters escaped as
    :func:`controls_escaped` does, and a line break in it (a name holding one) as ``\\n``, so
    it neither starts a line of its own nor moves the terminal's cursor. Text that is no control
    character (accents, CJK, emoji) is left as it is."""
    return controls_escaped(text).replace("\n", "\\n")


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def plural(n: int, noun: str) -> str:
    """``"1 pair"``, ``"2 pairs"``, ``"0 pairs"``: the count with a regular English plural."""
    return f"{n} {noun_for(n, noun)}"


def noun_for(n: int, noun: str) -> str:
    """The noun for ``n`` of it, without the count, for a list that follows it: ``"reporter"``
    for one, ``"reporters"`` for any other number."""
    return noun if n == 1 else f"{noun}s"


def one_line(text: str) -> str:
    """``text`` as one line is shown on a terminal: its runs of white space (line breaks too)
    as one space, and its control characters escaped (a terminal's escape sequence in it is
    shown, never obeyed)."""
    return controls_escaped(" ".join(text.split()))


_LINE_BREAK = re.compile(r"[ \t]*(?:\r\n|[\n\r\u2028\u2029])\s*")
"""A line break, with the white space around it (a message's next line, indented)."""


def joined_lines(text: str) -> str:
    """``text`` as one line, as :func:`one_line` shows it, but keeping its runs of spaces
    within a line (a ``repr`` of code in a message keeps its indentation): each line break,
    with the white space around it, is one space."""
    return controls_escaped(_LINE_BREAK.sub(" ", text.strip()))


def columns(
    rows: Iterable[tuple[str, ...]], least: tuple[int, ...], gaps: tuple[str, ...]
) -> list[str]:
    """Rows of a plain-text table (its head first), each column as wide as its widest cell and
    at least ``least`` (a negative width: the column aligned right); ``gaps[i]`` goes after
    column ``i``, and a cell past the widths (the last, free text) is left as it is. A long
    case id widens its column rather than pushing its row out of line."""
    rows = list(rows)
    widths = [
        max([abs(width), *(shown_width(row[i]) for row in rows if i < len(row))])
        for i, width in enumerate(least)
    ]
    lines = []
    for row in rows:
        parts = []
        for i, cell in enumerate(row):
            if i < len(widths):
                pad = " " * (widths[i] - shown_width(cell))
                cell = pad + cell if least[i] < 0 else cell + pad
            parts.append(cell if i == len(row) - 1 else cell + (gaps[i] if i < len(gaps) else " "))
        lines.append("".join(parts).rstrip())
    return lines


def shown_width(text: str) -> int:
    """How many columns of a terminal ``text`` takes: a wide character (``日``, most emoji)
    two, and so is one shown as an emoji (``❤️``, a keycap); a combining or enclosing mark, a
    format character (a zero-width space or joiner), a Hangul vowel or final jamo after its
    initial, an emoji's skin tone, and a character a zero-width joiner ties to the one before
    (a family of emoji), none; any other one. So a column of ids in Japanese or Thai lines up
    (the standard library's own tables; a terminal may still draw a rare sequence otherwise)."""
    if text.isascii():
        return len(text)
    width = last = 0
    joined = False
    for c in text:
        if c == "\ufe0f" and not joined:  # shown as an emoji: the character before, two wide
            width, last = width + (2 - last if last == 1 else 0), 2
            continue
        zero = joined or unicodedata.category(c) in _ZERO_WIDTH or "\u1160" <= c <= "\u11ff"
        zero = zero or "\U0001f3fb" <= c <= "\U0001f3ff"
        joined = c == "\u200d"
        if not zero:
            last = 2 if unicodedata.east_asian_width(c) in ("W", "F") else 1
            width += last
    return width


_ZERO_WIDTH = frozenset({"Mn", "Me", "Cf"})
"""The categories of the characters drawn in no column of their own."""


def table_cell(text: str) -> str:
    """``text`` safe inside a Markdown table cell: a ``|`` would start a new cell and a line
    break would end the row; its other control characters escaped (see
    :func:`controls_escaped`), since a Markdown report is also read in a terminal."""
    one_row = text.replace("|", "\\|").replace("\r\n", " ").replace("\n", " ").replace("\r", " ")
    return controls_escaped(one_row)


_TAG_START = re.compile(r"<(?=[A-Za-z/!?])")
"""A ``<`` that Markdown reads as the start of an HTML tag, comment or declaration."""
_CODE_SPAN = re.compile(r"(?<![\\`])(`+)(?!`).+?(?<!`)\1(?!`)", re.S)
"""A code span: a whole run of backticks that no backslash escapes, up to the next run of as
many."""


def markdown_text(text: str) -> str:
    """``text`` shown as written in Markdown a web page renders (a CI's job summary), where
    ``<Button>`` in a case name or a quoted question would be read as an HTML tag and
    dropped: each ``<`` that would start a tag is escaped (``\\<``), outside code spans, which
    show it as it is."""
    if "<" not in text:
        return text
    return _outside_code_spans(text, lambda part: _TAG_START.sub(r"\\<", part))


def markdown_cell(text: str) -> str:
    """A table cell (see :func:`table_cell`) that a web page shows as written (see
    :func:`markdown_text`)."""
    return markdown_text(table_cell(text))


def _outside_code_spans(text: str, change: Callable[[str], str]) -> str:
    """``text`` with ``change`` made to each stretch of it outside its code spans, which show
    their text as it is."""
    parts, last = [], 0
    for span in _CODE_SPAN.finditer(text):
        parts += [change(text[last : span.start()]), span.group()]
        last = span.end()
    return "".join([*parts, change(text[last:])])


_BACKTICKS = re.compile(r"`+")


def code_span(text: str) -> str:
    """``text`` as a Markdown code span that shows it whole, backticks included: fenced by one
    backtick more than its longest run of them (a case named ``a`b`` is `` ``a`b`` ``, where
    `` `a`b` `` would end the span at its own backtick), and padded with a space inside the
    fence when it starts or ends with a backtick, or with a space on both sides (CommonMark
    strips one space from each side of a span)."""
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    fence = "`" * (longest + 1)
    edge = text[:1] == "`" or text[-1:] == "`" or (text[:1] == text[-1:] == " " and text.strip())
    pad = " " if edge else ""
    return f"{fence}{pad}{text}{pad}{fence}"


_NAME_MARKUP = re.compile(r"[*~]|\\(?=[!-/:-@\[-`{-~])|(?<![^\W_])_|_(?![^\W_])")
"""What Markdown would read as emphasis or strike-through in a name: every ``*`` and ``~``, a
backslash before a punctuation mark (which it would escape: ``\\d`` is shown as it is), and
a ``_`` at a word's edge (``__init__``, ``_draft``); one inside a word (``fix_a_bug``) is no
emphasis, and is kept as it is."""


def markdown_name(text: str) -> str:
    """A name (a case, an agent, a label), or a sentence naming them that holds no code span
    of its own (an exit reason), shown as written where Markdown is rendered: what would make
    it emphasis or strike-through is escaped with a backslash (``*star*`` is
    ``\\*star\\*``, ``__init__`` is ``\\_\\_init\\_\\_``), while ``fix_a_bug`` stays as
    it is, so that a terminal shows it unchanged too. Its backticks are escaped too when it
    holds more than one run of them (``a`b`c``, or two names ``a`b`` and ``c`d`` in one
    sentence), which Markdown would pair into a code span; a single one is kept as it is."""
    escaped = _NAME_MARKUP.sub(_backslashed, text)
    if len(_BACKTICKS.findall(text)) > 1:
        escaped = escaped.replace("`", "\\`")
    return escaped


def markdown_quoting(text: str) -> str:
    """A sentence that quotes names (a trial's reason) shown as written where Markdown is
    rendered: escaped as :func:`markdown_name` escapes a name's emphasis marks, outside its
    code spans, which show their text as it is."""
    return _outside_code_spans(text, lambda part: _NAME_MARKUP.sub(_backslashed, part))


_INLINE_MARKUP = re.compile(r"[\\*_~\[\]]|<(?=[A-Za-z/!?])|&(?=#?\w+;)|^[ ]{0,3}[#>]", re.M)
"""What Markdown would read as markup in a sentence: emphasis and strike-through marks, link
brackets, a backslash (which would escape what follows it), a tag's ``<``, an entity's ``&``,
and a heading's ``#`` or a quote's ``>`` at a line's start."""


def markdown_literal(text: str) -> str:
    """``text``, a sentence proctor wrote, shown as written where Markdown is rendered (a CI's
    job summary): what Markdown would read as markup is escaped with a backslash (``\\*``: a
    glob's ``*`` is no emphasis, ``__init__`` no bold), outside code spans, which show their
    text as it is and are left as they are (the sentence's own `` `proctor …` ``)."""
    parts, last = [], 0
    for span in _CODE_SPAN.finditer(text):
        parts += [_INLINE_MARKUP.sub(_backslashed, text[last : span.start()]), span.group()]
        last = span.end()
    return "".join([*parts, _INLINE_MARKUP.sub(_backslashed, text[last:])])


def _backslashed(match: re.Match[str]) -> str:
    found = match.group()
    return found[:-1] + "\\" + found[-1]


def without_noise(value: float) -> float:
    """A computed figure to twelve significant digits: the last bits a float's own rounding
    leaves (2.9875000000000007 for 2.9875, 2.1450000000000014 for 12.345 - 10.2) are not
    shown as if they were measured."""
    return float(f"{value:.12g}")


def fixed(value: float, digits: int = 0) -> str:
    """``value`` with ``digits`` decimals, a half rounded up as people round it: 0.01755 is
    0.0176 and 12.5 is 13 (a format rounds the float's binary value half to even, and shows
    0.0175 and 12)."""
    from decimal import ROUND_HALF_UP, Context, Decimal  # loaded by the first figure shown

    if value != value or value in (float("inf"), float("-inf")):
        return str(value)
    exact = Decimal(repr(value))
    # Room for every digit the result has (a float reaches 309 before its point).
    room = Context(prec=max(28, exact.adjusted() + digits + 2))
    shown = exact.quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP, context=room)
    return f"{shown:.{digits}f}"


def percent_text(share: float, *, signed: bool = False) -> str:
    """``share`` (0.625) in whole percent (``63``), a half rounded up as :func:`fixed` rounds
    it, as every other figure of the reports is; ``signed`` gives a sign to all but a shown 0
    (``+13``, ``-13``, ``0``: see :func:`with_sign`). The ``%`` or ``pts`` after it is the
    caller's."""
    return with_sign(fixed(without_noise(100 * share)), signed)


def with_sign(shown: str, signed: bool) -> str:
    """A figure as :func:`fixed` shows it, with its sign as every report shows a difference:
    ``+`` before one above 0 (``signed``), ``-`` before one below, and none before one that
    shows as 0 (``0.00``, ``0``), whichever side of 0 it lies on: ``-0.004`` s is ``0.00``,
    neither ``+0.00`` nor ``-0.00``."""
    if float(shown) == 0:
        return shown.lstrip("-")
    return f"+{shown}" if signed and not shown.startswith("-") else shown


NOISE = 1e-9
"""How near 0 a computed bound may be and still be a 0 (the A/B gate allows the same)."""


def bound_text(value: float, digits: int = 0, *, signed: bool = True) -> str:
    """A confidence interval's bound with ``digits`` decimals (a half rounded up, see
    :func:`fixed`), ``signed`` as :func:`percent_text` signs (``0`` for a 0); a bound that is
    not 0 but rounds to it keeps its first significant digit (``+0.006``, not ``+0``; ``+0.001``
    of 0.00096, not ``+0.0010``), so that
    an interval that excludes 0, and is claimed so, never reads as reaching it. A bound within
    :data:`NOISE` of 0 is a float's own rounding of a 0 (``0.1 + 0.2 - 0.3``), shown as 0."""
    value = without_noise(value)
    shown = fixed(value, digits)
    if abs(value) < NOISE:
        value = 0.0
    if value != 0 and float(shown) == 0:
        first = -math.floor(math.log10(abs(value)))
        shown = fixed(value, first)
        if abs(float(shown)) * 10 ** (first - 1) >= 1 - NOISE:
            # Rounded up into the next digit (0.00096 → 0.0010): one digit is 0.001.
            shown = fixed(value, first - 1)
    return with_sign(shown, signed)


def spread_text(median: float, low: float, high: float, *, seconds: bool = False) -> str:
    """``median (low–high)``, each as :func:`seconds_text` (``seconds``) or :func:`count_text`
    shows it: ``0.33 (0.31–0.37)``, ``2,749 (2,701–2,800)``; a median of whole counts that falls
    between two of them (an even number of trials) keeps its half: ``2.5 (2–3)``, as the JSON
    holds it."""
    shown = seconds_text if seconds else count_text
    return f"{shown(median)} ({shown(low)}–{shown(high)})"


def _grouped(text: str) -> str:
    """A number as :func:`fixed` writes it with a thousands separator: ``-1234.5`` →
    ``-1,234.5``; ``nan`` and ``inf`` as they are."""
    sign = text[:1] if text[:1] in "+-" else ""
    whole, point, decimals = text[len(sign) :].partition(".")
    return f"{sign}{int(whole):,}{point}{decimals}" if whole.isdecimal() else text


def count_text(value: float, *, signed: bool = False) -> str:
    """A count (tokens, tool calls, steps), or a figure computed from counts (a median, a
    delta, a bound), as every report shows one: whole, with a thousands separator
    (``2,749``), a figure between two counts with one decimal (``1,527.5``), a figure that is
    not 0 but would round to it with its first significant digit (``0.04``, never ``0.0``);
    ``signed`` as :func:`bound_text` signs (``+1,793``, ``-4``, ``0``)."""
    value = without_noise(value)
    whole = value != value or value in (float("inf"), float("-inf")) or value == int(value)
    return _grouped(bound_text(value, 0 if whole else 1, signed=signed))


SECONDS_DIGITS = 2
"""The decimals of a time in seconds, in every table and line of the reports."""


def seconds_text(value: float, *, signed: bool = False, bound: bool = False) -> str:
    """A time in seconds (an elapsed time, a median of them, their delta) as every report
    shows one: two decimals, a half up (``0.33``, ``1,204.50``), ``signed`` as
    :func:`bound_text` signs (``-0.17``, ``+0.01``, and ``0.00`` for -0.004: no sign before a
    figure shown as 0); a confidence interval's ``bound`` that
    is not 0 but would round to it keeps its first significant digit (``+0.004``), as
    :func:`bound_text` keeps it. The unit after it is the caller's."""
    if bound:
        return _grouped(bound_text(value, SECONDS_DIGITS, signed=signed))
    return _grouped(with_sign(fixed(without_noise(value), SECONDS_DIGITS), signed))


def dollars_text(value: float) -> str:
    """A cost to the hundredth of a cent, with a thousands separator (``$1,234.5000``), as
    every report shows one; a cost too small to show as one is said to be (``<$0.0001``)."""
    text = fixed(value, 4)
    return "<$0.0001" if value > 0 and text == "0.0000" else f"${_grouped(text)}"


def cache_write_text(written: int, for_an_hour: int, thousands: str = ",") -> str:
    """Tokens written to a cache, with the part kept for an hour when there is one:
    ``12,000 (8,000 for 1 h)``."""
    text = f"{written:,}".replace(",", thousands)
    if for_an_hour:
        text += f" ({f'{for_an_hour:,}'.replace(',', thousands)} for 1 h)"
    return text


def duration_text(seconds: float | None) -> str:
    """A time as people read it, rounded to the last unit shown, a half up (as :func:`fixed`
    rounds): ``42.5 s``, ``5m 30s``, ``2h 05m``, ``3d 04h``; 2.25 s is ``2.3 s`` and 48.5
    hours ``2d 01h``."""
    if seconds is None:
        return "–"
    tenths = fixed(seconds, 1)
    if float(tenths) < 60:
        return f"{tenths} s"
    whole = _whole(seconds, 1)
    if whole < 3600:
        return f"{whole // 60}m {whole % 60:02d}s"
    minutes = _whole(seconds, 60)
    if minutes < 24 * 60:
        return f"{minutes // 60}h {minutes % 60:02d}m"
    hours = _whole(seconds, 3600)
    return f"{hours // 24}d {hours % 24:02d}h"


def _whole(seconds: float, unit: int) -> int:
    """``seconds`` in whole ``unit`` seconds, a half rounded up (divided exactly: 174,600
    seconds are 48.5 hours, never a hair below)."""
    from decimal import ROUND_HALF_UP, Decimal

    if seconds != seconds or seconds in (float("inf"), float("-inf")):
        raise ValueError(f"not a time: {seconds}")
    exact = Decimal(repr(seconds)) / unit
    return int(exact.quantize(Decimal(1), rounding=ROUND_HALF_UP))


def surrogate_shown(code: int) -> str:
    """A lone surrogate (an undecodable byte of a file name, as Python decodes it) as visible
    text: the byte as ``\\xe9``, any other surrogate as ``\\udc00``."""
    return f"\\x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"\\u{code:04x}"


_REPR_SURROGATE = re.compile(r"\\\\|\\u(d[89a-f][0-9a-f]{2})")


def shown_repr(text: str) -> str:
    """``repr(text)`` (quoted, for a message), with a lone surrogate written as
    :func:`surrogate_shown` writes it (``'plug\\xff'``, not ``'plug\\udcff'``): a name reads the
    same in a quoted message as in the records and the rest of the output."""
    return _REPR_SURROGATE.sub(
        lambda m: surrogate_shown(int(m.group(1), 16)) if m.group(1) else m.group(), repr(text)
    )


def _shown(exc: UnicodeError) -> tuple[str, int]:
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    text = exc.object[exc.start : exc.end]
    out = [
        surrogate_shown(ord(c))
        if 0xD800 <= ord(c) <= 0xDFFF
        else c.encode("ascii", "backslashreplace").decode("ascii")
        for c in text
    ]
    return "".join(out), exc.end


SHOWN = "proctor-shown"
"""An encoding error handler (``stream.reconfigure(errors=SHOWN)``): a lone surrogate is
written as :func:`surrogate_shown` writes it (a name reads the same on the terminal as in a
record), any other character the stream cannot encode as ``backslashreplace`` writes it."""
codecs.register_error(SHOWN, _shown)


def unknown_keys(extra: Iterable[str], known: Iterable[str]) -> str:
    """The sentence for keys a user wrote that are not among ``known``, naming the nearest
    known key when one is close: ``unknown key 'statsu' (did you mean 'status'? known keys:
    count, input, output, status)``."""
    wrong, names = sorted(extra), sorted(known)
    near = [m for key in wrong for m in difflib.get_close_matches(key, names, n=1)]
    hint = f"did you mean '{near[0]}'? " if near else ""
    listed = ", ".join(f"'{key}'" for key in wrong)
    plural = "s" if len(wrong) > 1 else ""
    return f"unknown key{plural} {listed} ({hint}known keys: {', '.join(names)})"


def unknown_name(kind: str, name: str, known: Iterable[str]) -> str:
    """The sentence for a name a user wrote that is not among ``known`` (listed in the order
    given), naming the nearest one when one is close: ``unknown evaluator 'comand' (did you
    mean 'command'? known: command, expect, …)``."""
    names = list(known)
    return f"unknown {kind} '{name}' ({did_you_mean(name, names)}known: {', '.join(names)})"


def blank_in_list(value: str, kind: str, example: str, strip: str | None = None) -> str | None:
    """Why the comma-separated ``value`` cannot be read (an empty item beside named ones:
    ``a,,b``, ``a,``), in words naming the ``kind`` of its items and giving an ``example``;
    None when every item is named, or none is (which its option words itself). ``strip``:
    the characters taken off each item's ends (default: whitespace)."""
    items = [item.strip(strip) for item in value.split(",")]
    if all(items) or not any(items):
        return None
    return (
        f"{shown_repr(value)} holds an empty {kind} (two commas in a row, or one at an end); "
        f"give the {kind}s separated by single commas, as {example}"
    )


def did_you_mean(name: str, known: Iterable[str], *, n: int = 1) -> str:
    """``did you mean 'say'? `` for a name close to one of ``known``, else nothing; with
    ``n``, up to ``n`` of the nearest (``did you mean 'x/one', 'x/one/2' or 'x/one/1'? ``).
    A name that differs from one of ``known`` only in case (``FIX-A-BUG``, ``Smoke``) is the
    nearest: difflib, which tells case apart, finds none for a name typed in capitals."""
    names = list(known)
    folded = name.casefold()
    same = [x for x in names if x.casefold() == folded]
    close = difflib.get_close_matches(name, names, n=n)
    if len(close) < n:  # (a name in capitals is close to none as typed)
        lowered = {x.casefold(): x for x in reversed(names)}
        close += [lowered[x] for x in difflib.get_close_matches(folded, list(lowered), n=n)]
    near = [f"'{x}'" for x in dict.fromkeys([*same, *close])][:n]
    if not near:
        return ""
    quoted = near[0] if len(near) == 1 else f"{', '.join(near[:-1])} or {near[-1]}"
    return f"did you mean {quoted}? "


def fitted_summary(text: str, room: int, whole: str) -> str:
    """``text`` whole when its UTF-8 fits in ``room`` bytes, else its first lines that fit
    and a line saying the report was cut and where it is ``whole``."""
    if len(text.encode("utf-8")) <= room:
        return text
    note = (
        f"\n**The report was cut here to fit the job summary's limit of 1 MiB; the whole "
        f"report is {whole}.**\n"
    )
    keep = room - len(note.encode("utf-8"))
    if keep <= 0:
        return ""
    head = text.encode("utf-8")[:keep].decode("utf-8", errors="ignore")
    return head[: head.rfind("\n") + 1] + note
