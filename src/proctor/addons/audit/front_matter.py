"""The front matter of a skill's ``SKILL.md`` or a subagent's file, and what each CLI makes of
it (measured with the real CLIs: Codex's app server ``skills/list``, Gemini CLI's
``loadSkillFromFile`` and ``parseAgentMarkdown``, Claude Code's ``system/init`` agents).

:func:`front_matter` gives the ``name`` and ``description`` of a leading ``---`` block: a
mapping's top-level keys, quoted or not, at its first key's indentation, or a flow mapping
(``{name: a, description: t}``); a value on the indented lines below an empty one is its
value. ``yaml_check`` says whether a CLI's YAML reader reads the block. Per CLI:

- Claude Code 2.1.197 loads every ``SKILL.md``, front matter or not, named by its folder; a
  subagent (its front matter ending at the first ``---``, even inside a line) when Bun's YAML
  parser, or its second try after its repair (``yaml_check.claude_repaired``), gives a
  ``name`` and a ``description`` that are non-empty texts;
- Codex 0.171 loads a skill whose front matter gives a ``description`` and that serde_yaml
  reads, with its one repair (``yaml_check.CODEX``), named by its ``name`` (else its folder);
- Gemini CLI 0.61 loads a skill whose front matter js-yaml reads into a ``name`` and a
  ``description`` that are texts, else one whose ``name:`` and ``description:`` lines its
  line reader finds, named by that reading (``: \\ / < > * ? " |`` replaced by ``-``); a
  subagent only when js-yaml reads its front matter and its schema takes it (known keys only,
  a ``name`` of ``a-z0-9-_``, each key's type: ``tools`` a list of its tools' names,
  ``temperature`` a number…), a front matter that is a list giving one remote subagent per
  item.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator

from proctor.addons.audit.yaml_check import (
    BUN,
    CODEX,
    JS_YAML,
    MAX_FLOW_DEPTH,
    block_of,
    claude_repaired,
    yaml_fault,
)
from proctor.addons.audit.yaml_scalar import (
    block_text,
    closed,
    quoted_lines,
    scalar_text,
    uncommented,
    yaml_lines,
)

_UNSAFE = re.compile(r'[:\\/<>*?"|]')

_KEYS = ("name", "description")
AgentsRule = Callable[[str, str], list[tuple[str, str | None]]]
"""A CLI's reading of a subagent's file that may define several: (its text, its file's stem)
→ each subagent's (name, why it is not loaded or None)."""
SkillRule = Callable[[str, str], tuple[str, str | None]]
"""A CLI's reading of a skill: (its ``SKILL.md`` text, its folder's name) → (the name it is
loaded under, why it is not loaded or None)."""


def front_matter(text: str, yaml_1_1: bool = False) -> dict[str, str]:
    """The non-empty ``name`` and ``description`` of a leading ``---`` block, its lines split
    at CR and LF (YAML 1.2), with ``yaml_1_1`` also at ``\\x85``, ``\\u2028`` and ``\\u2029``
    (libyaml)."""
    lines = yaml_lines(text.lstrip("\ufeff"), yaml_1_1)
    if not lines or lines[0].strip() != "---":
        return {}
    try:
        end = next(i for i, line in enumerate(lines[1:], 1) if line.strip() == "---")
    except StopIteration:
        return {}
    return _values(lines[1:end])


_KEY = (
    r"""(?:"(?P<dq>(?:[^"\\]|\\.)*)"|'(?P<sq>(?:[^']|'')*)'"""
    r"""|(?P<plain>(?!-(?:\s|$))[^\s#'"{}\[\],:][^:#]*?))"""  # (`- a: b` is a list item)
)
_ENTRY = re.compile(rf"^{_KEY}\s*:(?:\s+(?P<value>.*)|$)")


def _entries(lines: list[str]) -> dict[str, tuple[str, str]]:
    """The top-level keys of the front matter ``lines`` (:func:`_reading`)."""
    return _reading(lines)[0]


def _anchors_before(lines: list[str], key: str) -> dict[str, tuple[str, str]]:
    """The anchors set in the front matter ``lines`` above its top-level ``key`` (all of
    them in a flow mapping), each with its value as written and its text."""
    return _reading(lines, key)[1]


def _reading(
    lines: list[str], upto: str | None = None
) -> tuple[dict[str, tuple[str, str]], dict[str, tuple[str, str]]]:
    """The top-level keys of the front matter ``lines``: for each, its
    value as written and its text (the last of each). The mapping may be a block at any
    indentation (its first key's), its keys quoted or not, or a flow mapping (``{name: a,
    description: t}``); a block value on the indented lines below an empty one is said ``|``
    (``[`` when they are a list, ``{`` when they are ``key: value`` lines). An alias (``*a``)
    is the value its anchor (``&a``, set above on a key's value or a list item at any depth,
    or in a flow collection) was given; one with no anchor above, or with an anchor or a tag
    of its own (``&b *a``, which YAML refuses), stays as written.

    Each line is read once: a nested key's value, or a list item, only for the anchor set on
    it (the lines of a block scalar, a flow collection or a text going on below its first
    line are not read again: ``- k: |`` then ``    &d x`` sets no anchor). With
    ``upto``, the reading stops at that top-level key. Also the anchors set (the last of each
    name: an alias refers to the latest ``&a`` above it, as js-yaml and serde_yaml read it)."""
    anchors: dict[str, tuple[str, str]] = {}
    content = [line for line in lines if _text(line)]
    if not content:
        return {}, anchors
    if content[0].lstrip().startswith("{"):
        flow = " ".join(uncommented(line).strip() for line in content)
        return _flow_entries(flow, anchors), anchors
    base = len(content[0]) - len(content[0].lstrip(" "))
    entries: dict[str, tuple[str, str]] = {}
    inside = 0  # (the index of the first line after the last value that is no key's line)
    for index, line in enumerate(lines):
        if index < inside:
            continue  # (a line of a quoted text: `description: "a` then `b: c"`)
        here = len(line) - len(line.lstrip(" "))
        dashes = _DASHES.match(line[here:]) if _text(line) else None
        if dashes:  # a list item (`- &d text`, `- key: value`): only its anchor counts
            column = here + dashes.end()
            if match := _ENTRY.match(line[column:]):
                value, following, anchor = _entry(lines, index, column, match["value"], anchors)
            else:
                value, following, anchor = _entry(
                    lines, index, here, line[column:], anchors, items=False
                )
            inside = following
        elif not (match := _ENTRY.match(line[here:])):
            continue
        elif here != base:  # (a nested key: only its anchor counts)
            if here < base:
                continue
            value, following, anchor = _entry(lines, index, here, match["value"], anchors)
            inside = following
        elif _key(match) == upto:
            break
        else:
            value, inside, anchor = _entry(lines, index, base, match["value"], anchors)
            key = _key(match)
            if (alias := re.fullmatch(r"\*(\S+)", key)) and alias.group(1) in anchors:
                key = anchors[alias.group(1)][1]  # (`*d : v`: the key is its anchor's text)
            entries[key] = value
        if anchor:
            anchors[anchor] = value
    return entries, anchors


_DASHES = re.compile(r"(?:-(?:[ \t]+|$))+")
"""The dashes opening a list item (``- a``; ``- - a``, an item of an item)."""


def _entry(
    lines: list[str],
    index: int,
    base: int,
    given: str | None,
    anchors: dict[str, tuple[str, str]],
    items: bool = True,
) -> tuple[tuple[str, str], int, str]:
    """The value as written and the text of the value ``written`` on line ``index`` of
    ``lines`` (a key's at indentation ``base``, or a list item's, whose dash is there), the
    index of the first line after it that is no part of a quoted text, a block scalar or a
    flow collection, and the name of the anchor set on it ("" when none). A tag other than
    ``!!str`` is dropped (``!foo x`` is ``x``, as serde_yaml reads it; js-yaml stops on it,
    said by ``yaml_check``). ``given`` is the value as written, its blanks kept. With
    ``items`` (a key's value), list items at ``base`` below are its own (``tools:``, ``-
    glob``)."""
    written = (given or "").strip()
    properties = _PROPERTIES.match(written)
    found = re.search(r"&(\S+)", properties.group()) if properties else None
    anchor = found.group(1) if found else ""
    raw = _uncommented(written[properties.end() :] if properties else written)
    tagged = bool(properties and re.search(r"(?:^|\s)!!str(?:\s|$)", properties.group()))
    if alias := re.fullmatch(r"\*(\S+)", raw):
        if properties:  # (YAML refuses it: `&b *a`; Claude Code's repair reads the text)
            return (_uncommented(written),) * 2, index + 1, ""
        if alias.group(1) in anchors:
            return anchors[alias.group(1)], index + 1, anchor
    value = raw
    if not raw:  # `description:` with the text indented on the lines below
        below = [part for part in _indented(lines, index + 1, base, items) if _text(part)]
        value = " ".join(part.strip() for part in below)
        first = _uncommented(below[0].lstrip()) if below else ""
        if not _ITEM.match(first) and (properties := _PROPERTIES.match(first)):
            # (its anchor or tag may open the line below: `description:`, `  &d text`, or
            # stand alone on it, the value on the lines below: `  &m`, `    a: 1`)
            found = re.search(r"&(\S+)", properties.group())
            anchor, first = found.group(1) if found else anchor, first[properties.end() :]
            tagged = tagged or bool(re.search(r"(?:^|\s)!!str(?:\s|$)", properties.group()))
            if not first:
                below = below[1:]
                first = _uncommented(below[0].lstrip()) if below else ""
                value = " ".join(part.strip() for part in below)
        if _ITEM.match(first):
            raw = "["
        elif _ENTRY.match(first):
            raw = "{"  # (`key: value` lines: a mapping, as YAML reads it, not a text)
        elif first:  # (a text, its lines not read again: `  - &d x` in it sets no anchor)
            raw, value = "|", scalar_text(first, below[1:])
            following = index + 1 + len(_indented(lines, index + 1, base))
            return (raw, value.strip()), following, anchor
        if tagged and not raw:  # (`name: !!str` alone is the empty text, not null)
            raw = '""'
    elif raw[0] in "|>":  # a block scalar: its text is the indented lines below
        end = index + 1 + len(_indented(lines, index + 1, base, block=True))
        while end < len(lines) and not lines[end].strip(" "):
            end += 1  # (its blank lines at the end: `+` keeps them)
        return (raw, block_text(raw, lines[index + 1 : end], base)), end, anchor
    elif raw[0] in ("'", '"'):  # (a quoted text goes on up to its closing quote)
        if not closed(raw):  # (the blanks ending its line count: `"b\ ` keeps one)
            raw += (given or "")[len((given or "").rstrip()) :]
        value = scalar_text(raw, _below(lines, index + 1))
        inside = index + 1 + quoted_lines(raw, _below(lines, index + 1))
        return (raw, value), inside, anchor  # (its blanks are its own: `"\t"` is a tab)
    elif raw[0] in "[{":  # (a flow collection, maybe over the more-indented lines below)
        more = _indented(lines, index + 1, base)
        _flow_entries(" ".join([raw, *(uncommented(line).strip() for line in more)]), anchors)
        return (raw, raw), index + 1 + len(more), anchor
    else:  # (a plain text, maybe over the more-indented lines below, not read again)
        more = _indented(lines, index + 1, base)
        value = scalar_text(raw, more)
        if tagged:  # (`!!str 5` is the text "5", as if quoted)
            raw = json.dumps(value.strip())
        return (raw, value.strip()), index + 1 + len(more), anchor
    return (raw, value.strip()), index + 1, anchor


_PROPERTIES = re.compile(r"^(?:(?:&\S+|!(?:<[^>]*>|\S*))(?:\s+|$))+")
"""A value's anchor (``&a``) and tag (``!!str``, ``!foo``, ``!<…>``): ``name: &a tidy`` is
``tidy``."""
_ITEM = re.compile(r"-(?:\s|$)")
"""A list item's start: a ``-`` then a blank or the line's end (``-x`` is a plain text)."""
_COMMENT = re.compile(r"\s#")


def _uncommented(raw: str) -> str:
    """The value ``raw`` without its trailing comment, as the CLIs' YAML parsers read it: a
    comment starts at a ``#`` after a blank (``a#b`` is a text), after a quoted text's closing
    quote (``'a' # c`` is ``'a'``), and a value that starts with ``#`` is all comment."""
    if raw.startswith("#"):
        return ""
    quoted = re.match(r""""(?:[^"\\]|\\.)*"|'(?:[^']|'')*'""", raw)
    if quoted:
        rest = raw[quoted.end() :]
        return quoted.group() if not rest.strip() or re.match(r"\s+#", rest) else raw
    if raw[:1] in "'\"":  # (a quote that does not close)
        return raw
    return _COMMENT.split(raw, maxsplit=1)[0].rstrip()


def _key(match: re.Match[str]) -> str:
    if match.group("dq") is not None:
        return match.group("dq")
    if match.group("sq") is not None:
        return match.group("sq").replace("''", "'")
    return match.group("plain").strip()


def _flow_entries(
    text: str, anchors: dict[str, tuple[str, str]], depth: int = 1
) -> dict[str, tuple[str, str]]:
    """The keys of a flow mapping ``{key: value, ...}`` (or the items of a flow list,
    ``[a, b]``, under no key), so deep (``depth``) in flow collections, adding to ``anchors``
    those set in it at any depth up to ``MAX_FLOW_DEPTH`` (``{a: &d hi}``, ``[&d a]``; deeper
    is a fault, ``yaml_fault``'s): an alias (``*a``) is the value its anchor (``&a``) was
    given before it."""
    entries: dict[str, tuple[str, str]] = {}
    if depth > MAX_FLOW_DEPTH:
        return entries
    for item in _flow_items(text):
        match = _ENTRY.match(item)
        raw = (match.group("value") if match else item) or ""
        properties = _PROPERTIES.match(raw)
        raw = raw[properties.end() :] if properties else raw
        value = raw if raw[:1] in ("[", "{") else scalar_text(raw, [])
        entry = (raw, value.strip())
        if raw[:1] in ("[", "{"):
            _flow_entries(raw, anchors, depth + 1)
        if properties and re.search(r"(?:^|\s)!!str(?:\s|$)", properties.group()):
            entry = (json.dumps(value.strip()), value.strip())  # (a text, as if quoted)
        if alias := re.fullmatch(r"\*(\S+)", raw):
            if properties:  # (YAML refuses it: `&b *a`)
                entry = (item.split(":", 1)[-1].strip() if match else item,) * 2
            elif alias.group(1) in anchors:
                entry = anchors[alias.group(1)]
        anchor = re.search(r"&(\S+)", properties.group()) if properties else None
        if anchor and not alias:  # (an alias given an anchor sets none)
            anchors[anchor.group(1)] = entry
        if match:
            entries[_key(match)] = entry
    return entries


def _flow_items(text: str) -> list[str]:
    """The items of the flow collection ``text`` (``{a: 1, b: [c, d]}``: ``a: 1`` and ``b:
    [c, d]``), up to its closing bracket, each stripped; quoted texts and nested collections
    kept whole."""
    items, depth, start, quote, index = [], 0, 1, "", 0
    while index < len(text):
        char = text[index]
        if quote:
            doubled = text[index + 1 : index + 2] == quote == "'"  # (`'it''s'`)
            if (char == "\\" and quote == '"') or (char == quote and doubled):
                index += 1
            elif char == quote:
                quote = ""
        elif char in "'\"" and text[:index].rstrip()[-1:] in ("[", "{", ",", ":"):
            quote = char  # (one opening a value: `it's` is text)
        elif char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
            if depth == 0:
                items.append(text[start:index])
                break
        elif char == "," and depth == 1:
            items.append(text[start:index])
            start = index + 1
        index += 1
    else:
        items.append(text[start:])  # (never closed: yaml_check says so)
    return [item.strip() for item in items if item.strip()]


def _values(lines: list[str]) -> dict[str, str]:
    fields = {
        key: value if raw[:1] in ("'", '"') else value.strip()  # (`"\t"` is a tab)
        for key, (raw, value) in _entries(lines).items()
        if key in _KEYS
    }
    return {key: value for key, value in fields.items() if value}


def _written(lines: list[str]) -> dict[str, str]:
    return {key: written for key, (written, _) in _entries(lines).items()}


def _text(line: str) -> bool:
    """Whether ``line`` holds more than blanks or a comment."""
    return bool(line.strip()) and not line.lstrip().startswith("#")


def _below(lines: list[str], start: int) -> Iterator[str]:
    """The ``lines`` from index ``start`` on, read one by one (none copied)."""
    return (lines[index] for index in range(start, len(lines)))


def _indented(
    lines: list[str], start: int, base: int = 0, items: bool = False, block: bool = False
) -> list[str]:
    """The lines from index ``start`` of ``lines`` (those below a key) that are more indented
    than the key (a comment line between them at
    any indentation: ``description:``, ``# c``, ``  text`` gives ``text``), and with ``items``,
    the list items at its own indentation (``tools:``, ``- glob``: the key's list). With
    ``block`` (a block scalar's lines) a more indented line that begins ``#`` is text, not a
    comment (``description: >``, ``  # Usage``)."""

    def solid(line: str) -> bool:
        return bool(line.strip()) if block else _text(line)

    taken = []
    for line in _below(lines, start):
        here = len(line) - len(line.lstrip(" \t"))
        if (
            solid(line)
            and here <= base
            and not (items and here == base and _ITEM.match(line[here:]))
        ):
            break
        taken.append(line)
    while taken and not solid(taken[-1]):
        taken.pop()  # (comments and blank lines after the value are not its own)
    return taken


def claude_code_skill(text: str, folder: str) -> tuple[str, str | None]:
    return folder, None


def _not_yaml(cli: str, fault: str) -> str:
    return f"the front matter is not valid YAML: {fault}; {cli} does not load it"


def codex_skill(text: str, folder: str) -> tuple[str, str | None]:
    fields = front_matter(text, yaml_1_1=True)
    block = None if text.startswith("\ufeff") else block_of(text, yaml_1_1=True)
    if block is None or not fields.get("description", "").strip():  # (Codex trims it)
        return folder, "no front matter giving a description in SKILL.md; Codex does not load it"
    fault = yaml_fault(block, CODEX)
    written = _written(block)
    for key in _KEYS:  # (a flow mapping's values, a mapping below or an alias to one; a
        # block's are judged by yaml_fault, and one YAML stops on Codex repairs into its text:
        # `description: [draft] a thing`)
        raw = written.get(key, "")
        if not fault and raw[:1] in ("[", "{") and _is_collection(raw):
            fault = f"'{key}' is a list or mapping, not a string"
    if fault:
        why = _not_yaml("Codex", fault)
        return folder, why.replace("front matter", "front matter of SKILL.md", 1)
    return fields.get("name", "").strip() or folder, None


def _is_collection(raw: str) -> bool:
    """Whether the value written ``raw`` (``[`` or ``{`` for one on the lines below) is a
    list or mapping YAML reads, not a value it stops on (``[draft] a thing``)."""
    return raw in ("[", "{") or yaml_fault([f"k: {raw}"], JS_YAML) is None


_GEMINI_BLOCK = re.compile(r"^---\r?\n([\s\S]*?)\r?\n---")
_NULL_BOOL = (
    r"~|null|Null|NULL|true|True|TRUE|false|False|FALSE|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)"
)
_BUN_NOT_STRING = re.compile(
    rf"{_NULL_BOOL}|[-+]?(?:0o[0-7]+|0x[0-9a-fA-F]+|(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?)"
)
"""The plain values Bun's YAML parser (Claude Code) reads as no string: the YAML 1.2 core
schema's null, booleans and numbers (a sign allowed before ``0x``/``0o``); no ``0b``, no
``_`` in numbers, no timestamps (measured with Bun 1.4.0, as Claude Code 2.1.197 embeds)."""
_JS_YAML_NOT_STRING = re.compile(
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


def gemini_cli_skill(text: str, folder: str) -> tuple[str, str | None]:
    """Gemini CLI 0.61's ``loadSkillFromFile``: the block's YAML (js-yaml) when it reads and
    gives a string ``name`` and ``description``; else its line reader (``parseSimpleFrontmatter``):
    the last ``name:`` and ``description:`` lines at any indentation, their text as it is
    (quotes kept), a description going on over the indented lines below it."""
    match = _GEMINI_BLOCK.match(text)  # (a byte-order mark before "---": no front matter)
    lines = yaml_lines(match.group(1)) if match else []
    raw = _written(lines)
    if (
        match
        and yaml_fault(lines, JS_YAML) is None
        and all(_is_string(raw.get(k), _JS_YAML_NOT_STRING) for k in _KEYS)
    ):
        return _UNSAFE.sub("-", _values(lines).get("name", "")), None
    name, description = _gemini_lines(match.group(1) if match else "")
    if match is None or name is None or description is None:
        why = "no front matter giving a name and a description in SKILL.md"
        return folder, f"{why}; Gemini CLI does not load it"
    return _UNSAFE.sub("-", name), None


_JS_BLANKS = (
    "\t\n\v\f\r \xa0\u1680"
    + "".join(map(chr, range(0x2000, 0x200B)))
    + ("\u2028\u2029\u202f\u205f\u3000\ufeff")
)
"""What JavaScript's ``\\s`` and ``trim()`` take for blanks (not ``\\x85``, as Python's do)."""
_JS_SPACE = re.escape(_JS_BLANKS)
_JS_LINE = re.compile(rf"[{_JS_SPACE}]*(name|description):[{_JS_SPACE}]*([^\n\r\u2028\u2029]*)")


def _gemini_lines(block: str) -> tuple[str | None, str | None]:
    """Gemini CLI 0.61's ``parseSimpleFrontmatter`` of the front matter ``block``, with
    JavaScript's regular expressions: its lines split at LF and CRLF only, a ``name:`` line
    holding ``\\u2028`` or ``\\u2029`` (line ends to ``.``) not matched."""
    lines = re.split(r"\r?\n", block)
    name = description = None
    index = 0
    while index < len(lines):
        match = _JS_LINE.fullmatch(lines[index])
        if match and match.group(1) == "name":
            name = match.group(2).strip(_JS_BLANKS)
        elif match:
            parts = [match.group(2).strip(_JS_BLANKS)]
            while index + 1 < len(lines) and re.match(rf"[ \t]+[^{_JS_SPACE}]", lines[index + 1]):
                parts.append(lines[index + 1].strip(_JS_BLANKS))
                index += 1
            description = " ".join(part for part in parts if part)
        index += 1
    return name, description


def _is_string(raw: str | None, not_string: re.Pattern[str]) -> bool:
    """Whether a YAML parser whose plain non-strings are ``not_string`` reads the value ``raw``
    (as :func:`_entries` gives it) as a string."""
    if not raw or raw.startswith("#"):
        return False
    if raw[0] in "'\"":
        return True
    return raw[0] not in "[{*" and not not_string.fullmatch(raw.split(" #")[0].strip())


_CLAUDE_BLOCK = re.compile(r"^---\s*\n([\s\S]*?)---\s*\n?")


def claude_code_agent(text: str, stem: str) -> tuple[str, str | None]:
    """Claude Code 2.1's reading of a subagent's file: its front matter (up to the first
    ``---`` anywhere, even inside a line: ``description: a---b`` ends it at ``a``) read by
    Bun's YAML parser, else once more as Claude Code repairs it (``yaml_check.claude_repaired``:
    every unindented value holding a character YAML gives a meaning to is then a quoted text,
    ``name: &a x`` the name ``&a x``); it loads the subagent when that gives a ``name`` and a
    ``description`` that are non-empty strings, the name not starting with ``-``."""
    match = _CLAUDE_BLOCK.match(text)
    block = match.group(1) if match else ""
    lines = yaml_lines(block)
    fault = yaml_fault(lines, BUN) if match else None
    if fault:
        repaired = yaml_lines(claude_repaired(block))
        if yaml_fault(repaired, BUN) is None:
            lines, fault = repaired, None
    fields = _values(lines)
    name = fields.get("name") or stem
    if fault:
        return name, _not_yaml("Claude Code", fault)
    if not match or not fields.get("name") or not fields.get("description"):
        if block and not block.endswith("\n"):  # `description: a---b`: it ends at "a"
            cut = f"line {len(lines) + 1}"
            return name, f"{NO_AGENT_FRONT_MATTER}: Claude Code ends it at the '---' in {cut}"
        return name, NO_AGENT_FRONT_MATTER
    raw = _written(lines)
    for key in _KEYS:
        if not _is_string(raw.get(key), _BUN_NOT_STRING) or not fields.get(key):
            return name, f"its '{key}' is not a text; Claude Code does not load it"
    if name.startswith("-"):
        return name, "its name starts with '-'; Claude Code does not load it"
    return name, None


def claude_code_agents(text: str, stem: str) -> list[tuple[str, str | None]]:
    return [claude_code_agent(text, stem)]


_GEMINI_LOCAL_KEYS = frozenset(
    {"kind", "name", "description", "display_name", "tools", "mcp_servers", "model"}
    | {"temperature", "max_turns", "timeout_mins"}
)
_GEMINI_REMOTE_KEYS = frozenset(
    ("kind", "name", "description", "display_name", "auth", "agent_card_url", "agent_card_json")
)
_GEMINI_SLUG = re.compile(r"[a-z0-9_-]+")  # (js: `$` is the very end)
_GEMINI_TOOLS = frozenset(
    (
        "glob",
        "write_todos",
        "write_file",
        "google_web_search",
        "web_fetch",
        "replace",
        "run_shell_command",
        "grep_search",
        "read_many_files",
        "read_file",
        "list_directory",
        "activate_skill",
        "ask_user",
        "tracker_create_task",
        "tracker_update_task",
        "tracker_get_task",
        "tracker_list_tasks",
        "tracker_add_dependency",
        "tracker_visualize",
        "get_internal_docs",
        "enter_plan_mode",
        "exit_plan_mode",
        "update_topic",
        "complete_task",
        "invoke_agent",
        "read_mcp_resource",
        "list_mcp_resources",
        "search_file_content",
        "*",
        "mcp_*",
    )
)
"""The tool names Gemini CLI 0.61's ``isValidToolName`` takes (its built-in tools, a legacy
alias, the wildcards), beside ``discovered_tool_…`` and ``mcp_<server>_<tool>``."""
_GEMINI_MCP_TOOL = re.compile(r"mcp_(?P<server>[^_]+)_(?P<tool>.+)")
_MCP_SLUG = re.compile(r"[a-zA-Z0-9_.:-]+")


def _gemini_tool(name: str) -> bool:
    """Whether Gemini CLI 0.61 takes ``name`` in a subagent's ``tools``."""
    if name in _GEMINI_TOOLS or name.startswith("discovered_tool_"):
        return True
    match = _GEMINI_MCP_TOOL.fullmatch(name)
    if match is None or not _MCP_SLUG.fullmatch(match["server"]):
        return False
    tool = match["tool"]
    return tool == "*" or (not re.fullmatch(r"_*", tool) and bool(_MCP_SLUG.fullmatch(tool)))


def _js_number(raw: str) -> float | None:
    """The number js-yaml reads the unquoted value ``raw`` as, or None when it is no number."""
    plain = raw.split(" #")[0].strip()
    if not plain or plain[0] in "'\"" or not _JS_YAML_NOT_STRING.fullmatch(plain):
        return None
    lowered = plain.lower().replace("_", "")
    if lowered.lstrip("+-") in (".inf", ".nan"):
        return float(lowered.replace(".", ""))
    sign = -1 if lowered.startswith("-") else 1
    digits = lowered.lstrip("+-")
    for prefix, base in (("0x", 16), ("0o", 8), ("0b", 2)):
        if digits.startswith(prefix):
            return sign * int(digits[2:], base)
    try:
        return float(lowered)
    except ValueError:  # (null, a boolean, a timestamp)
        return None


def _key_lines(lines: list[str], key: str) -> list[str]:
    """The lines below the top-level ``key:`` of the mapping ``lines``."""
    content = [line for line in lines if _text(line)]
    base = len(content[0]) - len(content[0].lstrip(" ")) if content else 0
    for index, line in enumerate(lines):
        match = _ENTRY.match(line[base:]) if len(line) - len(line.lstrip(" ")) == base else None
        if match and _key(match) == key:
            return _indented(lines, index + 1, base, True)
    return []


def _list_items(raw: str, below: list[str]) -> list[str] | None:
    """The items of a list value as written (``[a, b]``, or ``- a`` lines ``below``), or None
    when the value is no list."""
    if raw.startswith("["):
        inner = raw.split(" #")[0].strip()
        texts = [line for line in below if _text(line)]
        if raw == "[" and texts and _ITEM.match(texts[0].strip()):  # `- a` lines below
            items, indent = [], None
            for line in (line for line in below if _text(line)):
                here = len(line) - len(line.lstrip(" "))
                if indent is None or (here == indent and line.lstrip().startswith("-")):
                    indent = here
                    items.append(_uncommented(line.strip()[1:].strip()))
                else:
                    items[-1] = f"{items[-1]} {line.strip()}".strip()
            return items
        if not inner.endswith("]"):  # a flow list over several lines: `[a,` then `  b]`
            inner = " ".join([inner, *(uncommented(line).strip() for line in texts)]).strip()
        if inner.endswith("]"):
            found = re.findall(r"""(?:"(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^,])+""", inner[1:-1])
            return [item.strip() for item in found if item.strip()]
    return None


_URL = re.compile(
    r"(?i:(?:https?|wss?|ftp):/*[^\s/?#:@]"  # (a special scheme: a host)
    r"|(?!(?:https?|wss?|ftp|file):)[a-z][a-z0-9+.-]*:|file:)\S*$"
)
"""What ``new URL()`` takes (zod's ``url()``), near enough: a scheme, and a host after the
special ones'."""


def _gemini_fault(lines: list[str], remote: bool) -> str | None:
    """What Gemini CLI 0.61's schema for a local (``localAgentSchema``) or a remote agent
    (``remoteAgentUrlSchema``/``remoteAgentJsonSchema``) refuses in the mapping ``lines``."""
    entries = _entries(lines)
    written = {key: raw for key, (raw, _) in entries.items()}
    if unknown := sorted(set(written) - (_GEMINI_REMOTE_KEYS if remote else _GEMINI_LOCAL_KEYS)):
        keys = ", ".join(f"'{key}'" for key in unknown)
        return f"its front matter has keys Gemini CLI does not know ({keys})"
    kind = written.get("kind")
    if kind is not None and kind.strip("'\"") != ("remote" if remote else "local"):
        return f"its 'kind' is {kind!r}, not 'local' or 'remote'"
    text_keys = ("name", "description", "display_name", "model", "agent_card_url")
    for key in (*text_keys, "agent_card_json"):
        if key in written and not _is_string(written[key], _JS_YAML_NOT_STRING):
            return f"its '{key}' is not a text"
    name = entries.get("name", ("", ""))[1]
    if not remote and not entries.get("description", ("", ""))[1]:
        return "its description is empty"
    if not _GEMINI_SLUG.fullmatch(name):
        return "its name is not lowercase letters, digits, '-' and '_'"
    if remote:
        card = {"agent_card_url", "agent_card_json"} & set(written)
        if len(card) != 1:
            both = "both 'agent_card_url' and" if card else "neither 'agent_card_url' nor"
            return f"it gives {both} 'agent_card_json'"
        if "agent_card_url" in card and not _URL.match(entries["agent_card_url"][1]):
            return "its 'agent_card_url' is not a URL"
        if "agent_card_json" in card:
            try:
                json.loads(entries["agent_card_json"][1])
            except ValueError:
                return "its 'agent_card_json' is not valid JSON"
        return None
    if "tools" in written:
        items = _list_items(written["tools"], _key_lines(lines, "tools"))
        if items is None:
            return "its 'tools' is not a list"
        anchors = _anchors_before(lines, "tools")
        for given in items:
            properties = _PROPERTIES.match(given)  # (`- &d read_file` is `read_file`)
            item = given[properties.end() :] if properties else given
            raw, tool = item, scalar_text(item, [])
            if (alias := re.fullmatch(r"\*(\S+)", item)) and alias.group(1) in anchors:
                raw, tool = anchors[alias.group(1)]  # (`- *d`: its anchor's value)
            elif anchor := re.search(r"&(\S+)", properties.group() if properties else ""):
                anchors[anchor.group(1)] = (raw, tool)  # (`- &d read_file`, then `- *d`)
            if not _is_string(raw, _JS_YAML_NOT_STRING) or not _gemini_tool(tool):
                return f"its 'tools' names {item!r}, not a tool Gemini CLI knows"
    if "mcp_servers" in written and written["mcp_servers"][:1] != "{":  # (`|`: a text)
        return "its 'mcp_servers' is not a mapping"
    number = _js_number(written.get("temperature", "0"))
    if number is None or number != number:  # (zod refuses NaN)
        return "its 'temperature' is not a number"
    for key in ("max_turns", "timeout_mins"):
        number = _js_number(written.get(key, "1"))
        if number is None or number <= 0 or number == float("inf") or number != int(number):
            return f"its '{key}' is not a whole number above 0"
    return None


def gemini_cli_agents(text: str, stem: str) -> list[tuple[str, str | None]]:
    """Gemini CLI 0.61's ``parseAgentMarkdown``: :func:`gemini_cli_agent`, or, for front
    matter that is a list, one remote agent per item (``remoteAgentsListSchema``; any item
    refused: none is loaded)."""
    match = _GEMINI_BLOCK.match(text)
    lines = yaml_lines(match.group(1)) if match else []
    content = [line for line in lines if _text(line)]
    if not content or not re.match(r"\s*-(?:\s|$)", content[0]):
        return [gemini_cli_agent(text, stem)]
    indent = len(content[0]) - len(content[0].lstrip(" "))
    items: list[list[str]] = []
    for number, line in enumerate(lines):
        here = len(line) - len(line.lstrip(" "))
        if _text(line) and here == indent and (item := re.match(r"\s*-(\s+|$)", line)):
            # (blank lines above it: the faults name the front matter's lines)
            items.append([""] * number + [" " * item.end() + line[item.end() :]])
        elif not _text(line) and not items:
            continue  # (a comment above the first item)
        elif (_text(line) and here <= indent) or not items:
            return [(stem, _not_yaml("Gemini CLI", f"'{line.strip()[:40]}' is not a list item"))]
        else:
            items[-1].append(line)
    found = []
    for number, mapping in enumerate(items, 1):
        name = _values(mapping).get("name") or f"{stem}[{number}]"
        fault = yaml_fault(mapping, JS_YAML) or _gemini_fault(mapping, remote=True)
        if fault and fault.startswith("the front matter is "):
            fault = "it is not a mapping of keys"
        found.append((name, fault))
    if faulty := next(((n, why) for n, (_, why) in enumerate(found, 1) if why), None):
        why = f"item {faulty[0]} of its list of remote agents: {faulty[1]}"
        return [(name, f"{why}; Gemini CLI does not load it") for name, _ in found]
    return found


def gemini_cli_agent(text: str, stem: str) -> tuple[str, str | None]:
    """Gemini CLI 0.61's ``parseAgentMarkdown``: js-yaml reads the front matter, and any fault
    stops it ("YAML frontmatter parsing failed"); then its schema takes it as a local agent
    (``localAgentSchema``: a ``name`` of ``a-z0-9-_``, a non-empty ``description``, ``tools``
    a list of tool names it knows, ``temperature`` a number, ``max_turns`` and
    ``timeout_mins`` whole numbers above 0, known keys only) or a remote one
    (``remoteAgent*Schema``: one of ``agent_card_url`` and ``agent_card_json``); its error
    names the kind the keys point to (``kind``, a remote agent's keys)."""
    match = _GEMINI_BLOCK.match(text)
    lines = yaml_lines(match.group(1)) if match else []
    fields = _values(lines)
    name = fields.get("name") or stem
    if match and (fault := yaml_fault(lines, JS_YAML)):
        return name, _not_yaml("Gemini CLI", fault)
    written = _written(lines)
    remote = written.get("kind", "").strip("'\"") == "remote" or bool(
        {"agent_card_url", "agent_card_json", "auth"} & set(written)
    )
    if "name" not in written or ("description" not in written and not remote):
        return name, NO_AGENT_FRONT_MATTER
    local_fault = _gemini_fault(lines, remote=False)
    remote_fault = _gemini_fault(lines, remote=True)
    if local_fault is None or remote_fault is None:
        return name, None
    fault = remote_fault if remote else local_fault
    return name, f"{fault}; {'it' if 'Gemini CLI' in fault else 'Gemini CLI'} does not load it"


NO_AGENT_FRONT_MATTER = "no front matter giving a name and a description"
