"""What Codex CLI (0.171) would load from a home and a project.

``CODEX_HOME`` (default ``~/.codex``) holds ``config.toml`` (``[mcp_servers.<name>]`` with
``command`` and ``args`` or ``url``, ``enabled = false`` to switch one off; ``notify``, the
command run when a turn ends; a ``[hooks]`` table), ``hooks.json``
(``{"hooks": {event: [groups]}}``), ``AGENTS.md`` (or ``AGENTS.override.md``, which then
replaces it), ``prompts/*.md`` (custom prompts, the slash commands ``/prompts:<name>``). User
skills live in ``~/.agents/skills`` (current builds) and ``$CODEX_HOME/skills`` (older ones;
``.system`` holds Codex's own). In the project: ``AGENTS.md`` / ``AGENTS.override.md``,
``.agents/skills`` and ``.codex/skills``; in each folder above it up to the repository's root,
``AGENTS.md`` / ``AGENTS.override.md`` and ``.agents/skills`` (measured with Codex 0.171). A
folder's ``.codex/config.toml`` and ``.codex/hooks.json`` load only when the user trusts it; when
both declare hooks, Codex loads both and warns (a note)."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from proctor.addons.audit.definitions import commands
from proctor.addons.audit.front_matter import codex_skill
from proctor.addons.audit.hook_tables import hooks
from proctor.addons.audit.mcp_tables import mcp_servers
from proctor.addons.audit.reading import Reader, as_dict, strings
from proctor.addons.audit.repository import is_repository
from proctor.addons.audit.shared_components import (
    ancestors,
    foreign_files,
    from_above,
    instructions,
    skills,
)
from proctor.models.errors_format import json_kind

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
    from_config(reader, config, config_file, "user")
    trust_levels(reader, config, config_file)
    hooks_file = codex_home / "hooks.json"
    hooks_table = as_dict(reader.json(hooks_file)).get("hooks")
    hooks(reader, hooks_table, hooks_file, "user", agent="codex")
    hooks_twice(reader, (hooks_file, hooks_table), (config_file, config.get("hooks")))
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
        project_configs(reader, config, config_file)


def from_config(
    reader: Reader, config: dict[str, Any], file: Path, scope: str, off: str | None = None
) -> None:
    """What a ``config.toml`` adds: MCP servers, ``notify`` and ``[hooks]``; ``off`` is why
    none of it loads (a project Codex does not trust). A project's ``notify`` is ignored
    (Codex 0.171: "Ignored unsupported project-local config keys in …: notify")."""
    start = len(reader.components)
    mcp_servers(
        reader,
        config.get("mcp_servers"),
        file,
        scope,
        transport_of,
        disabled,
        field="mcp_servers",
        bad_args=(REFUSED, True),
    )
    notify = strings(config.get("notify"))
    if notify:
        ignored = "ignored in a project's config.toml" if scope == "project" else None
        add = partial(reader.add, "hook", "notify", file, scope=scope, event="notify")
        add(command=" ".join(notify), decoy=ignored)
    hooks(reader, config.get("hooks"), file, scope, agent="codex")
    for component in reader.components[start:]:
        component.decoy = component.decoy or off


def project_configs(reader: Reader, config: dict[str, Any], config_file: Path) -> None:
    """The project's ``.codex/config.toml``, and those of the folders above it up to the
    repository's root (by :func:`~proctor.addons.audit.repository.is_repository`: an empty
    ``.git`` folder makes none here, though it stops the ``AGENTS.md`` walk): Codex 0.171
    reads each only for a folder the user's config trusts (``[projects."<folder>"]
    trust_level = "trusted"``; a folder with no entry of its own goes by its repository
    root's). It lays each over the user's config, the nearer folder's last,
    table by table: a project's ``[mcp_servers.db]`` that says only ``enabled = false``
    switches off the user's ``db`` (measured with ``codex mcp list``). A server is listed, as
    it runs, at the nearest file that sets it; the entries it was laid over are shadowed."""
    if reader.project is None:
        return
    above = ancestors(reader, to_repository_root=True, is_root=is_repository)
    folders = [*reversed(above), reader.project]
    trust = as_dict(config.get("projects"))
    merged = dict(as_dict(config.get("mcp_servers")))
    last = dict.fromkeys(merged, config_file)
    for folder in folders:
        if folder / ".codex" == config_file.parent:
            continue  # (the project is the home: those are the user's files)
        where, level = trust_level(trust, folder, folders[0])
        off = None if level == "trusted" else untrusted(where, level, config_file)
        hooks_file = folder / ".codex" / "hooks.json"
        hooks_table = None
        if reader.is_file(hooks_file):
            hooks_table = as_dict(reader.json(hooks_file)).get("hooks")
            read_hooks = partial(project_hooks, reader, hooks_table, hooks_file, off)
            from_above(reader, folder, read_hooks) if folder != reader.project else read_hooks()
        file = folder / ".codex" / "config.toml"
        if not reader.is_file(file):
            continue
        data = reader.toml(file) or {}
        if off is None:  # (an untrusted folder's hooks load from neither)
            hooks_twice(reader, (hooks_file, hooks_table), (file, data.get("hooks")))
        table = data.get("mcp_servers")
        if off is None and isinstance(table, dict):
            for name, entry in table.items():
                merged[name] = laid_over(merged.get(name), entry)
                last[name] = file
            data = {**data, "mcp_servers": {name: merged[name] for name in table}}
        read = partial(from_config, reader, data, file, "project", off)
        from_above(reader, folder, read) if folder != reader.project else read()
    for c in reader.components:
        winner = last.get(c.name) if c.kind == "mcp" and c.decoy is None else None
        if winner is not None and Path(c.file) != winner:
            c.decoy = f"shadowed by the server of the same name in {winner}"


def hooks_twice(reader: Reader, *sources: tuple[Path, Any]) -> None:
    """A note when one folder's ``hooks.json`` and ``config.toml`` both declare hooks (an event
    with a matcher group; an empty one does not count): Codex 0.171 loads both and warns
    ("loading hooks from both …; prefer a single representation for this layer", measured
    with the app server's ``hooks/list``)."""
    if all(declares_hooks(table) for _, table in sources):
        (json_file, _), (toml_file, _) = sources
        reader.notes.append(
            f"{json_file} and {toml_file} both declare hooks: Codex loads both and warns "
            '"prefer a single representation for this layer"'
        )


def declares_hooks(table: Any) -> bool:
    """Whether a hooks table (event → matcher groups) has an event with a group."""
    return isinstance(table, dict) and any(isinstance(g, list) and g for g in table.values())


def project_hooks(reader: Reader, table: Any, file: Path, off: str | None) -> None:
    """A folder's ``.codex/hooks.json``: Codex 0.171 loads it by the same trust as the
    folder's ``config.toml`` (measured with the app server's ``hooks/list``)."""
    start = len(reader.components)
    hooks(reader, table, file, "project", agent="codex")
    for component in reader.components[start:]:
        component.decoy = component.decoy or off


def laid_over(base: Any, top: Any) -> Any:
    """``top`` laid over ``base`` as Codex merges its config layers: tables key by key, any
    other value replaced."""
    if not (isinstance(base, dict) and isinstance(top, dict)):
        return top
    return {**base, **{key: laid_over(base.get(key), value) for key, value in top.items()}}


def trust_level(trust: dict[str, Any], folder: Path, root: Path) -> tuple[Path, str | None]:
    """The ``trust_level`` the user's config gives ``folder`` (its own entry, else its
    repository root's) and the folder whose entry gives it; ``(folder, None)`` when none
    does."""
    for where in dict.fromkeys((folder, root)):
        entry = trust.get(str(where)) or trust.get(str(where.resolve()))
        level = as_dict(entry).get("trust_level")
        if isinstance(level, str):
            return where, level
    return folder, None


def trust_levels(reader: Reader, config: dict[str, Any], config_file: Path) -> None:
    """A ``trust_level`` other than ``trusted`` or ``untrusted``: Codex 0.171 refuses to start
    (``unknown variant `yes`, expected `trusted` or `untrusted```)."""
    projects = config.get("projects")
    if not reader.shape(config_file, "projects", projects, dict):
        return
    for where, entry in as_dict(projects).items():
        field = f'projects."{where}"'
        if not reader.shape(config_file, field, entry, dict):
            continue
        level = entry.get("trust_level")
        if level is not None and level not in ("trusted", "untrusted"):
            reader.problems.append(
                f"{config_file}: field '{field}.trust_level': expected \"trusted\" or "
                f'"untrusted", got {json_kind(level)}; {REFUSED}'
            )


def untrusted(folder: Path, level: str | None, config_file: Path) -> str:
    entry = f'[projects."{folder}"] trust_level'
    said = f'{entry} = "{level}"' if level else f"no {entry}"
    return f"project not trusted: {said} in {config_file}"


def agents_md(reader: Reader, folder: Path, scope: str) -> None:
    override = folder / "AGENTS.override.md"
    instructions(reader, override, scope)
    shadowed = "replaced by AGENTS.override.md" if reader.is_file(override) else None
    instructions(reader, folder / "AGENTS.md", scope, shadowed)
