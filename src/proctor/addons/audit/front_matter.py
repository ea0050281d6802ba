"""The front matter of a skill's ``SKILL.md`` or a subagent's file, and what each CLI makes of
a skill's.

Only the ``name:`` and ``description:`` lines of a leading ``---`` block are looked at (a value
on the lines below an empty one, indented, is its value, as YAML reads it); nothing is parsed
further. What the pinned CLIs do with a skill's front matter (measured with the real CLIs on
``~/.claude/skills``, ``~/.agents/skills`` and ``~/.gemini/skills``):

- Claude Code 2.1.197 loads every ``SKILL.md``, front matter or not, named by its folder;
- Codex 0.171 loads one whose front matter gives a ``description``, named by its ``name`` (else
  its folder); it leaves out one with no front matter or no ``description``, and one whose
  ``name`` or ``description`` YAML cannot read as a string: a quoted value whose quote is never
  closed or that goes on after it (``description: "Tidies``, ``description: "Tidy" files``), a
  list or mapping (``description: [a, b]``), a key given twice. It reads an unquoted value that
  is not valid YAML (``description: use it when: asked``, ``description: [wip``) as its text;
- Gemini CLI 0.61 loads one whose front matter gives both a ``name`` and a ``description``,
  named by that ``name`` (``: \\ / < > * ? " |`` replaced by ``-``); it leaves out the others,
  and one that gives ``name`` or ``description`` twice (it reads the other faults above as
  text).
"""

from __future__ import annotations

import re
from collections.abc import Callable

_FIELD = re.compile(r"^(name|description)\s*:\s*(.*)$")
_UNSAFE = re.compile(r'[:\\/<>*?"|]')

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


def yaml_fault(text: str) -> str | None:
    """Why YAML cannot read the front matter's ``name`` or ``description`` as a string (one
    phrase naming the field), or None: a key given twice, a quoted value not closed or with
    text after its closing quote, a flow list or mapping."""
    lines = text.lstrip("\ufeff").splitlines()
    if not lines or lines[0].strip() != "---":
        return None
    end = next((i for i, line in enumerate(lines[1:], 1) if line.strip() == "---"), None)
    if end is None:
        return None
    seen: set[str] = set()
    block = lines[1:end]
    for index, line in enumerate(block):
        match = _FIELD.match(line)
        if not match:
            continue
        key, value = match.group(1), match.group(2).strip()
        if key in seen:
            return f"'{key}' is given twice"
        seen.add(key)
        if value[:1] in ("'", '"'):
            rest = _after_quoted(value, block[index + 1 :])
            if rest is None:
                return f"the quote that opens '{key}' is never closed"
            if rest and not rest.startswith("#"):
                return f"'{key}' goes on after its closing quote ({rest[:40]!r})"
        elif (value[:1], value[-1:]) in (("[", "]"), ("{", "}")):
            kind = "list" if value[0] == "[" else "mapping"
            return f"'{key}' is a {kind}, not a string"
    return None


def _after_quoted(value: str, following: list[str]) -> str | None:
    """What follows the closing quote of the quoted scalar ``value`` opens (its text may go on
    over the indented lines of ``following``), stripped; None when it is never closed."""
    quote = value[0]
    lines = [value[1:], *(line for line in _leading_indented(following))]
    for line in lines:
        i = 0
        while i < len(line):
            char = line[i]
            if quote == '"' and char == "\\":
                i += 2
                continue
            if char == quote:
                if quote == "'" and line[i + 1 : i + 2] == "'":  # '' is a quote in the text
                    i += 2
                    continue
                return line[i + 1 :].strip()
            i += 1
    return None


def _leading_indented(lines: list[str]) -> list[str]:
    taken = []
    for line in lines:
        if not line[:1].isspace():
            break
        taken.append(line)
    return taken


def claude_code_skill(text: str, folder: str) -> tuple[str, str | None]:
    return folder, None


def codex_skill(text: str, folder: str) -> tuple[str, str | None]:
    fields = front_matter(text)
    if "description" not in fields:
        return folder, "no front matter giving a description in SKILL.md; Codex does not load it"
    if fault := yaml_fault(text):
        return (
            folder,
            f"the front matter of SKILL.md is not valid YAML: {fault}; Codex does not load it",
        )
    return fields.get("name", folder), None


def gemini_cli_skill(text: str, folder: str) -> tuple[str, str | None]:
    fields = front_matter(text)
    if "name" not in fields or "description" not in fields:
        why = "no front matter giving a name and a description in SKILL.md"
        return folder, f"{why}; Gemini CLI does not load it"
    if (fault := yaml_fault(text)) and fault.endswith("given twice"):
        why = f"the front matter of SKILL.md is not valid YAML: {fault}"
        return folder, f"{why}; Gemini CLI does not load it"
    return _UNSAFE.sub("-", fields["name"]), None
