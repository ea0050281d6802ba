"""What Codex CLI (0.171) would load from a home and a project.

``CODEX_HOME`` (default ``~/.codex``) holds ``config.toml`` (``[mcp_servers.<name>]`` with
``command`` and ``args`` or ``url``, ``enabled = false`` to switch one off; ``notify``, the
command run when a turn ends; a ``[hooks]`` table), ``hooks.json``
(``{"hooks": {event: [groups]}}``), ``AGENTS.md`` (or ``AGENTS.override.md``, which then
replaces it), ``prompts/*.md`` (custom prompts, the slash commands ``/prompts:<name>``). User
skills live in ``~/.agents/skills`` (current builds) and ``$CODEX_HOME/skills`` (older ones;
``.system`` holds Codex's own). In the project: ``AGENTS.md`` / ``AGENTS.override.md``,
``.agents/skills`` and ``.codex/skills``; in each folder above it up to the repository's root,
``AGENTS.md`` / ``AGENTS.override.md`` and ``.agents/skills`` (measured with Codex 0.171).
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from proctor.addons.audit.definitions import commands
from proctor.addons.audit.front_matter import codex_skill
from proctor.addons.audit.reading import (
    Reader,
    ancestors,
    as_dict,
    foreign_files,
    from_above,
    hooks,
    instructions,
    mcp_servers,
    skills,
    strings,
)

FOREIGN = {
    "settings.json": "Claude Code or Gemini CLI",
    "settings.local.json": "Claude Code",
    "CLAUDE.md": "Claude Code",
    "GEMINI.md": "Gemini CLI",
}

REFUSED = "Codex refuses to start with this config.toml"
"""Codex 0.171 reads config.toml strictly: an MCP server's ``args`` with a number in it stops
it at start-up (``invalid type: integer `8080`, expected a string in `mcp_servers.c.args```)."""


def transport_of(entry: dict[str, Any]) -> tuple[str | None, str | None]:
    url = entry.get("url") if isinstance(entry.get("url"), str) else None
    if isinstance(entry.get("command"), str):
        return "stdio", url
    return ("http" if url else None), url


def disabled(name: str, entry: dict[str, Any]) -> str | None:
    return "disabled (enabled = false)" if entry.get("enabled") is False else None


def audit_codex(reader: Reader) -> None:
    codex_home = reader.codex_home or reader.home / ".codex"
    config_file = codex_home / "config.toml"
    config = reader.toml(config_file) or {}
    mcp_servers(
        reader,
        config.get("mcp_servers"),
        config_file,
        "user",
        transport_of,
        disabled,
        field="mcp_servers",
        bad_args=(REFUSED, True),
    )
    notify = strings(config.get("notify"))
    if notify:
        reader.add("hook", "notify", config_file, event="notify", command=" ".join(notify))
    hooks(reader, config.get("hooks"), config_file, "user", agent="codex")
    hooks_file = codex_home / "hooks.json"
    hooks(reader, as_dict(reader.json(hooks_file)).get("hooks"), hooks_file, "user", agent="codex")
    skills(reader, reader.home / ".agents" / "skills", "user", rule=codex_skill)
    skills(reader, codex_home / "skills", "user", rule=codex_skill)
    commands(reader, codex_home / "prompts", "user", ".md", prefix="prompts:", nested=False)
    agents_md(reader, codex_home, "user")
    foreign_files(reader, codex_home, FOREIGN, "user")
    if reader.project is not None:
        agents_md(reader, reader.project, "project")
        for folder in ancestors(reader, to_repository_root=True):  # up to the .git folder
            from_above(reader, folder, partial(agents_md, reader, folder, "project"))
        skills(reader, reader.project / ".agents" / "skills", "project", rule=codex_skill)
        skills(reader, reader.project / ".codex" / "skills", "project", rule=codex_skill)
        for folder in ancestors(reader, to_repository_root=True):  # up to the .git folder
            skills_above = partial(
                skills, reader, folder / ".agents" / "skills", "project", rule=codex_skill
            )
            from_above(reader, folder, skills_above)
        foreign_files(reader, reader.project / ".codex", FOREIGN, "project")


def agents_md(reader: Reader, folder: Path, scope: str) -> None:
    override = folder / "AGENTS.override.md"
    instructions(reader, override, scope)
    shadowed = "replaced by AGENTS.override.md" if reader.is_file(override) else None
    instructions(reader, folder / "AGENTS.md", scope, shadowed)
