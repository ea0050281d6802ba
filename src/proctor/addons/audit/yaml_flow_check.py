"""Whether a CLI's YAML parser reads a flow collection (``[a, b]``, ``{k: v}``) in a front
matter, over the lines it goes on over: the faults ``yaml_check`` says of one (never closed,
text after its closing bracket, an alias with no anchor before it, nested deeper than
:data:`MAX_FLOW_DEPTH`), and the anchors set in it, from where they are set (``[&d a, *d]``).
"""

from __future__ import annotations

import re

from proctor.addons.audit.yaml_scalar import one_line_text


def flow_fault(
    lines: list[str],
    anchors: dict[str, str | None],
    anchor_name: str,
    index: int,
    indent: int,
    path: tuple[str, ...],
    value: str,
    what: str = "",
) -> tuple[str | None, int]:
    """The fault of the flow collection ``value`` (a key's at ``path``, or the front matter's
    when ``path`` is ``("front matter",)``, or else ``what``'s: ``"a list item"``) that opens
    on line ``index`` of ``lines``, maybe going on over the lines below more indented than
    ``indent``, or None and the index of the line after it. ``anchors`` (each name's one-line
    text) gains those it sets; an anchor's name is what ``anchor_name`` matches (the parser's
    dialect)."""
    return _FlowScan(lines, anchors, anchor_name).fault(index, indent, path, value, what)


class _FlowScan:
    def __init__(self, lines: list[str], anchors: dict[str, str | None], anchor_name: str) -> None:
        self.lines, self.anchors, self.anchor_name = lines, anchors, anchor_name
        self.ended = False  # (an item just ended: a quoted text, a collection in it)

    def fault(
        self, index: int, indent: int, path: tuple[str, ...], value: str, named: str
    ) -> tuple[str | None, int]:
        """:func:`flow_fault`."""
        what = "the front matter" if path == ("front matter",) else f"'{'.'.join(path)}'"
        what = named or what
        depth, node, quote, text, line_index = 0, True, "", value, index
        while True:
            fault, depth, node, quote, rest = self._line(text, depth, node, quote, what, line_index)
            if fault:
                return fault, index
            if rest is not None:  # (closed)
                if rest and not rest.startswith("#"):
                    close = "]" if value[0] == "[" else "}"
                    why = f"goes on after its closing {close!r} ({rest[:40]!r})"
                    return f"{what} in line {line_index + 2} {why}", index
                return None, line_index + 1
            line_index += 1
            following = self.lines[line_index] if line_index < len(self.lines) else ""
            if not following.strip() or len(following) - len(following.lstrip(" ")) <= indent:
                if named:
                    return (
                        f"the {value[0]!r} that opens {named} in line {index + 2} is never closed",
                        index,
                    )
                if path == ("front matter",):
                    return f"the {value[0]!r} that opens the front matter is never closed", index
                return f"the {value[0]!r} that opens '{'.'.join(path)}' is never closed", index
            text = following

    def _line(
        self, text: str, depth: int, node: bool, quote: str, what: str, line_index: int
    ) -> tuple[str | None, int, bool, str, str | None]:
        """One line of a flow collection (``what``), so deep in its brackets, ``node`` whether
        it opens at a value's start, ``quote`` the quote of a quoted text it opens inside (one
        going on from the line above; "" when none): the fault of an alias in it whose anchor
        is not set (js-yaml: "unidentified alias", libyaml: "found undefined alias"), the
        depth, ``node`` and ``quote`` at its end, and the text after the bracket that closes
        the collection (None when it goes on below). An anchor or alias opens a value (after
        ``[``, ``{``, ``,``, ``: ``): ``[a *d]`` is the text ``a *d``; a quoted text's
        characters are its own (``["a,`` then ``*b"]`` is ``["a, *b"]``). After a quoted text
        or a collection in it, only a ``,``, a ``:``, a closing bracket or a comment may come
        (``{a: [x] y}`` is a fault: js-yaml "missed comma between flow collection entries",
        libyaml "did not find expected ',' or '}'")."""
        index = 0
        if quote:
            if (end := _quote_end(text, 0, quote)) is None:
                return None, depth, node, quote, None  # (the quoted text goes on below)
            index, node, quote, self.ended = end, False, "", True
        while index < len(text):
            char = text[index]
            if char == "#" and (index == 0 or text[index - 1] in " \t"):
                break  # (a comment)
            if char in " \t":
                index += 1
                continue
            if self.ended and char not in ",:]}":
                why = f"goes on after an item with no ',' before {text[index:][:40]!r}"
                return f"{what} in line {line_index + 2} {why}", depth, node, "", None
            self.ended = False
            if node and char in "'\"":
                if (end := _quote_end(text, index + 1, char)) is None:
                    return None, depth, node, char, None  # (the quoted text goes on below)
                index, node, self.ended = end, False, True
                continue
            if node and char in "&*!":
                found = re.match(
                    self.anchor_name if char != "!" else r"[^\s,\[\]{}]*", text[index + 1 :]
                )
                name = found.group() if found else ""
                if char == "*" and name not in self.anchors:
                    why = f"refers to an anchor '&{name}' that nothing before it sets"
                    return f"{what} in line {line_index + 2} {why}", depth, node, "", None
                if char == "&":
                    self.anchors[name] = one_line_text(text[index + 1 + len(name) :], flow=True)
                index, node = index + 1 + len(name), char != "*"
                continue
            if char in "[{":
                depth, node = depth + 1, True
                if depth > MAX_FLOW_DEPTH:
                    why = f"nests lists or mappings deeper than {MAX_FLOW_DEPTH:,}, which proctor"
                    why += " does not read (js-yaml and PyYAML run out of stack)"
                    return f"{what} in line {line_index + 2} {why}", depth, node, "", None
            elif char in "]}":
                depth, node, self.ended = depth - 1, False, True
                if depth <= 0:
                    return None, depth, node, "", text[index + 1 :].strip()
            else:  # (a value opens after `,`, `: `, `? `)
                following = text[index + 1 : index + 2] in ("", " ", "\t")
                node = char == "," or (char in ":?" and following)
            index += 1
        return None, depth, node, "", None


def flow_key_end(text: str) -> int | None:
    """The index after the flow collection opening ``text`` (a line's rest: ``[a, b]: v``)
    when a ``:`` then a blank or the line's end follows it there, so that it is a mapping's key
    (``- [a, b]: v`` is a list item holding the mapping of the key ``[a, b]``, as js-yaml and
    libyaml read it); None when it is no such key (it goes on below, or no ``:`` follows)."""
    depth, node, index = 0, True, 0
    while index < len(text):
        char = text[index]
        if node and char in "'\"":
            if (end := _quote_end(text, index + 1, char)) is None:
                return None
            index, node = end, False
            continue
        if char == "#" and text[index - 1 : index] in (" ", "\t"):
            return None  # (a comment: the collection goes on below)
        if char in "[{":
            depth, node = depth + 1, True
        elif char in "]}":
            depth, node = depth - 1, False
            if depth <= 0:
                key = re.match(r"[ \t]*:(?:[ \t]|$)", text[index + 1 :])
                return index + 1 if key else None
        elif char == "," or (char in ":?" and text[index + 1 : index + 2] in ("", " ", "\t")):
            node = True
        elif char not in " \t":
            node = False
        index += 1
    return None


def _quote_end(text: str, start: int, quote: str) -> int | None:
    """The index after the quote ``quote`` that closes a quoted text in ``text`` from
    ``start`` (inside it), or None when it goes on below: ``\\"`` is no close in double
    quotes, ``''`` none in single quotes."""
    index = start
    while index < len(text):
        char = text[index]
        if quote == '"' and char == "\\":
            index += 2
            continue
        if char == quote:
            if quote == "'" and text[index + 1 : index + 2] == "'":
                index += 2
                continue
            return index + 1
        index += 1
    return None


MAX_FLOW_DEPTH = 500
"""Flow lists and mappings nested deeper than this in a front matter are a fault: proctor's
readers recurse a level at a time, and so do js-yaml's and PyYAML's, which run out of stack
(Node 20: a few thousand levels; PyYAML: ~1,000 levels, its recursion limit)."""
