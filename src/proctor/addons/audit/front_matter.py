"""The front matter of a skill's ``SKILL.md`` or a subagent's file, and what each CLI makes of
it (measured with the real CLIs: Codex's app server ``skills/list``, Gemini CLI's
``loadSkillFromFile`` and ``parseAgentMarkdown``, Claude Code's ``system/init`` agents).

:func:`front_matter` gives the ``name`` and ``description`` of a leading ``---`` block: a
mapping's top-level keys, quoted or not, at its first key's indentation, or a flow mapping
(``{name: a, description: t}``); a value on the indented lines below an empty one is its
value. ``yaml_check`` says whether a CLI's YAML reader reads the block. Per CLI:

- Claude Code 2.1.197 loads every ``SKILL.md``, front matter or not, named by its folder; a
  subagent (its front matter ending at the first ``---``, even inside a line) when Bun's YAML
  parser, or its second try after its repairs (``yaml_check.CLAUDE``), gives a ``name`` and
  a ``description`` that are non-empty texts;
- Codex 0.171 loads a skill whose front matter gives a ``description`` and that serde_yaml
  reads, with its one repair (``yaml_check.CODEX``), named by its ``name`` (else its folder);
- Gemini CLI 0.61 loads a skill whose front matter js-yaml reads into a ``name`` and a
  ``description`` that are texts, else one whose ``name:`` and ``description:`` lines its
  line reader finds, named by that reading (``: \\ / < > * ? " |`` replaced by ``-``); a
  subagent only when js-yaml reads its front matter and its schema takes it (known keys only,
  a ``name`` of ``a-z0-9-_``).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from proctor.addons.audit.yaml_check import CLAUDE, CODEX, JS_YAML, block_of, yaml_fault

_UNSAFE = re.compile(r'[:\\/<>*?"|]')

_KEYS = ("name", "description")
AgentRule = Callable[[str, str], tuple[str, str | None]]
"""A CLI's reading of a subagent's file: (its text, its file's stem) → (its name, why it is
not loaded or None)."""
SkillRule = Callable[[str, str], tuple[str, str | None]]
"""A CLI's reading of a skill: (its ``SKILL.md`` text, its folder's name) → (the name it is
loaded under, why it is not loaded or None)."""


def front_matter(text: str) -> dict[str, str]:
    """The non-empty ``name`` and ``description`` of a leading ``---`` block."""
    lines = text.lstrip("\ufeff").splitlines()
    if not lines or lines[0].strip() != "---":
        return {}
    try:
        end = next(i for i, line in enumerate(lines[1:], 1) if line.strip() == "---")
    except StopIteration:
        return {}
    return _values(lines[1:end])


_KEY = (
    r"""(?:"(?P<dq>(?:[^"\\]|\\.)*)"|'(?P<sq>(?:[^']|'')*)'|(?P<plain>[^\s#'"{}\[\],:][^:#]*?))"""
)
_ENTRY = re.compile(rf"^{_KEY}\s*:(?:\s+(?P<value>.*)|$)")


def _entries(lines: list[str]) -> dict[str, tuple[str, str]]:
    """The top-level keys of the front matter ``lines``: for each, its
    value as written and its text (the last of each). The mapping may be a block at any
    indentation (its first key's), its keys quoted or not, or a flow mapping (``{name: a,
    description: t}``); a block value on the indented lines below an empty one is said ``|``
    (``[`` when they are a list)."""
    content = [line for line in lines if line.strip() and not line.lstrip().startswith("#")]
    if not content:
        return {}
    if content[0].lstrip().startswith("{"):
        return _flow_entries(" ".join(line.strip() for line in content))
    base = len(content[0]) - len(content[0].lstrip(" "))
    entries: dict[str, tuple[str, str]] = {}
    for index, line in enumerate(lines):
        if len(line) - len(line.lstrip(" ")) != base or not (match := _ENTRY.match(line[base:])):
            continue
        key = _key(match)
        raw = (match.group("value") or "").strip()
        value = raw
        if not raw:  # `description:` with the text indented on the lines below
            below = [part for part in _indented(lines[index + 1 :], base) if _text(part)]
            value = " ".join(part.strip() for part in below)
            if below:
                raw = "[" if below[0].strip().startswith("- ") else "|"
        elif raw[0] in "|>":  # a block scalar: its text is the indented lines below
            entries[key] = (raw, _block(raw, _indented(lines[index + 1 :], base)))
            continue
        entries[key] = (raw, value.strip("'\"").strip())
    return entries


def _key(match: re.Match[str]) -> str:
    if match.group("dq") is not None:
        return match.group("dq")
    if match.group("sq") is not None:
        return match.group("sq").replace("''", "'")
    return match.group("plain").strip()


def _flow_entries(text: str) -> dict[str, tuple[str, str]]:
    """The keys of a flow mapping ``{key: value, ...}``."""
    inner = text.strip()[1:]
    inner = inner[: inner.rfind("}")] if "}" in inner else inner
    items = re.findall(r"""(?:"(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[\[{][^\]}]*[\]}]|[^,])+""", inner)
    entries: dict[str, tuple[str, str]] = {}
    for item in items:
        if match := _ENTRY.match(item.strip()):
            raw = (match.group("value") or "").strip()
            entries[_key(match)] = (raw, raw.strip("'\"").strip())
    return entries


def _values(lines: list[str]) -> dict[str, str]:
    fields = {key: value.strip() for key, (_, value) in _entries(lines).items() if key in _KEYS}
    return {key: value for key, value in fields.items() if value}


def _written(lines: list[str]) -> dict[str, str]:
    return {key: written for key, (written, _) in _entries(lines).items()}


def _text(line: str) -> bool:
    """Whether ``line`` holds more than blanks or a comment."""
    return bool(line.strip()) and not line.lstrip().startswith("#")


def _indented(lines: list[str], base: int = 0) -> list[str]:
    """The lines below a key that are more indented than it (a comment line between them at
    any indentation: ``description:``, ``# c``, ``  text`` gives ``text``)."""
    taken = []
    for line in lines:
        if _text(line) and len(line) - len(line.lstrip(" \t")) <= base:
            break
        taken.append(line)
    while taken and not _text(taken[-1]):
        taken.pop()  # (comments and blank lines after the value are not its own)
    return taken


def _block(header: str, lines: list[str]) -> str:
    """The text of a block scalar (``|`` literal, ``>`` folded; ``-`` strip, ``+`` keep) whose
    header is ``header`` and whose lines are ``lines``, as YAML reads it; "" when it has none."""
    content = [line for line in lines if line.strip()]
    if not content:
        return ""
    indent = len(content[0]) - len(content[0].lstrip(" "))
    cut = [line[indent:] if line.strip() else "" for line in lines]
    if header[0] == "|":
        text = "\n".join(cut)
    else:  # folded: lines join with a space, a blank line is a line break
        text, previous = "", ""
        for line in cut:
            if not line:
                text += "\n"
            elif text and not text.endswith("\n") and not previous.startswith(" "):
                text += " " + line
            else:
                text += ("\n" if text and not text.endswith("\n") else "") + line
            previous = line
    indicators = header.split("#")[0]
    if "-" in indicators:
        return text.rstrip("\n")
    return text + "\n" if "+" in indicators else text.rstrip("\n") + "\n"


def claude_code_skill(text: str, folder: str) -> tuple[str, str | None]:
    return folder, None


def _not_yaml(cli: str, fault: str) -> str:
    return f"the front matter is not valid YAML: {fault}; {cli} does not load it"


def codex_skill(text: str, folder: str) -> tuple[str, str | None]:
    fields = front_matter(text)
    block = None if text.startswith("\ufeff") else block_of(text)
    if block is None or "description" not in fields:
        return folder, "no front matter giving a description in SKILL.md; Codex does not load it"
    fault = yaml_fault(block, CODEX)
    written = _written(block)
    for key in _KEYS:  # (a flow mapping's values; a block's are judged by yaml_fault)
        if not fault and written.get(key, "")[:1] in ("[", "{"):
            fault = f"'{key}' is a list or mapping, not a string"
    if fault:
        why = _not_yaml("Codex", fault)
        return folder, why.replace("front matter", "front matter of SKILL.md", 1)
    return fields.get("name", folder), None


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
    lines = match.group(1).splitlines() if match else []
    raw = _written(lines)
    if (
        match
        and yaml_fault(lines, JS_YAML) is None
        and all(_is_string(raw.get(k), _JS_YAML_NOT_STRING) for k in _KEYS)
    ):
        return _UNSAFE.sub("-", _values(lines).get("name", "")), None
    name, description = _gemini_lines(lines)
    if match is None or name is None or description is None:
        why = "no front matter giving a name and a description in SKILL.md"
        return folder, f"{why}; Gemini CLI does not load it"
    return _UNSAFE.sub("-", name), None


def _gemini_lines(lines: list[str]) -> tuple[str | None, str | None]:
    name = description = None
    index = 0
    while index < len(lines):
        if match := re.match(r"^\s*name:\s*(.*)$", lines[index]):
            name = match.group(1).strip()
        elif match := re.match(r"^\s*description:\s*(.*)$", lines[index]):
            parts = [match.group(1).strip()]
            while index + 1 < len(lines) and re.match(r"^[ \t]+\S", lines[index + 1]):
                parts.append(lines[index + 1].strip())
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
    Bun's YAML parser, else once more with Claude Code's repairs (``yaml_check.CLAUDE``); it
    loads the subagent when that gives a ``name`` and a ``description`` that are non-empty
    strings, the name not starting with ``-``."""
    match = _CLAUDE_BLOCK.match(text)
    block = match.group(1) if match else ""
    lines = block.splitlines()
    fields = _values(lines)
    name = fields.get("name") or stem
    if match and (fault := yaml_fault(lines, CLAUDE)):
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


_GEMINI_LOCAL_KEYS = frozenset(
    {"kind", "name", "description", "display_name", "tools", "mcp_servers", "model"}
    | {"temperature", "max_turns", "timeout_mins"}
)
_GEMINI_REMOTE_KEYS = frozenset(
    ("kind", "name", "description", "display_name", "auth", "agent_card_url", "agent_card_json")
)
_GEMINI_SLUG = re.compile(r"^[a-z0-9_-]+$")


def gemini_cli_agent(text: str, stem: str) -> tuple[str, str | None]:
    """Gemini CLI 0.61's ``parseAgentMarkdown``: js-yaml reads the front matter, and any fault
    stops it ("YAML frontmatter parsing failed"); then its schema (``localAgentSchema``, or
    ``remoteAgent*Schema`` for ``kind: remote`` or an ``agent_card_url``/``agent_card_json``)
    refuses a key it does not know and a ``name`` that is not a slug (``^[a-z0-9-_]+$``)."""
    match = _GEMINI_BLOCK.match(text)
    lines = match.group(1).splitlines() if match else []
    fields = _values(lines)
    name = fields.get("name") or stem
    if match and (fault := yaml_fault(lines, JS_YAML)):
        return name, _not_yaml("Gemini CLI", fault)
    written = _written(lines)
    remote = written.get("kind", "").strip("'\"") == "remote" or bool(
        {"agent_card_url", "agent_card_json"} & set(written)
    )
    if not fields.get("name") or not (fields.get("description") or remote):
        return name, NO_AGENT_FRONT_MATTER
    if not all(
        _is_string(written.get(key), _JS_YAML_NOT_STRING) for key in _KEYS if key in written
    ):
        key = next(
            key
            for key in _KEYS
            if key in written and not _is_string(written[key], _JS_YAML_NOT_STRING)
        )
        return name, f"its '{key}' is not a text; Gemini CLI does not load it"
    if unknown := sorted(set(written) - (_GEMINI_REMOTE_KEYS if remote else _GEMINI_LOCAL_KEYS)):
        keys = ", ".join(f"'{key}'" for key in unknown)
        return (
            name,
            f"its front matter has keys Gemini CLI does not know ({keys}); it does not load it",
        )
    if not _GEMINI_SLUG.match(name):
        why = "its name is not lowercase letters, digits, '-' and '_'"
        return name, f"{why}; Gemini CLI does not load it"
    return name, None


NO_AGENT_FRONT_MATTER = "no front matter giving a name and a description"
