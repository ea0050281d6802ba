"""Whether a CLI's YAML parser reads a front matter block, judged line by line.

Nothing is parsed into values: the lines (``yaml_scalar.yaml_lines``) are scanned for the
faults the pinned CLIs' parsers stop on (measured with each CLI; see ``front_matter.py`` and
``subagent_front_matter.py`` for what each does then):

- a quoted value whose quote is never closed, or with text after its closing quote;
- a double-quoted value holding an escape YAML does not know (``"C:\\Users"``; not said for
  Claude Code, whose reading of it is not measured);
- a tab in a line's indentation (YAML indents with spaces only);
- a front matter that is a list or a bare text, not a mapping of keys;
- an alias (``*name``) with no anchor (``&name``) above it, or with text after it;
- a ``?`` (a complex key) opening a key's value (``name: ? x``);
- for js-yaml, a tag it knows no type for (``!foo x``; serde_yaml drops it, Claude Code reads
  it);
- a more-indented line under a value that cannot go on (``key: value`` below ``description:
  text``, any text below a closed quote or below a comment line that ends a value, a list
  item's text included), a line of
  a block scalar less indented than its first, a line back at an indentation no key above
  has, a line that is no ``key: value``;
- a value opening with a character that cannot start one (``%``, ``@``, a backquote) or with a
  list item (``description: -``, ``description: - x``), a block
  scalar's header with text after it (``|x``), a flow list or mapping never closed, a ``: ``
  inside an unquoted value (quotes inside it are text: ``Use 'a: b' here`` holds one);
- a key given twice in one mapping (each dialect names the keys it refuses twice), an alias
  as a key (``*d : v``) being the text its anchor was given;
- a flow list or mapping with text after its closing bracket (``[draft] a thing``), or holding
  an alias with no anchor before it (``[*d]``, ``{x: *d}``), or an item in it followed by text
  with no ``,`` (``{a: [x] y}``), scanned by ``yaml_flow_check`` on its key's line, on the
  line below an empty key (``tools:``, ``  [a, b]``) or opening a list item (``- [&d a]``).

Codex 0.171 recovers some of these (``Dialect.recovers``): it reads some unquoted values that
are not valid YAML as their text. Claude Code 2.1, when Bun's parser stops, reads the block
once more after its repair (``claude_repair.claude_repaired``, tried by
``subagent_front_matter``): it quotes each unindented ``key: value`` whose value holds a
character YAML gives a meaning to, and turns the tabs that open a line into spaces.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from proctor.addons.audit.yaml_flow_check import flow_fault, flow_key_end
from proctor.addons.audit.yaml_scalar import closed, one_line_text, yaml_lines

_KEY = re.compile(
    r"""^(?P<dash>-\s+)?(?P<key>"(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^\s#'"\[\]{},&*!|>%@`-][^#]*?|-[^\s#][^#]*?)\s*:(?:\s+(?P<value>.*)|$)"""
)
_PLAIN_ITEM = re.compile(r"""[^\s#'"\[\]{},&*!|>%@`-]|-\S""")
_BLOCK_HEADER = re.compile(r"^[|>](?:[1-9][+-]?|[+-][1-9]?)?\s*(?:#.*)?$")
_NOT_STRING = "not a string"
_NOT_MAPPING = "not a mapping"  # (no repair of a value makes either of these types right)
_PROPERTY = re.compile(r"(&\S+|!<[^>]*>|!(?!<)\S*)(?:\s+|$)")
"""An anchor (``&a``) or a tag (``!!str``, ``!foo``, ``!<tag:yaml.org,2002:str>``) opening a
value."""
_KINDS = (
    *("str", "null", "bool", "int", "float", "timestamp", "merge"),
    *("binary", "omap", "pairs", "set", "seq", "map"),
)
_KNOWN_TAGS = frozenset(
    {"!", *(f"!!{kind}" for kind in _KINDS), *(f"!<tag:yaml.org,2002:{kind}>" for kind in _KINDS)}
)
"""The tags js-yaml 4's default schema knows (Gemini CLI 0.61); it stops on any other
("unknown tag", "undeclared tag handle")."""


@dataclass(frozen=True)
class Dialect:
    """One CLI's YAML reading. ``recovers(key, value, indent)``: whether it reads the unquoted
    ``value`` on its key's line as its text where YAML would stop; ``twice(path)``: whether a
    key given twice at ``path`` (the keys down to it) stops it."""

    name: str
    recovers: Callable[[str, str, int], bool] = lambda key, value, indent: False
    twice: Callable[[tuple[str, ...]], bool] = lambda path: True
    flags: frozenset[str] = field(default_factory=frozenset)
    escapes: bool = True  # (whether an escape YAML does not know stops it: `"C:\\Users"`)
    wraps: bool = True  # (whether a quoted text goes on over lines at any indentation)
    code_points: bool = False  # (whether `"\\uD800"`, `"\\U00110000"` stop it, as in libyaml)
    tags: bool = False  # (whether a tag it knows no type for stops it: `!foo x`)
    anchor_name: str = r"[^\s,\[\]{}]+"  # (YAML 1.2: `*d:` is the alias `d:`; libyaml: `d`)


def _codex_recovers(key: str, value: str, indent: int) -> bool:
    # Codex 0.171 reads as text an unquoted value holding ": " or opening a flow collection,
    # "@" or "`" (measured with its app server's skills/list), not one opening "*", "%", "|"
    # or a quote.
    if value[:1] in ("'", '"'):
        return False
    return value[:1] in ("[", "{", "@", "`") or ": " in value


CODEX = Dialect(
    "codex",
    recovers=_codex_recovers,
    twice=lambda path: (
        path in (("name",), ("description",), ("metadata",))
        or path == ("metadata", "short-description")
    ),
    code_points=True,
    anchor_name=r"[0-9A-Za-z_-]+",
)
"""serde_yaml 0.9 (libyaml) into Codex's struct of ``name``, ``description`` and ``metadata``
(``short-description``): only those keys are refused twice."""
JS_YAML = Dialect("js-yaml", tags=True)
"""js-yaml 4, as Gemini CLI 0.61 loads: no recovery, any key refused twice, an unknown tag
refused (serde_yaml drops it: Codex 0.171 reads ``!foo x`` as ``x``)."""
BUN = Dialect("claude", twice=lambda path: False, escapes=False, wraps=False)
"""Bun's YAML parser, as Claude Code 2.1 first reads a subagent's front matter: a key given
twice keeps its last (its reading of an escape YAML does not know, and of a quoted text going
on over a line no more indented than its key, is not measured: the audit says nothing of the
first, the second is said never closed, as it was)."""


def block_of(text: str, yaml_1_1: bool = False) -> list[str] | None:
    """The lines between a leading ``---`` line and the next one (split as ``yaml_lines``
    does); None when there is none."""
    lines = yaml_lines(text, yaml_1_1)
    if not lines or lines[0].rstrip() != "---":
        return None
    end = next((i for i, line in enumerate(lines[1:], 1) if line.rstrip() == "---"), None)
    return None if end is None else lines[1:end]


def yaml_fault(lines: list[str], dialect: Dialect) -> str | None:
    """The first fault that stops ``dialect`` in the front matter ``lines`` (one phrase naming
    the line), or None."""
    return _Scan(lines, dialect).run()


class _Scan:
    def __init__(self, lines: list[str], dialect: Dialect) -> None:
        self.lines, self.d = lines, dialect
        self.anchors: dict[str, str | None] = {}  # each name's text (None: no one-line text)
        self.levels: list[tuple[int, tuple[str, ...], set[str]]] = []  # open mappings
        self.after: str | None = None  # what may go on below the last value: "plain" text,
        self.after_indent = -1  # nothing ("closed", "comment": a comment line ended it),
        self.comment_line = 0  # anything ("skip": not looked into)
        self.block_indent: int | None = None  # in a block scalar under a key so indented,
        self.block_content: int | None = None  # its lines so indented (None: not yet known)
        self.block_name = ""
        self.pending: tuple[str, ...] | None = None  # the path of a key with no value yet
        self.list_indent: int | None = None  # a list's items at the indentation of its key
        self.skip_scalar: int | None = None  # (in a list item not looked into: the lines more
        self.skip_quote = ""  # indented than this are a text's, or up to this quote's close)

    def run(self) -> str | None:
        index = 0
        while index < len(self.lines):
            line = self.lines[index]
            stripped = line.strip()
            indent = len(line) - len(line.lstrip(" "))
            if self.block_indent is not None:
                if not stripped:
                    index += 1
                    continue
                if self.block_content is None and indent > self.block_indent:
                    self.block_content = indent  # (its first line sets its indentation)
                if self.block_content is not None and indent >= self.block_content:
                    index += 1
                    continue
                key_indent, self.block_indent = self.block_indent, None
                if indent > key_indent and not stripped.startswith("#"):
                    return (
                        f"line {index + 2} is less indented than the first line of the block "
                        f"that opens '{self.block_name}'"
                    )
                self.after, self.after_indent = "plain", key_indent  # (a comment ends it)
            if not stripped:
                index += 1
                continue
            if "\t" in line[: len(line) - len(line.lstrip())]:
                return f"a tab indents line {index + 2} (YAML indents with spaces)"
            if stripped.startswith("#"):
                if self.after == "plain":  # a comment line ends a value: none goes on below
                    self.after, self.comment_line = "comment", index + 2
                index += 1
                continue
            fault, index = self.line(index, indent, stripped)
            if fault:
                return fault
        if self.pending in (("name",), ("description",)) and self.d.name == "codex":
            return None  # (an empty value: no description, said before this is asked)
        return None

    def line(self, index: int, indent: int, stripped: str) -> tuple[str | None, int]:
        where = f"line {index + 2}"
        if self.after is not None and indent > self.after_indent:
            if self.after == "closed":
                return f"{where} goes on after a closed value", index
            if self.after == "comment":
                why = f"the comment in line {self.comment_line} ends"
                return f"{where} is indented under a value that {why}", index
            if self.after == "plain" and (": " in stripped or stripped.endswith(":")):
                return f"{where} is indented under a value as if it were a key", index
            if self.after == "skip":  # (its anchors count: `- k: v`, `  j: &d w`)
                self._skipped(indent, stripped)
            return None, index + 1
        self.after = None
        item = stripped == "-" or stripped.startswith("- ")
        match = None if item else _KEY.match(stripped)
        if not self.levels:
            if stripped.startswith("{"):  # a flow mapping: `{name: a, description: t}`
                self.levels.append((indent, (), set()))
                return self._flow(index, indent - 1, ("front matter",), stripped)
            if match is None:
                kind = "a list" if item else "a text"
                return f"the front matter is {kind}, not a mapping of keys", index
            self.levels.append((indent, (), set()))
        if self.pending is not None:
            parent, self.pending = self.pending, None
            if indent > self.levels[-1][0] or (item and indent == self.levels[-1][0]):
                if match is None and not item:  # the key's text, on the lines below it
                    rest, fault = self._properties(stripped, f"'{'.'.join(parent)}'")
                    if not fault and (not rest or rest.startswith("#")):
                        self.pending = parent  # (an anchor alone: `&m`, then `  a: 1`)
                        return None, index + 1
                    if not fault and rest[0] in "[{":  # (a flow collection: `tools:`, `  [a]`,
                        # its fault not recovered: Codex's repair reads only a value on its
                        # key's line, so `description:`, `  [draft] t.` stops it, measured)
                        return self._flow(index, self.levels[-1][0], parent, rest)
                    self.after, self.after_indent = "plain", self.levels[-1][0]
                    return fault, index + 1
                if parent in (("name",), ("description",)) and self.d.name == "codex":
                    return f"'{parent[0]}' is a list or mapping, {_NOT_STRING}", index
                if item:
                    self.list_indent = indent
                    return self._item(index, indent, stripped, where)
                self.levels.append((indent, parent, set()))
        if item and indent == self.list_indent:
            return self._item(index, indent, stripped, where)
        self.list_indent = None
        while self.levels and indent < self.levels[-1][0]:
            self.levels.pop()
        if not self.levels or indent != self.levels[-1][0]:
            return f"{where} is back at an indentation no key above has", index
        aliased = None
        if match is None and stripped.startswith("*"):  # an alias as a key: `*d : v`
            alias = re.match(self.d.anchor_name, stripped[1:])
            name = alias.group() if alias else ""
            if name not in self.anchors:
                why = f"refers to an anchor '&{name}' that no line above sets"
                return f"{where} opens with the alias '*{name}', which {why}", index
            match = _KEY.match(f'"*{name}"{stripped[1 + len(name) :]}')
            aliased = self.anchors[name]  # (the key is its anchor's text: `name: &n name`)
        if match is None:
            return f"{where} is not a 'key: value' line", index
        level_path, seen = self.levels[-1][1], self.levels[-1][2]
        key = match.group("key").strip("'\"")
        if stripped.startswith("*") and aliased is not None:
            key = aliased
        path = (*level_path, key)
        if key in seen and self.d.twice(path):
            return f"'{'.'.join(path)}' is given twice", index
        seen.add(key)
        written = (match.group("value") or "").strip()
        value, fault = self._properties(written, f"'{key}'")
        if fault:
            return fault, index
        if not value or value.startswith("#"):
            self.pending = path
            return None, index + 1
        if value.startswith("*") and value != written:
            fault, following = _alias_properties(f"'{key}' in {where}", written, value), index
        else:
            fault, following = self.value(index, indent, path, value)
        if (
            fault
            and not fault.endswith((_NOT_STRING, _NOT_MAPPING))
            and self.d.recovers(key, value, indent)
        ):
            self.after, self.after_indent = "plain", indent
            return None, index + 1
        return fault, following

    def _properties(self, value: str, what: str) -> tuple[str, str | None]:
        """``value`` without its anchors (``&a``, kept for the aliases below) and tags
        (``!!str``, ``!foo``), and the fault of a tag the dialect knows no type for (said of
        ``what``: ``'name'``)."""
        names = []
        while properties := _PROPERTY.match(value):
            found = properties.group(1)
            if found.startswith("&"):
                names.append(found[1:])
            elif self.d.tags and found not in _KNOWN_TAGS:
                why = f"which {self.d.name} knows no type for (quote the value to keep the '!')"
                return value, f"{what} has the tag '{found}', {why}"
            value = value[properties.end() :]
        self.anchors.update(dict.fromkeys(names, one_line_text(value)))
        return value, None

    def _item(self, index: int, indent: int, stripped: str, where: str) -> tuple[str | None, int]:
        """A list item (line ``index``), and the index of the line after it: a plain text in
        it may go on over the more-indented lines below, up to a comment line; anything else
        in it is not looked into but its anchors and tags (the fault of a tag the dialect
        knows no type for), those of an item of an item (``- - &d x``), and a flow collection
        opening it, its key's value or its key (``- [&d x, y]``, ``- k: {a: *d}``, ``- [&d
        x]: v``, a key when ``: `` follows it on its line), scanned as a key's is
        (``yaml_flow_check``)."""
        what = f"the list item in {where}"
        written = stripped[1:].strip()
        text, fault = self._properties(written, what)
        node, keyed = text, False
        while not fault and (dashes := _DASH.match(node)):  # (`- - &d x`: an item of an item)
            written = node[dashes.end() :].strip()
            node, fault = self._properties(written, what)
        level = self.levels[-1][0]  # (a flow collection goes on more indented than its list's key)
        if not fault and node[:1] in ("[", "{") and (end := flow_key_end(node)):
            fault, _ = flow_fault(  # (a flow key: `- [&d a, b]: v`, its anchors counted)
                self.lines,
                self.anchors,
                self.d.anchor_name,
                index,
                level,
                (),
                node[:end],
                "a list item",
            )
            written, keyed = node[end:].strip()[1:].strip(), True
            if not fault:
                node, fault = self._properties(written, what)
        elif not fault and (entry := _KEY.match(node)) and entry.group("value"):  # (`- k: &d v`)
            written, keyed = entry.group("value").strip(), True
            node, fault = self._properties(written, what)
        if fault:
            return fault, index
        following = index + 1
        if node.startswith("*") and not keyed:
            if node != written:
                return _alias_properties(what, written, node), index
            if (alias := node[1:].split(" ")[0]) not in self.anchors:
                why = f"refers to an anchor '&{alias}' that no line above sets"
                return f"{what} {why}", index
        elif node[:1] in ("[", "{"):
            fault, following = flow_fault(
                self.lines, self.anchors, self.d.anchor_name, index, level, (), node, "a list item"
            )
            if fault:
                return fault, index
        plain = _PLAIN_ITEM.match(text) and ": " not in text and not text.endswith(":")
        self.after, self.after_indent = ("plain" if plain else "skip"), indent
        self.skip_scalar, self.skip_quote = None, ""
        self._opens(indent, stripped)
        return None, following

    def _skipped(self, indent: int, stripped: str) -> None:
        """A line under a list item that is not looked into: the anchors it sets, none in
        the text of a block scalar, a quoted or a plain value going on from a line above
        (``- k: |`` then ``    &d x`` is the text '&d x')."""
        if self.skip_quote:
            if closed(self.skip_quote + stripped):
                self.skip_quote = ""
            return
        if self.skip_scalar is not None and indent >= self.skip_scalar:
            rest = stripped
            while properties := _PROPERTY.match(rest):
                rest = rest[properties.end() :]
            if indent > self.skip_scalar or not (_KEY.match(rest) or _DASH.match(rest)):
                return  # (at its key's indentation, a line that is no key is no value: YAML
                # stops on `- k: v` then `    &d x`)
        self.skip_scalar = None
        self.anchors.update(dict.fromkeys(_NESTED_ANCHOR.findall(_unquoted(stripped))))
        self._opens(indent, stripped)

    def _opens(self, indent: int, stripped: str) -> None:
        """Note the text that the line (``stripped``, so indented) under a list item opens
        and that may go on over the lines below: a block scalar (``- k: |``) or a plain value
        (``- k: v``) over those more indented than its key (or its item's dash), a quoted one
        (``- k: "a``) up to its closing quote."""
        node, owner = stripped, indent
        while dashes := re.match(r"-(?:\s+|$)", node):  # (`- - k: v`: an item of an item)
            owner, node = indent + len(stripped) - len(node), node[dashes.end() :]
        value = node
        if node[:1] in ("[", "{") and (end := flow_key_end(node)):  # (`- [a]: |`: a flow key)
            owner, value = indent + len(stripped) - len(node), node[end:].strip()[1:].strip()
        elif entry := _KEY.match(node):
            owner, value = indent + len(stripped) - len(node), entry.group("value") or ""
        while properties := _PROPERTY.match(value):
            value = value[properties.end() :]
        if not value or value[0] in "#[{*":
            return  # (a collection below or in brackets, whose anchors count; an alias)
        if value[0] in "'\"":
            self.skip_quote = "" if closed(value) else value[0]
        else:  # (a block scalar's lines, or a plain text's)
            self.skip_scalar = owner

    def value(
        self, index: int, indent: int, path: tuple[str, ...], value: str
    ) -> tuple[str | None, int]:
        """The fault of a key's value, or None and the index of the line after it."""
        name = ".".join(path)
        if self.d.name == "codex" and path == ("metadata",):
            return f"'metadata' is {value[:40]!r}, {_NOT_MAPPING}", index
        if value[0] in "'\"":
            rest, closing = self._quoted(value, index, indent)
            if rest is None:
                return f"the quote that opens '{name}' is never closed", index
            if rest and not rest.startswith("#"):
                return f"'{name}' goes on after its closing quote ({rest[:40]!r})", index
            written = "\n".join([value, *self.lines[index + 1 : closing + 1]])
            if (
                value[0] == '"'
                and self.d.escapes
                and (bad := _bad_escape(written, self.d.code_points))
            ):
                why = "which YAML does not know (a backslash is written '\\\\')"
                return f"'{name}' holds the escape '{bad}', {why}", index
            self.after, self.after_indent = "closed", indent
            return None, closing + 1
        if value[0] in "|>":
            if not _BLOCK_HEADER.match(value):
                return f"'{name}' opens a block with text after {value[0]!r}", index
            self.block_indent, self.block_name = indent, name
            digits = re.findall(r"[1-9]", value.split("#")[0])
            self.block_content = indent + int(digits[0]) if digits else None
            return None, index + 1
        if value[0] in "[{":
            return self._flow(index, indent, path, value)
        if value == "-" or value.startswith("- "):
            return f"'{name}' opens a list item ('-') on its key's line", index
        if value[0] == "*":
            alias, _, rest = value[1:].partition(" ")
            if alias not in self.anchors:
                why = f"refers to an anchor '&{alias}' that no line above sets"
                return f"'{name}' in line {index + 2} {why}", index
            if rest.strip() and not rest.strip().startswith("#"):
                return f"'{name}' goes on after its alias '*{alias}' ({rest.strip()[:40]!r})", index
        if value == "?" or value.startswith(("? ", "?\t")):
            return f"'{name}' opens a mapping key ('?') on its key's line", index
        if value[0] in "%@`":
            return f"'{name}' opens with {value[0]!r}, which cannot start a YAML value", index
        if value.startswith("!<") and ">" not in value:
            return f"'{name}' has a tag that is never closed", index
        plain = re.split(r"\s#", value)[0].rstrip()  # (a quote inside it is text)
        if ": " in plain or plain.endswith(":"):
            return f"'{name}' holds ': ' in a value that is not quoted", index
        self.after, self.after_indent = "plain", indent
        return None, index + 1

    def _quoted(self, value: str, index: int, indent: int) -> tuple[str | None, int]:
        """What follows the closing quote (over the more-indented lines below), and the index
        of the line it closes on; (None, index) when it never closes."""
        quote, text, line_index = value[0], value[1:], index
        while True:
            i = 0
            while i < len(text):
                char = text[i]
                if quote == '"' and char == "\\":
                    i += 2
                    continue
                if char == quote:
                    if quote == "'" and text[i + 1 : i + 2] == "'":
                        i += 2
                        continue
                    return text[i + 1 :].strip(), line_index
                i += 1
            line_index += 1
            if line_index >= len(self.lines):
                return None, index
            following = self.lines[line_index]
            here = len(following) - len(following.lstrip(" "))
            if following.strip() and here <= indent and not self.d.wraps:
                return None, index  # (js-yaml and libyaml read `"a` then `b"` as "a b")
            text = following

    def _flow(
        self, index: int, indent: int, path: tuple[str, ...], value: str
    ) -> tuple[str | None, int]:
        """The fault of the flow collection ``value`` (a key's at ``path``) that opens on line
        ``index`` (``yaml_flow_check``), or None and the index of the line after it; for Codex,
        a ``name`` or ``description`` that is one is a fault of its type."""
        fault, following = flow_fault(
            self.lines, self.anchors, self.d.anchor_name, index, indent, path, value
        )
        if fault is None:
            self.after, self.after_indent = "closed", indent
            if self.d.name == "codex" and path in (("name",), ("description",)):
                return f"'{path[0]}' is a list or mapping, {_NOT_STRING}", index
        return fault, following


_DASH = re.compile(r"-(?:\s|$)")
"""A list item's dash."""
_NESTED_ANCHOR = re.compile(r"(?:^|[:-]\s+|[\[{,]\s*)&([^\s,\[\]{}]+)")
"""An anchor opening a value, a list item or a flow collection's item in a line not looked
into otherwise."""


def _alias_properties(what: str, written: str, alias: str) -> str:
    """The fault of an alias given an anchor or a tag of its own (``&b *a``), which js-yaml
    ("alias node should not have any properties"), libyaml and Bun refuse."""
    properties = written[: len(written) - len(alias)].strip()
    why = "which YAML does not allow (an alias is its anchor's value as it was given)"
    return f"{what} gives its alias '{alias.split()[0]}' the properties '{properties}', {why}"


def _unquoted(text: str) -> str:
    """``text`` without its quoted parts and its comment."""
    text = re.sub(r'"(?:[^"\\]|\\.)*"|\'(?:[^\']|\'\')*\'', "", text)
    return re.split(r"(?:^|\s)#", text)[0]


_ESCAPE = re.compile(
    r"""\\(?:[0abt\tnvfre "/\\N_LP\n]|x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8})"""
)


def _bad_escape(written: str, code_points: bool = False) -> str | None:
    """The first escape of the double-quoted text opening ``written`` that YAML (js-yaml,
    libyaml) does not know (``\\q``, ``\\U`` without 8 hex digits), or None; with
    ``code_points`` (libyaml) also one of a surrogate or a number above U+10FFFF."""
    index = 1
    while index < len(written) and written[index] != '"':
        if written[index] == "\\":
            if not (known := _ESCAPE.match(written, index)):
                return written[index : index + 2]
            digits = known.group()[2:]
            if code_points and len(digits) > 1:
                number = int(digits, 16)
                if 0xD800 <= number <= 0xDFFF or number > 0x10FFFF:
                    return known.group()
            index = known.end()
            continue
        index += 1
    return None
