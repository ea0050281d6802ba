"""The text of a front matter's value as YAML 1.2 reads it (checked against js-yaml 4, as Gemini
CLI 0.61 bundles it, and PyYAML): a block scalar's (``|``, ``>``, chomping and indentation
indicators), a quoted one's (``''`` in single quotes, escapes in double quotes, line breaks
folded) and a plain one's over several lines; a line without its comment; the one-line text
an anchor is set to; and whether a CLI's parser reads a value as a string at all (``5``,
``true``, ``null`` are none)."""

from __future__ import annotations

import re
from collections.abc import Iterable

_ESCAPES = {
    "0": "\0",
    "a": "\a",
    "b": "\b",
    "t": "\t",
    "\t": "\t",
    "n": "\n",
    "v": "\v",
    "f": "\f",
    "r": "\r",
    "e": "\x1b",
    " ": " ",
    '"': '"',
    "/": "/",
    "\\": "\\",
    "N": "\x85",
    "_": "\xa0",
    "L": "\u2028",
    "P": "\u2029",
}


_BREAKS = re.compile(r"\r\n|\r|\n")
_BREAKS_1_1 = re.compile(r"\r\n|[\r\n\x85\u2028\u2029]")


def yaml_lines(text: str, yaml_1_1: bool = False) -> list[str]:
    """The lines of ``text`` as a YAML reader splits them: at CR, LF and CRLF only (YAML 1.2,
    as js-yaml and Bun read it: ``\\x85``, ``\\u2028`` and ``\\u2029`` are characters of a
    line, as are ``\\v`` and ``\\f``), with ``yaml_1_1`` (libyaml, Codex's serde_yaml) also at
    those three; a break ending ``text`` opens no line (as ``str.splitlines``)."""
    lines = (_BREAKS_1_1 if yaml_1_1 else _BREAKS).split(text)
    if lines[-1] == "":
        lines.pop()
    return lines


def block_text(header: str, lines: list[str], base: int = 0) -> str:
    """The text of a block scalar (``|`` literal, ``>`` folded; ``-`` strip, ``+`` keep, a digit
    its lines' indentation over ``base``, its key's) whose header is ``header`` and whose lines
    are ``lines`` (the blank lines after it included): a folded block joins two lines of text
    with a space, keeps the line breaks around a more-indented line (one that opens with a
    blank or a tab) and each blank line's; "" when it has no text (and does not keep)."""
    indicators = header.split("#")[0]
    digits = re.findall(r"[1-9]", indicators)
    content = [line for line in lines if line.strip(" ")]
    if not content:
        return "\n" * len(lines) if "+" in indicators else ""
    indent = base + int(digits[0]) if digits else len(content[0]) - len(content[0].lstrip(" "))
    chunks: list[str] = []
    breaks = 0  # (blank lines since the last line of text)
    previous = ""  # (the last line of text)
    for line in lines:
        if line[:indent].strip(" "):
            break  # (less indented than its first line: a fault, said by yaml_check)
        if not line[indent:]:
            breaks += 1
            continue
        text = line[indent:]
        if previous:
            folds = header[0] == ">" and previous[0] not in " \t" and text[0] not in " \t"
            chunks.append(("\n" * breaks or " ") if folds else "\n" * (breaks + 1))
        else:
            chunks.append("\n" * breaks)
        chunks.append(text)
        previous, breaks = text, 0
    if "-" in indicators:
        return "".join(chunks)
    return "".join(chunks) + "\n" * (1 + breaks if "+" in indicators else 1)


def uncommented(line: str) -> str:
    """``line`` up to its comment: a ``#`` at its start or after a blank, outside quotes."""
    quote = ""
    index = 0
    while index < len(line):
        char = line[index]
        if quote:
            if quote == '"' and char == "\\":
                index += 1
            elif char == quote:
                quote = ""
        elif char in "'\"" and (index == 0 or line[index - 1] in " \t[{,:"):
            quote = char
        elif char == "#" and (index == 0 or line[index - 1] in " \t"):
            return line[:index].rstrip()
        index += 1
    return line


def _closing(text: str, quote: str) -> int:
    """The index of the quote that closes ``text`` (its opening quote left off), or -1."""
    index = 0
    while index < len(text):
        if quote == '"' and text[index] == "\\":
            index += 2
            continue
        if text[index] == quote:
            if quote == "'" and text[index + 1 : index + 2] == "'":
                index += 2
                continue
            return index
        index += 1
    return -1


def closed(raw: str) -> bool:
    """Whether the quoted value written ``raw`` closes on its line."""
    return _closing(raw[1:], raw[0]) >= 0


def _fold(lines: list[str], double: bool) -> str:
    """The lines of a flow scalar folded: each line break a space, each blank line a line
    break; in double quotes a ``\\`` ending a line joins it to the next one as it is, and a
    ``\\`` before the blanks that end a line escapes the first of them, kept."""
    text = ""
    breaks = -1  # (-1: the first line)
    for number, line in enumerate(lines):
        line = line if number == 0 else line.lstrip(" \t")
        last = number == len(lines) - 1
        if not last:
            stripped = line.rstrip(" \t")
            trailing = len(stripped) - len(stripped.rstrip("\\"))
            escaped = double and trailing % 2 == 1 and stripped == line
            if double and trailing % 2 == 1 and not escaped:  # (`b\ `: an escaped blank is text)
                stripped = line[: len(stripped) + 1]
            line = line[:-1] if escaped else stripped
        else:
            escaped = False
        if not line and 0 < number < len(lines) - 1:
            breaks += 1
            continue
        if breaks >= 0:
            text += "\n" * breaks if breaks else " "
        text += line
        breaks = -1 if escaped else 0
    return text


def _code_point(value: int) -> str:
    """The text js-yaml 4 gives the escape of the code point ``value`` (``\\x``, ``\\u``,
    ``\\U``): its hex digits summed in 32-bit integers (``\\UFFFFFFFF`` is -1), a value above
    U+FFFF as a UTF-16 pair of 16-bit units (``\\U00110000`` gives two low surrogates). It
    never fails (libyaml refuses a surrogate or a value above U+10FFFF: ``yaml_check`` says so
    for Codex)."""
    number = value - (1 << 32) if value >= 1 << 31 else value
    if number <= 0xFFFF:
        units = [number & 0xFFFF]
    else:
        units = [((number - 0x10000) >> 10) + 0xD800, ((number - 0x10000) & 0x3FF) + 0xDC00]
    return "".join(chr(unit & 0xFFFF) for unit in units)


def _unescaped(text: str) -> str:
    """``text`` (inside double quotes) with its escapes undone; an unknown one left as it is."""

    def token(match: re.Match[str]) -> str:
        found = match.group()
        if len(found) > 2:
            return _code_point(int(found[2:], 16))
        return _ESCAPES.get(found[1], found)

    found = re.sub(r"\\(?:x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[\s\S])", token, text)
    # (UTF-16 units side by side make one character; one left without its pair is U+FFFD,
    # as Node writes it out)
    return found.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def quoted_lines(raw: str, below: Iterable[str]) -> int:
    """How many of the lines ``below`` the quoted value written ``raw`` goes on over, up to
    the one holding its closing quote (all of them when it never closes)."""
    quote, text, number = raw[0], raw[1:], 0
    for line in below:
        if _closing(text, quote) >= 0:
            break
        text, number = f"{text}\n{line}", number + 1
    return number


def scalar_text(raw: str, below: Iterable[str]) -> str:
    """The text of the value written ``raw`` on its key's line (its comment dropped) with the
    more-indented lines ``below`` it that go on with it: a quoted text up to its closing quote,
    a plain one up to a comment."""
    if raw[:1] in ("'", '"'):
        quote, lines = raw[0], [raw[1:]]
        rest = iter(below)
        while (end := _closing("\n".join(lines), quote)) < 0:
            following = next(rest, None)
            if following is None:  # (never closed: its text as it is, a fault said elsewhere)
                return _fold(lines, quote == '"').strip()
            lines.append(following)
        inner = "\n".join(lines)[:end].split("\n")
        folded = _fold(inner, quote == '"')
        return _unescaped(folded) if quote == '"' else folded.replace("''", "'")
    lines = [raw]
    for line in below:
        text = uncommented(line)
        tabbed = "\t" in line[: len(line) - len(line.lstrip())]
        if line.lstrip().startswith("#") or tabbed or re.search(r":(?:\s|$)", text):
            break  # (a line YAML cannot read as going on with the text: a fault)
        lines.append(text.strip())
        if text != line:
            break
    while len(lines) > 1 and not lines[-1]:
        lines.pop()
    return _fold(lines, False)


_QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\']|\'\')*\'')
"""A quoted text closed on its line."""


def one_line_text(value: str, flow: bool = False) -> str | None:
    """The text of the value ``value`` as written after its anchor, when it is a text on its
    line (quoted or plain, its comment dropped; in a flow collection up to a ``,`` or a
    bracket), or None (a collection, a block scalar, a value below): what an alias to it is
    as a key."""
    value = value.strip()
    if value[:1] in ("'", '"'):
        quoted = _QUOTED.match(value)
        return scalar_text(quoted.group(), []) if quoted else None
    if flow:
        value = re.split(r"[,\[\]{}]", value)[0]
    value = uncommented(value).strip()
    return value if value and value[0] not in "#[{|>*&!" else None


_NULL_BOOL = (
    r"~|null|Null|NULL|true|True|TRUE|false|False|FALSE|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)"
)
BUN_NOT_STRING = re.compile(
    rf"{_NULL_BOOL}|[-+]?(?:0o[0-7]+|0x[0-9a-fA-F]+|(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?)"
)
"""The plain values Bun's YAML parser (Claude Code) reads as no string: the YAML 1.2 core
schema's null, booleans and numbers (a sign allowed before ``0x``/``0o``); no ``0b``, no
``_`` in numbers, no timestamps (measured with Bun 1.4.0, as Claude Code 2.1.197 embeds)."""
JS_YAML_NOT_STRING = re.compile(
    rf"{_NULL_BOOL}"
    r"|(?:[-+]?(?:0b_*[01][01_]*|0x_*[0-9a-fA-F][0-9a-fA-F_]*|0o_*[0-7][0-7_]*"
    r"|[0-9][0-9_]*(?:\.[0-9_]*)?(?:[eE][-+]?[0-9]+)?)|\.[0-9_]+(?:[eE][-+]?[0-9]+)?)(?<!_)"
    r"|[0-9]{4}-[0-9]{2}-[0-9]{2}"
    r"|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?"
    r"(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?"
)
"""The plain values js-yaml 4's default schema (Gemini CLI) reads as no string: null,
booleans, numbers (``0b``/``0x``/``0o``, ``_`` between digits, no sign before ``.5``) and
timestamps (``2025-01-01``, ``2025-1-1 10:00:00``)."""


def is_string(raw: str | None, not_string: re.Pattern[str]) -> bool:
    """Whether a YAML parser whose plain non-strings are ``not_string`` reads the value ``raw``
    (as ``yaml_mapping.entries_of`` gives it) as a string."""
    if not raw or raw.startswith("#"):
        return False
    if raw[0] in "'\"":
        return True
    return raw[0] not in "[{*" and not not_string.fullmatch(raw.split(" #")[0].strip())
