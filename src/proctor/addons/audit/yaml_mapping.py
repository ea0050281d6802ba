"""A front matter's mapping read into its top-level keys' values, each as written and as its
text, the way the CLIs' YAML parsers read them: a block mapping at any indentation, its keys
quoted or not, or a flow mapping (``{name: a, description: t}``); a value's comment, anchor
(``&a``) and tag (``!!str``) dropped; an alias (``*a``) read as the value its anchor was
given; a value on the indented lines below its key, a block scalar, a quoted or plain text
over several lines, a list or mapping (``[``, ``{``).

Nothing is judged here: whether a CLI's parser reads the block at all is ``yaml_check``'s.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterator

from proctor.addons.audit.yaml_flow_check import MAX_FLOW_DEPTH, flow_key_end
from proctor.addons.audit.yaml_scalar import (
    block_text,
    closed,
    quoted_lines,
    scalar_text,
    uncommented,
)

_KEY = (
    r"""(?:"(?P<dq>(?:[^"\\]|\\.)*)"|'(?P<sq>(?:[^']|'')*)'"""
    r"""|(?P<plain>(?!-(?:\s|$))[^\s#'"{}\[\],:][^:#]*?))"""  # (`- a: b` is a list item)
)
_ENTRY = re.compile(rf"^{_KEY}\s*:(?:\s+(?P<value>.*)|$)")
_Span = tuple[int, int, bool]
"""Where a value's lines below its own are: the ``start``, ``base`` and ``items`` that
:func:`_indented` takes (read only when asked for: :func:`key_lines`)."""


def entries_of(lines: list[str]) -> dict[str, tuple[str, str]]:
    """The top-level keys of the front matter ``lines`` (:func:`_reading`)."""
    return _reading(lines)[0]


def anchors_before(lines: list[str], key: str) -> dict[str, tuple[str, str]]:
    """The anchors set in the front matter ``lines`` above its top-level ``key`` (all of
    them in a flow mapping), each with its value as written and its text."""
    return _reading(lines, key)[1]


def _reading(
    lines: list[str], upto: str | None = None
) -> tuple[dict[str, tuple[str, str]], dict[str, tuple[str, str]], dict[str, _Span | None]]:
    """The top-level keys of the front matter ``lines``: for each, its
    value as written and its text (the last of each). The mapping may be a block at any
    indentation (its first key's), its keys quoted or not, or a flow mapping (``{name: a,
    description: t}``); a block value on the indented lines below an empty one is said ``|``
    (``[`` when they are a list, ``{`` when they are ``key: value`` lines), a flow collection
    there is its text (``tools:``, ``  [Read, Grep]``: ``[Read, Grep]``). An alias (``*a``)
    is the value its anchor (``&a``, set above on a key's value or a list item at any depth,
    or in a flow collection) was given; one with no anchor above, or with an anchor or a tag
    of its own (``&b *a``, which YAML refuses), stays as written.

    Each line is read once: a nested key's value, or a list item, only for the anchor set on
    it (the lines of a block scalar, a flow collection or a text going on below its first
    line are not read again: ``- k: |`` then ``    &d x`` sets no anchor). With
    ``upto``, the reading stops at that top-level key. Also the anchors set (the last of each
    name: an alias refers to the latest ``&a`` above it, as js-yaml and serde_yaml read it),
    and where each top-level key's lines below it are, those of its alias's anchor for an
    alias (``x: &l``, ``  - Read``, then ``tools: *l``: the lines of ``x``'s list)."""
    anchors: dict[str, tuple[str, str]] = {}
    spans: dict[str, _Span | None] = {}  # (where the lines below each anchor's value are)
    below: dict[str, _Span | None] = {}  # (None: an alias with no anchor above)
    content = [line for line in lines if has_text(line)]
    if not content:
        return {}, anchors, below
    if content[0].lstrip().startswith("{"):
        flow = " ".join(uncommented(line).strip() for line in content)
        return _flow_entries(flow, anchors), anchors, below
    base = len(content[0]) - len(content[0].lstrip(" "))
    entries: dict[str, tuple[str, str]] = {}
    inside = 0  # (the index of the first line after the last value that is no key's line)
    for index, line in enumerate(lines):
        if index < inside:
            continue  # (a line of a quoted text: `description: "a` then `b: c"`)
        here = len(line) - len(line.lstrip(" "))
        dashes = _DASHES.match(line[here:]) if has_text(line) else None
        if dashes:  # a list item (`- &d text`, `- key: value`): only its anchor counts
            column = here + dashes.end()
            if match := _ENTRY.match(line[column:]):
                owner, given, items = column, match["value"], True
            elif line[column : column + 1] in ("[", "{") and (end := flow_key_end(line[column:])):
                _flow_entries(line[column : column + end], anchors)  # (a flow key: `- [a]: v`)
                owner, given, items = column, line[column + end :].strip()[1:], True
            else:
                owner, given, items = here, line[column:], False
        elif not (match := _ENTRY.match(line[here:])) or here < base:
            continue
        elif here == base and _key(match) == upto:
            break
        else:  # (a key, top-level or nested: a nested one only for its anchor)
            owner, given, items = here, match["value"], True
        top = bool(match and not dashes and here == base)
        value, inside, anchor = _entry(lines, index, owner, given, anchors, items, top)
        alias = re.fullmatch(r"\*(\S+)", _uncommented((given or "").strip()))
        span = spans.get(alias.group(1)) if alias else (index + 1, owner, items)
        if match and top:
            key = _key(match)
            if (alias := re.fullmatch(r"\*(\S+)", key)) and alias.group(1) in anchors:
                key = anchors[alias.group(1)][1]  # (`*d : v`: the key is its anchor's text)
            entries[key], below[key] = value, span
        if anchor:
            anchors[anchor], spans[anchor] = value, span
    return entries, anchors, below


_DASHES = re.compile(r"(?:-(?:[ \t]+|$))+")
"""The dashes opening a list item (``- a``; ``- - a``, an item of an item)."""


def _entry(
    lines: list[str],
    index: int,
    base: int,
    given: str | None,
    anchors: dict[str, tuple[str, str]],
    items: bool = True,
    wanted: bool = True,
) -> tuple[tuple[str, str], int, str]:
    """The value as written and the text of the value ``written`` on line ``index`` of
    ``lines`` (a key's at indentation ``base``, or a list item's, whose dash is there), the
    index of the first line after it that is no part of a quoted text, a block scalar or a
    flow collection, and the name of the anchor set on it ("" when none). A tag other than
    ``!!str`` is dropped (``!foo x`` is ``x``, as serde_yaml reads it; js-yaml stops on it,
    said by ``yaml_check``). ``given`` is the value as written, its blanks kept. With
    ``items`` (a key's value), list items at ``base`` below are its own (``tools:``, ``-
    glob``). Without ``wanted`` (a nested key's value, read only for its anchor), the text of
    a list or mapping below it is "" unless an anchor is set on it: its lines are not read
    here, once for each key above them (keys nested 2,000 deep took minutes), but one by one
    by :func:`_reading`."""
    written = (given or "").strip()
    properties = PROPERTIES.match(written)
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
        solid = (part for part in _lines_below(lines, index + 1, base, items) if has_text(part))
        heads = list(itertools.islice(solid, 2))  # (its first lines: what it is, its anchor)
        skipped = 0
        first = _uncommented(heads[0].lstrip()) if heads else ""
        if not _ITEM.match(first) and (properties := PROPERTIES.match(first)):
            # (its anchor or tag may open the line below: `description:`, `  &d text`, or
            # stand alone on it, the value on the lines below: `  &m`, `    a: 1`)
            found = re.search(r"&(\S+)", properties.group())
            anchor, first = found.group(1) if found else anchor, first[properties.end() :]
            tagged = tagged or bool(re.search(r"(?:^|\s)!!str(?:\s|$)", properties.group()))
            if not first:
                skipped = 1
                first = _uncommented(heads[1].lstrip()) if len(heads) > 1 else ""
        below = (
            [part for part in _indented(lines, index + 1, base, items) if has_text(part)][skipped:]
            if wanted or anchor or not (_ITEM.match(first) or _ENTRY.match(first))
            else []  # (a list or mapping no one reads the text of)
        )
        value = " ".join(part.strip() for part in below)
        if _ITEM.match(first):
            raw = "["
        elif first[:1] in ("[", "{"):  # (a flow collection: `tools:`, `  [Read, Grep]`)
            raw = " ".join([first, *(uncommented(part).strip() for part in below[1:])])
            _flow_entries(raw, anchors)
            following = index + 1 + len(_indented(lines, index + 1, base))
            return (raw, raw), following, anchor
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


PROPERTIES = re.compile(r"^(?:(?:&\S+|!(?:<[^>]*>|\S*))(?:\s+|$))+")
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
        properties = PROPERTIES.match(raw)
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


def has_text(line: str) -> bool:
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

    taken = list(_lines_below(lines, start, base, items, block))
    while taken and not (bool(taken[-1].strip()) if block else has_text(taken[-1])):
        taken.pop()  # (comments and blank lines after the value are not its own)
    return taken


def _lines_below(
    lines: list[str], start: int, base: int = 0, items: bool = False, block: bool = False
) -> Iterator[str]:
    """The lines of :func:`_indented`, read one by one, with the comment and blank lines that
    follow them."""
    for line in _below(lines, start):
        here = len(line) - len(line.lstrip(" \t"))
        if (
            (bool(line.strip()) if block else has_text(line))
            and here <= base
            and not (items and here == base and _ITEM.match(line[here:]))
        ):
            return
        yield line


def key_lines(lines: list[str], key: str) -> list[str]:
    """The lines below the top-level ``key:`` of the mapping ``lines`` (the last given), or
    below the value of the anchor its alias refers to (``tools: *l``: the lines of the list
    ``&l`` was set on)."""
    span = _reading(lines)[2].get(key)
    return _indented(lines, *span) if span else []


def list_items(raw: str, below: list[str]) -> list[str] | None:
    """The items of a list value as written (``[a, b]``, or ``- a`` lines ``below``), or None
    when the value is no list."""
    if raw.startswith("["):
        inner = raw.split(" #")[0].strip()
        texts = [line for line in below if has_text(line)]
        if raw == "[" and texts and _ITEM.match(texts[0].strip()):  # `- a` lines below
            items, indent = [], None
            for line in (line for line in below if has_text(line)):
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
