"""TOML as Gemini CLI 0.61 reads a command file: @iarna/toml 2, a reader of TOML 0.5, where proctor
has Python's ``tomllib`` (TOML 1.0). The differences measured with the bundled reader and
followed here: an array mixing types (``[1, "a"]``, ``[1, 2.0]``, ``[1, [2]]``, ``[{}, []]``) is
refused, as is a date-time with a lowercase ``t`` or ``z`` (``1979-05-27t07:32:00z``) and quotes
right after a multi-line string's closing ones (``'''x''''``), a date, local date-time or local
time right before a ``]``, ``}`` or ``,`` (``{d = 1979-05-27}``, ``[07:32:00]``; a date even
with blanks between: ``[1979-05-27 ]``), and a line after a local time ``HH:MM:SS`` that ends a
line (@iarna/toml takes its line break as part of it: ``t = 07:32:00`` then ``prompt = "x"``); a
control character in a comment is taken; arrays and inline tables are read up to
:data:`MAX_DEPTH` deep (@iarna/toml reads any depth). Left as ``tomllib`` reads it
(docs/addons.md): @iarna/toml's taking of an inline table that ends with a comma
(``{a = 1,}``)."""

from __future__ import annotations

import datetime
import math
import re
import sys
import threading
import tomllib
from typing import Any

_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
_LOWERCASE_DATETIME = re.compile(
    r"\b\d{4}-\d{2}-\d{2}t\d{2}:|\b\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?z"
)
_LOCAL = (
    r"(?<![\w:.+-])(?:\d{4}-\d\d-\d\d(?:[Tt ]\d\d:\d\d:\d\d(?:\.\d+)?)?|\d\d:\d\d:\d\d(?:\.\d+)?)"
)
_LOCAL_CLOSED = re.compile(_LOCAL + r"(?=[\]},])|(?<![\w:.+-])\d{4}-\d\d-\d\d(?=[ \t]*[\]},])")
_TIME_THEN_LINE = re.compile(r"^[^\n]*=[ \t]*\d\d:\d\d:\d\d\n[ \t]*[^\s#]", re.MULTILINE)
MAX_DEPTH = 100_000
"""Arrays and inline tables nested deeper than this are not read (:class:`TooDeep`). The
@iarna/toml of Gemini CLI 0.61's bundle, run with Node 20 on generated files, reads any depth:
arrays 10,000,000 deep (91 s, 3 GB) and inline tables 1,000,000 deep (7 s); it keeps its own
stack. ``tomllib`` recurses, a few frames a level: 100,000 deep takes it 1.6 s and 80 MB with
the recursion limit raised, 1,000,000 deep 91 s and 4.7 GB, so deeper is not read."""
_TYPES = (
    (bool, "boolean"),
    (int, "integer"),
    (float, "float"),
    (str, "string"),
    (list, "array"),
    (dict, "inline table"),
    (datetime.datetime, "date-time"),
    (datetime.date, "date"),
    (datetime.time, "time"),
)


class TomlFault(ValueError):
    """Why @iarna/toml does not read a text."""


class TooDeep(Exception):
    """A text whose arrays or inline tables nest deeper than :data:`MAX_DEPTH`: proctor does
    not read it, @iarna/toml does (whether it is valid TOML is not known)."""


def loads(text: str) -> dict[str, Any]:
    """``text`` read as @iarna/toml reads it (:class:`TomlFault` when it does not, its
    message ``tomllib``'s or the difference's; :class:`TooDeep` when it nests deeper than
    proctor reads)."""
    readable, code, fault = _split(text)
    if fault:
        raise TomlFault(fault)
    checks = (
        (
            _LOWERCASE_DATETIME,
            "a date-time with a lowercase 't' or 'z' (TOML 0.5 wants 'T' and 'Z')",
        ),
        (_LOCAL_CLOSED, "a local date or time right before ']', '}' or ','"),
        (
            _TIME_THEN_LINE,
            "a line right after a local time HH:MM:SS (TOML 0.5 as Gemini CLI reads it)",
        ),
    )
    lines = sorted({code.rfind("\n", 0, m.start()) + 1 for m in _DATE_OR_TIME.finditer(code)})
    for pattern, why in checks:
        for start in lines:  # (each line with a date or time, and the next one)
            first = code.find("\n", start)
            end = -1 if first < 0 else code.find("\n", first + 1)
            if found := pattern.search(code, start, len(code) if end < 0 else end):
                number = code.count("\n", 0, found.start()) + 1
                raise TomlFault(f"{why} (at line {number})")
    table = _tomllib(readable, code)
    if mixed := _mixed(table):
        raise TomlFault(f"an array mixes values of types {mixed} (TOML 0.5)")
    return table


def _tomllib(readable: str, code: str) -> dict[str, Any]:
    """``readable`` read by ``tomllib``, with room for its recursion when arrays or inline
    tables nest deep; :class:`TomlFault` when it does not read it, :class:`TooDeep` when it
    nests deeper than :data:`MAX_DEPTH`."""
    try:
        return tomllib.loads(readable)
    except tomllib.TOMLDecodeError as exc:
        raise TomlFault(str(exc)) from None
    except RecursionError:
        pass
    depth = _depth(code)
    if depth > MAX_DEPTH:
        raise TooDeep(f"arrays or inline tables nested {depth:,} deep, deeper than {MAX_DEPTH:,}")
    # The limit is the process's: raised by one reader at a time, and put back as it was
    # before any raised it (a reader that read it raised would leave it so).
    with _RAISING:
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(limit + 4 * depth)
        try:
            return tomllib.loads(readable)
        except tomllib.TOMLDecodeError as exc:
            raise TomlFault(str(exc)) from None
        except RecursionError:  # (not reached on its own: a deeper file read meanwhile)
            raise TomlFault(f"arrays or tables nested too deep to read ({depth})") from None
        finally:
            sys.setrecursionlimit(limit)


_RAISING = threading.Lock()
_BRACKET = re.compile(r"[\[\]{}]")


def _depth(code: str) -> int:
    """How deep the arrays and inline tables of ``code`` (its strings and comments left
    out) nest: the most brackets open at once, not how many there are."""
    deepest = depth = 0
    for found in _BRACKET.finditer(code):
        depth += 1 if found.group() in "[{" else -1
        deepest = max(deepest, depth)
    return deepest


_TOKEN = re.compile(
    r"#[^\n]*"
    r'|"""(?:[^"\\]|\\[\s\S]|"(?!""))*(?:"""|\\?\Z)'
    r"|'''[\s\S]*?(?:'''|\Z)"
    r'|"(?:[^"\\\n]|\\[\s\S])*(?:"|\n|\\?\Z)'
    r"|'[^'\n]*(?:'|\n|\Z)"
)
"""A comment, or a string as far as its closing quotes (a one-line one, its line's end)."""
_DATE_OR_TIME = re.compile(r"\d\d[:-]\d\d")
"""Where a date or a time may be written (the checks of them, costlier, read only its lines)."""


def _split(text: str) -> tuple[str, str, str | None]:
    """``text`` with its comments' control characters made blanks (TOML 0.5 takes them), its
    code alone (strings and comments made blanks), and its quotes after a multi-line string's
    closing ones, if any."""
    readable: list[str] = []
    code: list[str] = []
    index = 0
    for token in _TOKEN.finditer(text):
        start, end = token.span()
        readable.append(text[index:start])
        code.append(text[index:start])
        written = token.group()
        if written[0] == "#":
            readable.append(_CONTROL.sub(" ", written))
            code.append(" " * len(written))
        else:
            if written[:3] in ('"""', "'''") and text[end : end + 1] == written[0]:
                line = text.count("\n", 0, end) + 1
                return "", "", f"a quote right after the closing {written[:3]} (at line {line})"
            readable.append(written)
            code.append("\n".join(" " * len(part) for part in written.split("\n")))
        index = end
    readable.append(text[index:])
    code.append(text[index:])
    return "".join(readable), "".join(code), None


def _mixed(value: object) -> str | None:
    """The first two types an array of ``value`` (down its tables and arrays) mixes, as
    ``integer and string``, or None. (An array of tables, ``[[x]]``, is tables alone.) Walked
    without recursion: arrays may nest any depth."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(reversed(item.values()))
        elif isinstance(item, list):
            kinds = list(dict.fromkeys(_kind(each) for each in item))
            if len(kinds) > 1:
                return f"{kinds[0]} and {kinds[1]}"
            stack.extend(reversed(item))
    return None


def _kind(value: object) -> str:
    if isinstance(value, float) and not math.isfinite(value):
        return "number"  # (@iarna/toml's type of inf and nan, apart from other floats)
    return next(name for kind, name in _TYPES if isinstance(value, kind))
