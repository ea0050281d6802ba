"""Slash commands and subagents: one file each in a folder the agent reads.

Claude Code: ``commands/**/*.md`` and ``agents/**/*.md`` in ``~/.claude``, the project's
``.claude`` and each enabled plugin (a plugin's are named ``plugin:name``). Gemini CLI:
``commands/**/*.toml`` (a sub-folder makes a namespace: ``gcs/sync.toml`` is ``/gcs:sync``) and
``agents/*.md`` in ``~/.gemini``, the project's ``.gemini`` and each enabled extension. Codex:
its custom prompts, ``$CODEX_HOME/prompts/*.md`` (``/prompts:name``).

A subagent is defined by its front matter: a file without one that gives a ``name`` and a
``description`` is not loaded (both CLIs' documentation), and is listed as a decoy, as is one
whose front matter the CLI's YAML reader cannot read (``subagent_front_matter.py``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from proctor.addons.audit import toml_05
from proctor.addons.audit.reading import Reader, Scope
from proctor.addons.audit.subagent_front_matter import AgentsRule, gemini_cli_agents

MAX_FILES = 2000
"""Files listed per folder at most: a folder of dotfiles linked in is not walked whole."""


def _files(reader: Reader, root: Path, suffix: str, *, nested: bool) -> list[Path]:
    if not reader.is_dir(root):
        reader.file_in_the_way(root)
        return []
    try:
        found = root.rglob(f"*{suffix}") if nested else root.glob(f"*{suffix}")
        files = []
        for path in found:
            relative = path.relative_to(root)
            if any(part.startswith(".") for part in relative.parts):
                continue
            if reader.is_file(path):
                files.append(path)
            if len(files) >= MAX_FILES:
                reader.problems.append(f"{root}: more than {MAX_FILES} files; the rest not listed")
                break
    except OSError as exc:
        reader.problems.append(f"{root}: cannot be listed ({exc.strerror or exc})")
        return []
    return sorted(files)


def commands(
    reader: Reader,
    root: Path,
    scope: Scope,
    suffix: str,
    *,
    prefix: str = "",
    namespaced: bool = True,
    nested: bool = True,
    rule: Callable[[str], str | None] | None = None,
    rename: Callable[[str], str] = str,
    replace: bool = False,
) -> None:
    """One slash command per file; ``namespaced``: a sub-folder's name joins the command's
    with ``:`` (Gemini CLI, each part as it names it), else the command is named by its file
    alone (Claude Code); ``rename``: the CLI's name for a part of the path; ``rule``: why the
    CLI does not load a file of that text, or None (a TOML file nested deeper than proctor
    reads, ``toml_05.TooDeep``, is listed as loaded, with a note); ``replace``: bytes that
    are not UTF-8 read as U+FFFD (Gemini CLI reads the file with Node's
    ``fs.readFile(path, "utf-8")``)."""
    for path in _files(reader, root, suffix, nested=nested):
        parts = path.relative_to(root).with_suffix("").parts
        name = ":".join(map(rename, parts)) if namespaced else parts[-1]
        try:
            decoy = rule(reader.text(path, replace=replace) or "") if rule else None
        except toml_05.TooDeep as exc:  # (Gemini CLI's reader reads any depth)
            why = "proctor does not read it, so it is listed as loaded, its prompt not checked"
            reader.notes.append(f"{path}: {exc}; {why}")
            decoy = None
        reader.add("command", prefix + name, path, scope=scope, decoy=decoy)


def gemini_cli_command_part(part: str) -> str:
    """Gemini CLI 0.61's name for a part of a command's path: ``[^a-zA-Z0-9_.-]`` made ``_``,
    cut to 47 characters and ``...`` when longer than 50. Its pattern goes over UTF-16 units:
    a character beyond U+FFFF (an emoji) is two units, made ``__``."""
    part = re.sub(r"[^a-zA-Z0-9_\-.]", lambda m: "__" if ord(m[0]) > 0xFFFF else "_", part)
    return part[:47] + "..." if len(part) > 50 else part


def gemini_cli_command(text: str) -> str | None:
    """Why Gemini CLI 0.61's ``FileCommandLoader`` skips a command file of ``text``: it is not
    valid TOML as its reader (TOML 0.5, ``toml_05``) reads it, or its ``prompt`` is not a
    string, or its ``description`` (optional) not one."""
    try:
        table = toml_05.loads(text)
    except toml_05.TomlFault as exc:
        return f"the file is not valid TOML: {exc}; Gemini CLI does not load it"
    if not isinstance(table.get("prompt"), str):
        return "the file gives no 'prompt' text; Gemini CLI does not load it"
    if not isinstance(table.get("description", ""), str):
        return "its 'description' is not a text; Gemini CLI does not load it"
    return None


def subagents(
    reader: Reader,
    root: Path,
    scope: Scope,
    *,
    prefix: str = "",
    nested: bool = True,
    off: str | None = None,
    rule: AgentsRule = gemini_cli_agents,
) -> None:
    """The subagents of each ``.md`` file (one, or Gemini CLI's list of remote agents), named
    by their front matter's ``name`` (else the file); ``rule`` is the CLI's reading of its
    front matter (``subagent_front_matter.py``); ``off`` is the reason every one is a decoy
    (subagents switched off)."""
    for path in _files(reader, root, ".md", nested=nested):
        for name, decoy in rule(reader.text(path) or "", path.stem):
            reader.add("subagent", prefix + name, path, scope=scope, decoy=off or decoy)
