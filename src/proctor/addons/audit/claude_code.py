"""What Claude Code (2.1.x) would load from a home and a project.

User level: ``~/.claude/settings.json`` (hooks, ``permissions``, ``enabledPlugins``),
``~/.claude/skills/<name>/SKILL.md``, plugins recorded in
``~/.claude/plugins/installed_plugins.json``, MCP servers in ``~/.claude.json`` (and in
``~/.claude/.claude.json``, where ``CLAUDE_CONFIG_DIR=~/.claude`` puts it, as proctor's trials
do), ``~/.claude/CLAUDE.md`` and ``~/.claude/rules/*.md``. Project level: ``.claude/settings.json``
and ``.claude/settings.local.json``, ``.claude/skills/``, ``.mcp.json``, the project's entry in
``~/.claude.json``, ``CLAUDE.md``, ``CLAUDE.local.md``, ``.claude/CLAUDE.md``, ``.claude/rules/``.
A session may add plugin folders (``--plugin-dir``) and MCP files (``--mcp-config``).
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from proctor.addons.audit.reading import (
    Reader,
    as_dict,
    foreign_files,
    hooks,
    instructions,
    mcp_servers,
    skills,
    strings,
)

DECISIONS = ("allow", "deny", "ask")
FOREIGN = {
    "config.toml": "Codex",
    "AGENTS.md": "Codex",
    "GEMINI.md": "Gemini CLI",
    "gemini-extension.json": "Gemini CLI",
}


def transport_of(entry: dict[str, Any]) -> tuple[str | None, str | None]:
    url = entry.get("url") if isinstance(entry.get("url"), str) else None
    kind = entry.get("type")
    if isinstance(kind, str):
        return kind, url
    if isinstance(entry.get("command"), str):
        return "stdio", url
    return ("http" if url else None), url


def audit_claude_code(reader: Reader) -> None:
    home, project = reader.home, reader.project
    config = home / ".claude"
    settings = [(config / "settings.json", "user")]
    if project is not None:
        settings += [
            (project / ".claude" / "settings.json", "project"),
            (project / ".claude" / "settings.local.json", "project"),
        ]
    enabled: dict[str, bool] = {}
    disabled_mcpjson: set[str] = set()
    for path, scope in settings:
        data = reader.json(path)
        if data is None:
            continue
        settings_file(reader, path, scope, data)
        for plugin, on in as_dict(data.get("enabledPlugins")).items():
            enabled[plugin] = on is True
        listed = reader.string_list(
            path, "disabledMcpjsonServers", data.get("disabledMcpjsonServers")
        )
        disabled_mcpjson |= set(listed or [])
    skills(reader, config / "skills", "user")
    installed_plugins(reader, config / "plugins" / "installed_plugins.json", enabled)
    for state in (home / ".claude.json", config / ".claude.json"):
        user_state(reader, state)
    memory(reader, config, "user", ("CLAUDE.md",))
    foreign_files(reader, config, FOREIGN, "user")
    if project is not None:
        skills(reader, project / ".claude" / "skills", "project")
        mcp_json = project / ".mcp.json"
        mcp_servers(
            reader,
            as_dict(reader.json(mcp_json)).get("mcpServers"),
            mcp_json,
            "project",
            transport_of,
            lambda name, _: (
                "disabled (disabledMcpjsonServers)" if name in disabled_mcpjson else None
            ),
        )
        memory(reader, project, "project", ("CLAUDE.md", "CLAUDE.local.md"))
        memory(reader, project / ".claude", "project", ("CLAUDE.md",))
        foreign_files(reader, project / ".claude", FOREIGN, "project")
    session_args(reader, reader.launch_args)


def settings_file(reader: Reader, path: Path, scope: str, data: dict[str, Any]) -> None:
    off = "hooks switched off (disableAllHooks)" if data.get("disableAllHooks") is True else None
    hooks(reader, data.get("hooks"), path, scope, off, agent="claude-code")
    for decision, value in as_dict(data.get("permissions")).items():
        if decision in DECISIONS:
            rules = reader.string_list(path, f"permissions.{decision}", value) or []
        else:  # a list under a key Claude Code does not read: a decoy, whatever it holds
            rules = strings(value)
        decoy = None if decision in DECISIONS else f"'{decision}' is not allow, deny or ask"
        for rule in rules:
            reader.add("permission", rule, path, scope=scope, decision=decision, decoy=decoy)
    # A common mistake: servers in settings.json, which Claude Code does not read for MCP.
    mcp_servers(
        reader,
        data.get("mcpServers"),
        path,
        scope,
        transport_of,
        lambda *_: "settings.json is not read for MCP servers (~/.claude.json, .mcp.json are)",
    )


def user_state(reader: Reader, path: Path) -> None:
    data = reader.json(path)
    if data is None:
        return
    mcp_servers(reader, data.get("mcpServers"), path, "user", transport_of)
    if reader.project is None:
        return
    projects = as_dict(data.get("projects"))
    keys = dict.fromkeys((str(reader.project), os.path.realpath(reader.project)))
    for key in keys:
        entry = as_dict(projects.get(key))
        servers = entry.get("mcpServers")
        if reader.shape(path, f"projects.{key}.mcpServers", servers, dict):
            mcp_servers(reader, servers, path, "project", transport_of)


def memory(reader: Reader, folder: Path, scope: str, names: Sequence[str]) -> None:
    for name in names:
        instructions(reader, folder / name, scope)
    rules = folder / ".claude" / "rules" if scope == "project" else folder / "rules"
    if reader.is_dir(rules):
        for rule in sorted(rules.rglob("*.md")):
            instructions(reader, rule, scope)


def installed_plugins(reader: Reader, path: Path, enabled: dict[str, bool]) -> None:
    data = reader.json(path)
    records = as_dict(data.get("plugins")) if data else {}
    for plugin_id, installs in records.items():
        first = installs[0] if isinstance(installs, list) and installs else installs
        install_path = as_dict(first).get("installPath")
        folder = Path(install_path) if isinstance(install_path, str) else None
        if plugin_id not in enabled:
            decoy: str | None = "installed but not enabled (enabledPlugins)"
        elif not enabled[plugin_id]:
            decoy = "disabled (enabledPlugins)"
        elif folder is None or not reader.is_dir(folder):
            decoy = "install path missing or outside the home"
        else:
            decoy = None
        reader.add("plugin", plugin_id, path, enabled=enabled.get(plugin_id, False), decoy=decoy)
        if decoy is None and folder is not None:
            plugin_contents(reader, folder, plugin_id.split("@")[0])
    for plugin_id in sorted(set(enabled) - set(records)):
        if enabled[plugin_id]:
            reader.add("plugin", plugin_id, path, enabled=True, decoy="enabled but not installed")


def plugin_contents(reader: Reader, folder: Path, name: str) -> None:
    """A plugin's skills (``plugin:skill``), ``hooks/hooks.json`` and MCP servers."""
    skills(reader, folder / "skills", "plugin", prefix=f"{name}:")
    hooks_file = folder / "hooks" / "hooks.json"
    table = as_dict(reader.json(hooks_file)).get("hooks")
    hooks(reader, table, hooks_file, "plugin", agent="claude-code")
    mcp_file = folder / ".mcp.json"
    data = as_dict(reader.json(mcp_file))
    table = data.get("mcpServers", data)
    mcp_servers(reader, table, mcp_file, "plugin", transport_of)
    manifest = folder / ".claude-plugin" / "plugin.json"
    inline = as_dict(reader.json(manifest)).get("mcpServers")
    mcp_servers(reader, inline, manifest, "plugin", transport_of)


def session_args(reader: Reader, args: Sequence[str]) -> None:
    """Plugin folders and MCP files named on the command line of the session."""
    for flag, value in itertools.pairwise(args):
        if flag == "--plugin-dir":
            folder = Path(value)
            manifest = as_dict(reader.json(folder / ".claude-plugin" / "plugin.json"))
            name = manifest.get("name") if isinstance(manifest.get("name"), str) else folder.name
            reader.add("plugin", str(name), folder, enabled=True)
            plugin_contents(reader, folder, str(name))
        elif flag == "--mcp-config":
            path = Path(value)
            servers = as_dict(reader.json(path)).get("mcpServers")
            mcp_servers(reader, servers, path, "user", transport_of)
