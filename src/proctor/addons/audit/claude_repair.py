"""Claude Code's repair of a subagent's front matter, which it reads once more when Bun's YAML
parser stops on it (Claude Code 2.1.197's bundle: its front matter reader): each unindented
``key: value`` whose value holds a character YAML gives a meaning to is quoted, and the tabs
that open a line become spaces. ``subagent_front_matter`` asks ``yaml_check`` whether Bun
reads it then.
"""

from __future__ import annotations

import re

from proctor.addons.audit.yaml_check import BUN, yaml_fault

_CLAUDE_SPECIAL = re.compile(r"[{}\[\]*&#!|>%@`]|: ")
_JS_BLANKS = "\t\n\v\f\r \xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_CLAUDE_ENTRY = re.compile(rf"([a-zA-Z_-]+):[{_JS_BLANKS}]+([^\n\r\u2028\u2029]+)")
"""A line Claude Code's repair looks at: JavaScript's ``^([a-zA-Z_-]+):\\s+(.+)$`` (a line
holding a CR, as each of a CRLF file does, is none)."""


def claude_repaired(block: str) -> str:
    """The front matter ``block`` as Claude Code 2.1.197 repairs it for its second try, when
    Bun's parser stops on it (its bundle's front matter reader): its lines split at LF, each
    unquoted ``key: value`` at the line's start (a key of ``a-zA-Z_-``) whose value holds one
    of ``{}[]*&#!|>%@``` or ``": "`` is double-quoted, its backslashes and quotes escaped, all
    of it kept (``name: &a x`` is the name ``&a x``, ``name: x # c`` the name ``x # c``),
    save a value wholly quoted (``'…'``, ``"…"``) or a flow list Bun reads alone (``[a, b]``;
    not ``[a, *x]``, whose anchor it does not see, nor ``[a] [b]``); then the tabs opening a
    line are two spaces each."""
    repaired = []
    for line in block.split("\n"):
        entry = _CLAUDE_ENTRY.fullmatch(line)
        value = entry.group(2) if entry else ""
        if (
            entry
            and not (value[0] in "'\"" and value.endswith(value[0]))
            and not (value.startswith("[") and value.endswith("]") and _is_flow_list(value))
            and _CLAUDE_SPECIAL.search(value)
        ):
            escaped = value.replace("\\", "\\\\").replace('"', '\\"')
            line = f'{entry.group(1)}: "{escaped}"'
        repaired.append(line)
    return re.sub(
        r"(?:^|(?<=[\n\r\u2028\u2029]))\t+",
        lambda tabs: "  " * len(tabs.group()),
        "\n".join(repaired),
    )


def _is_flow_list(value: str) -> bool:
    """Whether Bun's parser reads ``value`` (``[…]``) alone as a list, as Claude Code's repair
    tries it, near enough: a flow collection with no fault (an alias in it has no anchor, text
    after its ``]`` is one)."""
    return yaml_fault([f"k: {value}"], BUN) is None
