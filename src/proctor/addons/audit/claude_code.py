"""What Claude Code (2.1.x) would load from a home and a project.

User level: ``~/.claude/settings.json`` (hooks, ``permissions``, ``enabledPlugins``),
``~/.claude/skills/<name>/SKILL.md``, slash commands and subagents (``~/.claude/commands``,
``~/.claude/agents``), plugins recorded in
``~/.claude/plugins/installed_plugins.json``, MCP servers in ``~/.claude.json``,
``~/.claude/CLAUDE.md`` and ``~/.claude/rules/*.md``. ``CLAUDE_CONFIG_DIR`` (proctor's trials set
it to ``~/.claude``) takes the place of ``~/.claude`` and holds the ``.claude.json`` read instead
of ``~/.claude.json``. Project level: ``.claude/settings.json``
and ``.claude/settings.local.json``, ``.claude/skills/``, ``.mcp.json``, the project's entry in
``~/.claude.json``, ``CLAUDE.md``, ``CLAUDE.local.md``, ``.claude/CLAUDE.md``, ``.claude/rules/``.
Above the project (2.1.197, measured): ``.mcp.json`` and the instruction files of every folder
up to the home (for a project outside it, up to the filesystem's root, not it);
``.claude/skills``, ``commands`` and ``agents`` of those up to the repository's root (of every
one outside a repository); settings files are the project's alone.
A session may add plugin folders (``--plugin-dir``) and MCP files (``--mcp-config``).
"""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from proctor.addons.audit.definitions import commands, subagents
from proctor.addons.audit.hook_tables import hooks
from proctor.addons.audit.mcp_tables import mcp_servers, shadow_same_names
from proctor.addons.audit.reading import LOOP, Reader, as_dict, js_json, loops, strings
from proctor.addons.audit.repository import repository_root
from proctor.addons.audit.shared_components import (
    ancestors,
    foreign_files,
    from_above,
    instructions,
    skills,
)
from proctor.addons.audit.subagent_front_matter import claude_code_agents
from proctor.addons.hooks.claude_manifest import manifest_refusal
from proctor.addons.hooks.claude_schema import (
    claude_refusal,
    hooks_file_refusal,
)
from proctor.addons.hooks.sources import CLAUDE_SKIPS
from proctor.models.audit import AuditComponent
from proctor.models.errors_format import json_kind

DECISIONS = ("allow", "deny", "ask")
PERMISSION_SETTINGS = (
    "additionalDirectories",
    "defaultMode",
    "disableBypassPermissionsMode",
    "disableAutoMode",
)
"""Keys of ``permissions`` that hold settings rather than rules: known, so never decoys."""
HOOKS_OFF = "hooks switched off (disableAllHooks)"
FOREIGN = {
    "config.toml": "Codex",
    "AGENTS.md": "Codex",
    "GEMINI.md": "Gemini CLI",
    "gemini-extension.json": "Gemini CLI",
}


URL_NEEDS_TYPE = "a url needs a type"
SKIPPED = ("Claude Code skips the server", True)
"""Claude Code 2.1 on an MCP entry whose ``args`` hold a number (``claude mcp list``: "Skipped
- invalid MCP server config for "m": args.1: expected string, received number")."""


def transport_of(entry: dict[str, Any]) -> tuple[str | None, str | None]:
    url = entry.get("url") if isinstance(entry.get("url"), str) else None
    kind = entry.get("type")
    if isinstance(kind, str):
        return kind, url
    if isinstance(entry.get("command"), str):
        return "stdio", url
    return None, url  # a url without a type: Claude Code refuses the entry


def servers(
    reader: Reader,
    table: Any,
    file: Path,
    scope: str,
    decoy_of: Callable[[str, dict[str, Any]], str | None] = lambda name, entry: None,
    field: str = "mcpServers",
) -> None:
    """MCP servers as Claude Code reads them: an entry with a ``url`` and neither a ``type``
    nor a ``command`` is refused (it guesses no transport)."""

    def decoy(name: str, entry: dict[str, Any]) -> str | None:
        url, command = entry.get("url"), entry.get("command")
        if isinstance(url, str) and url and "type" not in entry and not isinstance(command, str):
            return URL_NEEDS_TYPE
        return decoy_of(name, entry)

    mcp_servers(reader, table, file, scope, transport_of, decoy, field=field, bad_args=SKIPPED)


def audit_claude_code(reader: Reader) -> None:
    home, project = reader.home, reader.project
    config = reader.claude_config_dir or home / ".claude"
    settings = [(config / "settings.json", "user")]
    if project is not None:
        settings += [
            (project / ".claude" / "settings.json", "project"),
            (project / ".claude" / "settings.local.json", "project"),
        ]
    enabled: dict[str, bool] = {}
    disabled_mcpjson: set[str] = set()
    hooks_off = False
    for path, scope in settings:
        data = reader.json(path)
        if data is None:
            continue
        refusal = claude_refusal(data.get("hooks"))
        if refusal is not None:  # none of the file is in effect: its plugins are not enabled
            skipped_settings_file(reader, path, scope, data, refusal)
            continue
        settings_file(reader, path, scope, data)
        if isinstance(data.get("disableAllHooks"), bool):  # the most specific file decides
            hooks_off = data["disableAllHooks"]
        for plugin, on in as_dict(data.get("enabledPlugins")).items():
            enabled[plugin] = on is True
        listed = reader.string_list(
            path, "disabledMcpjsonServers", data.get("disabledMcpjsonServers")
        )
        disabled_mcpjson |= set(listed or [])
    skills(reader, config / "skills", "user")
    commands(reader, config / "commands", "user", ".md", namespaced=False)
    subagents(reader, config / "agents", "user", rule=claude_code_agents)
    installed_plugins(reader, config / "plugins" / "installed_plugins.json", enabled)
    state = config / ".claude.json" if reader.claude_config_dir else home / ".claude.json"
    switched_off = user_state(reader, state)
    memory(reader, config, "user", ("CLAUDE.md",))
    foreign_files(reader, config, FOREIGN, "user")
    if project is not None:
        definitions(reader, project)
        # Skills, commands and subagents of the folders above, up to the repository's root.
        up_to_root = ancestors(reader, to_repository_root=True, outside_one_every=True)
        for folder in holding(up_to_root):
            from_above(reader, folder, partial(definitions, reader, folder))
        # (up to the filesystem's root, not it: Claude Code's walk stops below it)
        every_above = holding(
            f for f in ancestors(reader, to_repository_root=False) if f.parent != f
        )
        mcp_json(reader, project, disabled_mcpjson)
        for folder in every_above:  # .mcp.json: every folder above, the nearest first
            from_above(reader, folder, partial(mcp_json, reader, folder, disabled_mcpjson))
        project_memory(reader, project)
        for folder in every_above:  # instruction files: every folder above
            from_above(reader, folder, partial(project_memory, reader, folder))
        foreign_files(reader, project / ".claude", FOREIGN, "project")
    session_args(reader, reader.launch_args)
    switch_off_servers(reader, switched_off, state)
    shadow_same_names(reader, _mcp_rank)
    if hooks_off:
        switch_off_hooks(reader)


def _mcp_rank(server: AuditComponent) -> int | None:
    """Which of Claude Code's servers of one name wins: the project's own entry in
    ``~/.claude.json`` (local scope), then ``.mcp.json`` (project scope), then the user's."""
    if server.file.endswith(".claude.json"):
        return 0 if server.scope == "project" else 2
    return 1 if server.file.endswith(".mcp.json") else None


def mcp_json(reader: Reader, folder: Path, disabled: set[str]) -> None:
    """The servers of a project folder's ``.mcp.json``; ``disabled``: those the settings'
    ``disabledMcpjsonServers`` name."""
    path = folder / ".mcp.json"
    servers(
        reader,
        as_dict(reader.json(path)).get("mcpServers"),
        path,
        "project",
        lambda name, _: "disabled (disabledMcpjsonServers)" if name in disabled else None,
    )


def definitions(reader: Reader, folder: Path) -> None:
    """The skills, slash commands and subagents of a project folder's ``.claude``."""
    skills(reader, folder / ".claude" / "skills", "project")
    commands(reader, folder / ".claude" / "commands", "project", ".md", namespaced=False)
    subagents(reader, folder / ".claude" / "agents", "project", rule=claude_code_agents)


def project_memory(reader: Reader, folder: Path) -> None:
    """A project folder's instruction files: ``CLAUDE.md``, ``CLAUDE.local.md``,
    ``.claude/rules/**/*.md`` and ``.claude/CLAUDE.md``."""
    memory(reader, folder, "project", ("CLAUDE.md", "CLAUDE.local.md"))
    instructions(reader, folder / ".claude" / "CLAUDE.md", "project")


def switch_off_hooks(reader: Reader) -> None:
    """``disableAllHooks``, merged over the settings files like any setting, turns off every
    hook, whichever file (user, project, plugin) declares it."""
    for component in reader.components:
        if component.kind == "hook" and component.decoy is None:
            component.decoy = HOOKS_OFF


SETTINGS_SKIPPED = "Claude Code skips this whole settings file"
"""What Claude Code 2.1.197 does with a settings file its schema refuses ("Files with errors
are skipped entirely, not just the invalid settings"): none of its hooks, permissions,
enabled plugins or other settings are in effect."""


def skipped_settings_file(
    reader: Reader, path: Path, scope: str, data: dict[str, Any], refusal: str
) -> None:
    """A settings file Claude Code skips (:func:`claude_refusal`): one problem, and what it
    holds listed as decoys for that reason."""
    reader.problems.append(f"{path}: {refusal}; {SETTINGS_SKIPPED}")
    before = len(reader.components)
    settings_file(reader, path, scope, data, skipped=f"{SETTINGS_SKIPPED} ({refusal})")
    for component in reader.components[before:]:
        component.decoy = f"{SETTINGS_SKIPPED} ({refusal})"


def settings_file(
    reader: Reader, path: Path, scope: str, data: dict[str, Any], skipped: str | None = None
) -> None:
    """The hooks and permission rules of a Claude Code settings file (``skipped``: why
    Claude Code skips the whole file, when it does)."""
    hooks(reader, data.get("hooks"), path, scope, agent="claude-code", skipped=skipped)
    for decision, value in as_dict(data.get("permissions")).items():
        if decision in PERMISSION_SETTINGS:
            continue
        if decision in DECISIONS:
            rules = reader.string_list(path, f"permissions.{decision}", value) or []
        else:  # a list under a key Claude Code does not read: a decoy, whatever it holds
            rules = strings(value)
        decoy = None if decision in DECISIONS else f"'{decision}' is not allow, deny or ask"
        for rule in rules:
            reader.add("permission", rule, path, scope=scope, decision=decision, decoy=decoy)
    # A common mistake: servers in settings.json, which Claude Code does not read for MCP.
    servers(
        reader,
        data.get("mcpServers"),
        path,
        scope,
        lambda *_: "settings.json is not read for MCP servers (~/.claude.json, .mcp.json are)",
    )


def user_state(reader: Reader, path: Path) -> set[str]:
    """The user's and the project's MCP servers in ``~/.claude.json``; returns the names the
    project's entry switches off (``disabledMcpServers``, what ``/mcp`` writes)."""
    data = reader.json(path)
    if data is None:
        return set()
    servers(reader, data.get("mcpServers"), path, "user")
    if reader.project is None:
        return set()
    projects = as_dict(data.get("projects"))
    switched_off: set[str] = set()
    for key in project_keys(reader.project):
        if not reader.shape(path, f"projects.{key}", projects.get(key), dict):
            continue
        entry = as_dict(projects.get(key))
        table = entry.get("mcpServers")
        if reader.shape(path, f"projects.{key}.mcpServers", table, dict):
            servers(reader, table, path, "project", field=f"projects.{key}.mcpServers")
        field = f"projects.{key}.disabledMcpServers"
        switched_off |= set(reader.string_list(path, field, entry.get("disabledMcpServers")) or [])
    return switched_off


ABOVE = (".claude", ".mcp.json", "CLAUDE.md", "CLAUDE.local.md")
"""What Claude Code reads in a folder above the project: a folder with none of these adds
nothing (skipped unread, as a walk up from a deep project passes many such)."""


def holding(folders: Iterable[Path]) -> list[Path]:
    return [f for f in folders if any(os.path.lexists(f / name) for name in ABOVE)]


def project_keys(project: Path) -> list[str]:
    """The keys of the project's entry in ``~/.claude.json``: Claude Code keys it by the
    repository's root (the nearest folder above or at the working folder holding a ``.git``),
    else by the working folder itself; as given and with links resolved."""
    root = repository_root(project) or project
    return list(dict.fromkeys((str(root), os.path.realpath(root))))


def switch_off_servers(reader: Reader, names: set[str], path: Path) -> None:
    """The servers the project's entry in ``~/.claude.json`` lists under ``disabledMcpServers``
    (the user's, the project's and a session's alike; a plugin's go by another name there)."""
    for component in reader.components:
        if component.kind == "mcp" and component.scope != "plugin" and component.name in names:
            component.decoy = component.decoy or f"disabled (disabledMcpServers in {path})"


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
        problems = len(reader.problems)
        folder = install_folder(reader, path, plugin_id, installs)
        if plugin_id not in enabled:
            decoy: str | None = "installed but not enabled (enabledPlugins)"
        elif not enabled[plugin_id]:
            decoy = "disabled (enabledPlugins)"
        elif len(reader.problems) > problems:
            decoy = f"malformed install record in {path.name}"
        elif folder is None or not reader.is_dir(folder):
            decoy = "install path missing or outside the home"
        else:
            decoy = plugin_refusal(reader, folder)
        reader.add("plugin", plugin_id, path, enabled=enabled.get(plugin_id, False), decoy=decoy)
        if decoy is None and folder is not None:
            plugin_contents(reader, folder, plugin_id.split("@")[0])
    for plugin_id in sorted(set(enabled) - set(records)):
        if enabled[plugin_id]:
            reader.add("plugin", plugin_id, path, enabled=True, decoy="enabled but not installed")


def install_folder(reader: Reader, path: Path, plugin_id: str, installs: Any) -> Path | None:
    """The folder of a plugin's (first) install record: ``installed_plugins.json`` holds a
    list of records per plugin (version 2) or one record (version 1), each an object whose
    ``installPath`` is a string. Any other shape is a problem naming the file and the field."""
    field = f"plugins.{plugin_id}"
    if isinstance(installs, list):
        if not installs:
            return None
        record, field = installs[0], f"{field}[0]"
    elif isinstance(installs, dict):
        record = installs
    else:
        reader.problems.append(
            f"{path}: field '{field}': expected a list of install records, got "
            f"{json_kind(installs)}; ignored"
        )
        return None
    if not reader.shape(path, field, record, dict, item=True):
        return None
    value = record.get("installPath")
    if not reader.shape(path, f"{field}.installPath", value, str) or not value:
        return None
    return Path(value)


def plugin_contents(reader: Reader, folder: Path, name: str) -> None:
    """A plugin's skills (``plugin:skill``), hooks (``hooks/hooks.json`` and the manifest's
    ``hooks``) and MCP servers (``.mcp.json`` and the manifest's ``mcpServers``)."""
    skills(reader, folder / "skills", "plugin", prefix=f"{name}:")
    commands(reader, folder / "commands", "plugin", ".md", prefix=f"{name}:", namespaced=False)
    subagents(reader, folder / "agents", "plugin", prefix=f"{name}:", rule=claude_code_agents)
    default = folder / "hooks" / "hooks.json"
    loaded = {os.path.realpath(default)} if plugin_hooks_file(reader, default) else set()
    manifest = folder / ".claude-plugin" / "plugin.json"
    declared = as_dict(reader.json(manifest))
    manifest_hooks(reader, folder, manifest, declared.get("hooks"), loaded)
    mcp_file = folder / ".mcp.json"
    data = as_dict(reader.json(mcp_file))
    table = data.get("mcpServers", data)
    servers(reader, table, mcp_file, "plugin")
    servers(reader, declared.get("mcpServers"), manifest, "plugin")


def manifest_hooks(
    reader: Reader, folder: Path, manifest: Path, declared: Any, loaded: set[str]
) -> None:
    """The ``hooks`` of a plugin's manifest: an object of events, a path (relative to the
    plugin) to a file shaped like ``hooks/hooks.json``, or a list of those, which Claude Code
    runs besides that file (the manifest's schema, checked before, has passed). As Claude Code
    2.1.197 does, a path that leads out of the plugin's folder, or to a file already
    ``loaded`` (``./hooks/hooks.json``, loaded anyway; the same file named twice) adds
    nothing, and is a problem: Claude Code reports an error for it."""
    items = declared if isinstance(declared, list) else [] if declared is None else [declared]
    for item in items:
        if isinstance(item, dict):
            hooks(reader, item, manifest, "plugin", agent="claude-code")
            continue
        if not isinstance(item, str):
            continue
        file = folder / item
        if leads_out(folder, item):
            reader.problems.append(
                f"{manifest}: field 'hooks' names {item}, which leads out of the plugin's "
                "folder; Claude Code does not load it"
            )
            continue
        if not reader.is_file(file):
            reader.problems.append(f"{manifest}: field 'hooks' names {item}, which is not a file")
            continue
        real = os.path.realpath(file)
        if real in loaded:
            standard = real == os.path.realpath(folder / "hooks" / "hooks.json")
            which = "the hooks/hooks.json loaded anyway" if standard else "a file named before"
            reader.problems.append(
                f"{manifest}: field 'hooks' names {item}, {which}; Claude Code loads the file "
                'once and reports an error, "Duplicate hooks file detected"'
            )
            continue
        if plugin_hooks_file(reader, file):
            loaded.add(real)


def leads_out(folder: Path, item: str) -> bool:
    """Whether a manifest's path (``./../x.json``) leads out of the plugin's ``folder``, as
    Claude Code 2.1.197 tells it ("Path escapes plugin directory"): it does not load it."""
    inside = os.path.relpath(os.path.normpath(folder / item), os.path.normpath(folder))
    return inside.startswith("..")


def plugin_hooks_file(reader: Reader, file: Path) -> bool:
    """The hooks of a plugin's hooks file (``hooks/hooks.json``, one its manifest names): all
    decoys when Claude Code's schema refuses the file (:func:`hooks_file_refusal`). Whether
    Claude Code loaded the file (it read, and its schema passed)."""
    data = as_dict(reader.json(file))
    table = data.get("hooks")
    refusal = hooks_file_refusal(data) if isinstance(table, dict) else None
    hooks(reader, table, file, "plugin", agent="claude-code", refusal=refusal)
    return isinstance(table, dict) and refusal is None


def plugin_refusal(reader: Reader, folder: Path) -> str | None:
    """Why Claude Code loads nothing of the plugin in ``folder`` (a problem too), or None: it
    cannot read its manifest or the manifest is not JSON (:func:`read_manifest`), or the
    manifest fails the manifest's schema (:func:`manifest_refusal`: no object, a ``name``
    missing or with a space, a field of the wrong type, ``hooks`` that fail). No manifest is
    none to fail (Claude Code names the plugin after its folder)."""
    manifest = folder / ".claude-plugin" / "plugin.json"
    data, unread = read_manifest(reader, manifest)
    if unread is not None:
        return f"{SKIPS_PLUGIN} ({unread})"
    refusal = manifest_refusal(data) if data is not NO_MANIFEST else None
    if refusal is None:
        return None
    reader.problems.append(f"{manifest}: {refusal}; {CLAUDE_SKIPS['manifest']}")
    return f"{CLAUDE_SKIPS['manifest']} ({refusal})"


SKIPS_PLUGIN = "Claude Code skips this whole plugin"
NO_MANIFEST = object()
"""No manifest to judge: none there, or one the audit does not read (see :func:`read_manifest`)."""


def read_manifest(reader: Reader, manifest: Path) -> tuple[Any, str | None]:
    """A plugin's manifest as Claude Code 2.1.197 reads it, with Node's ``readFile`` and
    ``JSON.parse``: ``(value, None)``, any JSON value; ``(NO_MANIFEST, None)`` when there is
    none (absent, a link to nothing, ``.claude-plugin`` a file: Claude Code names the plugin
    after its folder) or the audit does not read it (a link out of the home and project, a
    named pipe: a problem, its plugin not judged); or ``(NO_MANIFEST, why)`` when Claude Code
    loads nothing of the plugin, said as a problem: a file it cannot read (a folder, a link in
    a loop, one it has no permission for: "failed to read manifest file") or that is not JSON
    ("a corrupt manifest file")."""
    skip = f"{SKIPS_PLUGIN} (it cannot read its manifest)"
    if loops(manifest) or reader.looked_at(manifest, "is_dir"):
        why = LOOP if loops(manifest) else "a folder, where a file belongs"
        reader.problems.append(f"{manifest}: {why}; {skip}")
        return NO_MANIFEST, f"it cannot read its manifest: {why}"
    problems = len(reader.problems)
    text = reader.text(manifest, replace=True)  # bytes not UTF-8 read as Node reads them
    if text is None:
        if not (reader.is_file(manifest) and len(reader.problems) > problems):
            return NO_MANIFEST, None  # none there, or not read (said so)
        why = reader.problems[-1].removeprefix(f"{manifest}: ")  # the file would not open
        reader.problems[-1] = f"{manifest}: {why}; {skip}"
        return NO_MANIFEST, f"it cannot read its manifest: {why}"
    try:
        return js_json(text), None
    except json.JSONDecodeError as exc:
        reader.problems.append(
            f"{manifest}: not valid JSON (line {exc.lineno}: {exc.msg}); {SKIPS_PLUGIN} (a "
            "corrupt manifest file)"
        )
        return NO_MANIFEST, f"its manifest is not valid JSON, line {exc.lineno}"
    except RecursionError:
        reader.problems.append(f"{manifest}: JSON nested too deeply to read; not judged")
        return NO_MANIFEST, None


def session_args(reader: Reader, args: Sequence[str]) -> None:
    """Plugin folders and MCP files named on the command line of the session."""
    for flag, value in itertools.pairwise(args):
        if flag == "--plugin-dir":
            folder = Path(value)
            decoy = plugin_refusal(reader, folder)  # skipped: said by its folder's name
            manifest = (
                {} if decoy else as_dict(reader.json(folder / ".claude-plugin" / "plugin.json"))
            )
            name = manifest.get("name") if isinstance(manifest.get("name"), str) else folder.name
            reader.add("plugin", str(name), folder, enabled=True, decoy=decoy)
            if decoy is None:
                plugin_contents(reader, folder, str(name))
        elif flag == "--mcp-config":
            path = Path(value)
            table = as_dict(reader.json(path)).get("mcpServers")
            servers(reader, table, path, "user")
