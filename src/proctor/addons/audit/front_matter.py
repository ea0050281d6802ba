"""The front matter of a skill's ``SKILL.md`` or a subagent's file, and what each CLI makes of
it (measured with the real CLIs: Codex's app server ``skills/list``, Gemini CLI's
``loadSkillFromFile`` and ``parseAgentMarkdown``, Claude Code's ``system/init`` agents).

:func:`front_matter` gives the ``name:`` and ``description:`` lines of a leading ``---`` block
(a value on the indented lines below an empty one is its value); ``yaml_check`` says whether a
CLI's YAML reader reads the block. Per CLI:

- Claude Code 2.1.197 loads every ``SKILL.md``, front matter or not, named by its folder; a
  subagent when Bun's YAML parser, or its second try after its repairs (``yaml_check.CLAUDE``),
  gives a ``name`` and a ``description`` that are non-empty texts;
- Codex 0.171 loads a skill whose front matter gives a ``description`` and that serde_yaml
  reads, with its one repair (``yaml_check.CODEX``), named by its ``name`` (else its folder);
- Gemini CLI 0.61 loads a skill whose front matter js-yaml reads into a ``name`` and a
  ``description`` that are texts, else one whose ``name:`` and ``description:`` lines its
  line reader finds, named by that reading (``: \\ / < > * ? " |`` replaced by ``-``); a
  subagent only when js-yaml reads its front matter.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from proctor.addons.audit.yaml_check import CLAUDE, CODEX, JS_YAML, block_of, yaml_fault

_FIELD = re.compile(r"^(name|description)\s*:\s*(.*)$")
_UNSAFE = re.compile(r'[:\\/<>*?"|]')

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
    fields: dict[str, str] = {}
    block = lines[1:end]
    for index, line in enumerate(block):
        match = _FIELD.match(line)
        if not match:
            continue
        value = match.group(2).strip()
        if not value:  # `description:` with the text indented on the lines below
            indented = _leading_indented(block[index + 1 :])
            value = " ".join(part.strip() for part in indented if part.strip())
        value = value.strip("'\"").strip()
        if value:
            fields[match.group(1)] = value  # (a key given twice: the last)
    return fields


def _leading_indented(lines: list[str]) -> list[str]:
    taken = []
    for line in lines:
        if not line[:1].isspace():
            break
        taken.append(line)
    return taken


def claude_code_skill(text: str, folder: str) -> tuple[str, str | None]:
    return folder, None


def _not_yaml(cli: str, fault: str) -> str:
    return f"the front matter is not valid YAML: {fault}; {cli} does not load it"


def codex_skill(text: str, folder: str) -> tuple[str, str | None]:
    fields = front_matter(text)
    block = None if text.startswith("\ufeff") else block_of(text)
    if block is None or "description" not in fields:
        return folder, "no front matter giving a description in SKILL.md; Codex does not load it"
    if fault := yaml_fault(block, CODEX):
        return folder, _not_yaml("Codex", fault).replace("front matter", "front matter of SKILL.md")
    return fields.get("name", folder), None


_KEYS = ("name", "description")
_GEMINI_BLOCK = re.compile(r"^---\r?\n([\s\S]*?)\r?\n---")
_NOT_STRING = re.compile(
    r"^(?:~|null|Null|NULL|true|True|TRUE|false|False|FALSE|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)"
    r"|[-+]?(?:0b[01_]+|0x[0-9a-fA-F_]+|0o?[0-7_]+|[0-9][0-9_]*)"
    r"|[-+]?(?:[0-9][0-9_]*)?\.?[0-9_]*(?:[eE][-+]?[0-9]+)?|\d{4}-\d\d?-\d\d?(?:[Tt ].*)?)$"
)


def gemini_cli_skill(text: str, folder: str) -> tuple[str, str | None]:
    """Gemini CLI 0.61's ``loadSkillFromFile``: the block's YAML (js-yaml) when it reads and
    gives a string ``name`` and ``description``; else its line reader (``parseSimpleFrontmatter``):
    the last ``name:`` and ``description:`` lines at any indentation, their text as it is
    (quotes kept), a description going on over the indented lines below it."""
    match = _GEMINI_BLOCK.match(text)  # (a byte-order mark before "---": no front matter)
    lines = match.group(1).splitlines() if match else []
    name, description = _gemini_lines(lines)
    if match is None or name is None or description is None:
        why = "no front matter giving a name and a description in SKILL.md"
        return folder, f"{why}; Gemini CLI does not load it"
    raw = _raw_fields(lines)
    if yaml_fault(lines, JS_YAML) is None and all(_is_string(raw.get(k)) for k in _KEYS):
        name = front_matter(text).get("name", name)
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


def _raw_fields(lines: list[str]) -> dict[str, str]:
    """The unindented ``name`` and ``description`` values as written (the last of each); a
    value on the indented lines below an empty one is said ``|`` (a text)."""
    fields: dict[str, str] = {}
    for index, line in enumerate(lines):
        if match := _FIELD.match(line):
            value = match.group(2).strip()
            below = _leading_indented(lines[index + 1 :])
            if not value and any(part.strip() for part in below):
                first = next(part.strip() for part in below if part.strip())
                value = "[" if first.startswith("- ") else "|"
            fields[match.group(1)] = value
    return fields


def _is_string(raw: str | None) -> bool:
    """Whether YAML reads the value ``raw`` (as :func:`_raw_fields` gives it) as a string."""
    if not raw or raw.startswith("#"):
        return False
    if raw[0] in "'\"":
        return True
    return raw[0] not in "[{*" and not _NOT_STRING.match(raw.split(" #")[0].strip())


_CLAUDE_BLOCK = re.compile(r"^---\s*\n([\s\S]*?)---\s*\n?")


def claude_code_agent(text: str, stem: str) -> tuple[str, str | None]:
    """Claude Code 2.1's reading of a subagent's file: its front matter read by Bun's YAML
    parser, else once more with Claude Code's repairs (``yaml_check.CLAUDE``); it loads the
    subagent when that gives a ``name`` and a ``description`` that are non-empty strings, the
    name not starting with ``-``."""
    match = _CLAUDE_BLOCK.match(text)
    lines = match.group(1).splitlines() if match else []
    fields = front_matter(text) if match else {}
    name = fields.get("name") or stem
    if match and (fault := yaml_fault(lines, CLAUDE)):
        return name, _not_yaml("Claude Code", fault)
    if not match or not fields.get("name") or not fields.get("description"):
        return name, NO_AGENT_FRONT_MATTER
    raw = _raw_fields(lines)
    for key in _KEYS:
        if not _is_string(raw.get(key)) or not front_matter(text).get(key):
            return name, f"its '{key}' is not a text; Claude Code does not load it"
    if name.startswith("-"):
        return name, "its name starts with '-'; Claude Code does not load it"
    return name, None


def gemini_cli_agent(text: str, stem: str) -> tuple[str, str | None]:
    """Gemini CLI 0.61's ``parseAgentMarkdown``: js-yaml reads the front matter, and any fault
    stops it ("YAML frontmatter parsing failed")."""
    fields = front_matter(text)
    name = fields.get("name") or stem
    match = _GEMINI_BLOCK.match(text)
    if match and (fault := yaml_fault(match.group(1).splitlines(), JS_YAML)):
        return name, _not_yaml("Gemini CLI", fault)
    if not (fields.get("name") and fields.get("description")):
        return name, NO_AGENT_FRONT_MATTER
    return name, None


NO_AGENT_FRONT_MATTER = "no front matter giving a name and a description"
