"""TOML as Gemini CLI 0.61 reads a command file: @iarna/toml 2, a reader of TOML 0.5, where
proctor has Python's ``tomllib`` (TOML 1.0). The differences measured with the bundled reader
and followed here: an array mixing types (``[1, "a"]``, ``[1, 2.0]``, ``[1, [2]]``, ``[{},
[]]``) is refused, as is a date-time with a lowercase ``t`` or ``z`` (``1979-05-27t07:32:00z``)
and quotes right after a multi-line string's closing ones (``'''x''''``); a control character
in a comment is taken. Left as ``tomllib`` reads them (docs/addons.md): @iarna/toml's
refusal of a date, a local date-time or a local time in an array (``[1979-05-27]``), and its
taking of an inline table that ends with a comma (``{a = 1,}``)."""

from __future__ import annotations

import datetime
import math
import re
import tomllib
from typing import Any

_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
_LOWERCASE_DATETIME = re.compile(
    r"\b\d{4}-\d{2}-\d{2}t\d{2}:|\b\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?z"
)
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


def loads(text: str) -> dict[str, Any]:
    """``text`` read as @iarna/toml reads it (:class:`TomlFault` when it does not, its
    message ``tomllib``'s or the difference's)."""
    readable, code, fault = _split(text)
    if fault:
        raise TomlFault(fault)
    for number, line in enumerate(code.split("\n"), 1):
        if _LOWERCASE_DATETIME.search(line):
            why = "a date-time with a lowercase 't' or 'z' (TOML 0.5 wants 'T' and 'Z')"
            raise TomlFault(f"{why} (at line {number})")
    try:
        table = tomllib.loads(readable)
    except tomllib.TOMLDecodeError as exc:
        raise TomlFault(str(exc)) from None
    if mixed := _mixed(table):
        raise TomlFault(f"an array mixes values of types {mixed} (TOML 0.5)")
    return table


def _split(text: str) -> tuple[str, str, str | None]:
    """``text`` with its comments' control characters made blanks (TOML 0.5 takes them), its
    code alone (strings and comments made blanks), and its quotes after a multi-line string's
    closing ones, if any."""
    readable: list[str] = []
    code: list[str] = []
    index, line = 0, 1
    while index < len(text):
        char = text[index]
        if char == "#":
            end = text.find("\n", index)
            end = len(text) if end < 0 else end
            comment = text[index:end]
            readable.append(_CONTROL.sub(" ", comment))
            code.append(" " * len(comment))
            index = end
            continue
        if char in "\"'":
            triple = text.startswith(char * 3, index)
            delimiter = char * 3 if triple else char
            end = index + len(delimiter)
            while end < len(text) and not text.startswith(delimiter, end):
                if char == '"' and text[end] == "\\":
                    end += 1
                elif text[end] == "\n" and not triple:
                    break
                end += 1
            end = min(end + len(delimiter), len(text))
            written = text[index:end]
            line += written.count("\n")
            if triple and text[end : end + 1] == char:
                closing = delimiter
                return "", "", f"a quote right after the closing {closing} (at line {line})"
            readable.append(written)
            code.append(re.sub(r"[^\n]", " ", written))
            index = end
            continue
        line += char == "\n"
        readable.append(char)
        code.append(char)
        index += 1
    return "".join(readable), "".join(code), None


def _mixed(value: object) -> str | None:
    """The first two types an array of ``value`` (down its tables and arrays) mixes, as
    ``integer and string``, or None. (An array of tables, ``[[x]]``, is tables alone.)"""
    if isinstance(value, dict):
        return next((found for item in value.values() if (found := _mixed(item))), None)
    if not isinstance(value, list):
        return None
    kinds = list(dict.fromkeys(_kind(item) for item in value))
    if len(kinds) > 1:
        return f"{kinds[0]} and {kinds[1]}"
    return next((found for item in value if (found := _mixed(item))), None)


def _kind(value: object) -> str:
    if isinstance(value, float) and not math.isfinite(value):
        return "number"  # (@iarna/toml's type of inf and nan, apart from other floats)
    return next(name for kind, name in _TYPES if isinstance(value, kind))
