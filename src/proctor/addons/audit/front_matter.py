"""The front matter of a skill's ``SKILL.md`` or a subagent's file, and what each CLI makes of
a skill's (measured with the real CLIs: Codex's app server ``skills/list``, Gemini CLI's
``loadSkillFromFile``); a subagent's is ``subagent_front_matter``'s.

:func:`front_matter` gives the ``name`` and ``description`` of a leading ``---`` block: a
mapping's top-level keys, quoted or not, at its first key's indentation, or a flow mapping
(``{name: a, description: t}``); a value on the indented lines below an empty one is its
value (``yaml_mapping`` reads them). ``yaml_check`` says whether a CLI's YAML reader reads
the block. Per CLI:

- Claude Code 2.1.197 loads every ``SKILL.md``, front matter or not, named by its folder;
- Codex 0.171 loads a skill whose front matter gives a ``description`` and that serde_yaml
  reads, with its one repair (``yaml_check.CODEX``), named by its ``name`` (else its folder);
- Gemini CLI 0.61 loads a skill whose front matter js-yaml reads into a ``name`` and a
  ``description`` that are texts, else one whose ``name:`` and ``description:`` lines its
  line reader finds, named by that reading (``: \\ / < > * ? " |`` replaced by ``-``).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from proctor.addons.audit.yaml_check import CODEX, JS_YAML, block_of, yaml_fault
from proctor.addons.audit.yaml_mapping import entries_of
from proctor.addons.audit.yaml_scalar import JS_YAML_NOT_STRING, is_string, yaml_lines

_UNSAFE = re.compile(r'[:\\/<>*?"|]')

KEYS = ("name", "description")
"""The keys a skill or a subagent is known by."""
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
    return fields_of(lines[1:end])


def fields_of(lines: list[str]) -> dict[str, str]:
    """The non-empty ``name`` and ``description`` of the front matter ``lines``."""
    fields = {
        key: value if raw[:1] in ("'", '"') else value.strip()  # (`"\t"` is a tab)
        for key, (raw, value) in entries_of(lines).items()
        if key in KEYS
    }
    return {key: value for key, value in fields.items() if value}


def written_of(lines: list[str]) -> dict[str, str]:
    """Each top-level key's value as written in the front matter ``lines``."""
    return {key: raw for key, (raw, _) in entries_of(lines).items()}


def claude_code_skill(text: str, folder: str) -> tuple[str, str | None]:
    return folder, None


def not_yaml(cli: str, fault: str) -> str:
    """Why ``cli`` does not load a file whose front matter its YAML reader stops on."""
    return f"the front matter is not valid YAML: {fault}; {cli} does not load it"


def codex_skill(text: str, folder: str) -> tuple[str, str | None]:
    fields = front_matter(text, yaml_1_1=True)
    block = None if text.startswith("\ufeff") else block_of(text, yaml_1_1=True)
    if block is None or not fields.get("description", "").strip():  # (Codex trims it)
        return folder, "no front matter giving a description in SKILL.md; Codex does not load it"
    fault = yaml_fault(block, CODEX)
    written = written_of(block)
    for key in KEYS:  # (a flow mapping's values, a mapping below or an alias to one; a
        # block's are judged by yaml_fault, and one YAML stops on Codex repairs into its text:
        # `description: [draft] a thing`)
        raw = written.get(key, "")
        if not fault and raw[:1] in ("[", "{") and _is_collection(raw):
            fault = f"'{key}' is a list or mapping, not a string"
    if fault:
        why = not_yaml("Codex", fault)
        return folder, why.replace("front matter", "front matter of SKILL.md", 1)
    return fields.get("name", "").strip() or folder, None


def _is_collection(raw: str) -> bool:
    """Whether the value written ``raw`` (``[`` or ``{`` for one on the lines below) is a
    list or mapping YAML reads, not a value it stops on (``[draft] a thing``)."""
    return raw in ("[", "{") or yaml_fault([f"k: {raw}"], JS_YAML) is None


GEMINI_BLOCK = re.compile(r"^---\r?\n([\s\S]*?)\r?\n---")


def gemini_cli_skill(text: str, folder: str) -> tuple[str, str | None]:
    """Gemini CLI 0.61's ``loadSkillFromFile``: the block's YAML (js-yaml) when it reads and
    gives a string ``name`` and ``description``; else its line reader (``parseSimpleFrontmatter``):
    the last ``name:`` and ``description:`` lines at any indentation, their text as it is
    (quotes kept), a description going on over the indented lines below it."""
    match = GEMINI_BLOCK.match(text)  # (a byte-order mark before "---": no front matter)
    lines = yaml_lines(match.group(1)) if match else []
    raw = written_of(lines)
    if (
        match
        and yaml_fault(lines, JS_YAML) is None
        and all(is_string(raw.get(k), JS_YAML_NOT_STRING) for k in KEYS)
    ):
        return _UNSAFE.sub("-", fields_of(lines).get("name", "")), None
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
