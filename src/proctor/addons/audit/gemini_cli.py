"""What Gemini CLI (0.61) would load from a home and a project.

``~/.gemini/settings.json`` and the project's ``.gemini/settings.json``: ``mcpServers``
(``command``; ``httpUrl`` for streamable HTTP, ``url`` for SSE; ``mcp.allowed`` and
``mcp.excluded`` filter them), ``hooks`` (on unless ``hooksConfig.enabled`` is false;
``hooksConfig.disabled`` lists commands), ``tools.allowed`` / ``tools.exclude`` (permission
rules), ``skills.disabled``. Skills: ``~/.gemini/skills``, ``~/.agents/skills`` and the
project's ``.gemini/skills``, ``.agents/skills``. Extensions:
``~/.gemini/extensions/<dir>/gemini-extension.json``, enabled unless
``extension-enablement.json`` has a last matching ``!path`` override for the project; an
enabled extension brings its MCP servers, context file, skills, ``commands/`` and ``agents/`` and
``hooks/hooks.json``. Slash commands: ``commands/**/*.toml``; subagents: ``agents/*.md`` (off when
``experimental.enableAgents`` is false), in ``~/.gemini`` and the project's ``.gemini``.
Instructions: ``GEMINI.md`` (or ``context.fileName``) in ``~/.gemini`` and in the project.
``GEMINI_CLI_HOME`` replaces the home (``~``) in every one of these user paths.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from proctor.addons.audit.definitions import (
    commands,
    gemini_cli_command,
    gemini_cli_command_part,
    subagents,
)
from proctor.addons.audit.front_matter import gemini_cli_skill
from proctor.addons.audit.hook_tables import hooks
from proctor.addons.audit.mcp_tables import mcp_servers, shadow_same_names
from proctor.addons.audit.reading import Reader, as_dict, strings
from proctor.addons.audit.shared_components import (
    ancestors,
    foreign_files,
    from_above,
    instructions,
    skills,
)
from proctor.models.audit import AuditComponent
from proctor.models.errors_format import json_kind

FOREIGN = {
    "config.toml": "Codex",
    "settings.local.json": "Claude Code",
    "CLAUDE.md": "Claude Code",
    "AGENTS.md": "Codex",
    ".claude.json": "Claude Code",
}


LISTS = (
    ("mcp", "allowed"),
    ("mcp", "excluded"),
    ("tools", "allowed"),
    ("tools", "exclude"),
    ("hooksConfig", "disabled"),
    ("skills", "disabled"),
)
"""The lists of names in Gemini CLI's settings the audit reads (``section.field``)."""

WARNED = ("Gemini CLI calls the configuration invalid, then starts the server anyway", False)
"""Gemini CLI 0.61 on an MCP entry whose ``args`` hold a number: "Invalid configuration ...
mcpServers.g.args[1] Expected string, received number", then it runs ``node srv.js 8080``."""


def transport_of(entry: dict[str, Any]) -> tuple[str | None, str | None]:
    http = entry.get("httpUrl") if isinstance(entry.get("httpUrl"), str) else None
    sse = entry.get("url") if isinstance(entry.get("url"), str) else None
    kind = entry.get("type") if isinstance(entry.get("type"), str) else None
    if isinstance(entry.get("command"), str):
        return "stdio", None
    if http:
        return "http", http
    return (kind or ("sse" if sse else None)), sse


def audit_gemini_cli(reader: Reader) -> None:
    home, project = reader.gemini_cli_home or reader.home, reader.project
    gemini = home / ".gemini"
    files = [(gemini / "settings.json", "user")]
    if project is not None:
        files.append((project / ".gemini" / "settings.json", "project"))
    loaded = [(path, scope, reader.json(path, comments=True) or {}) for path, scope in files]
    merged: dict[str, Any] = {}
    malformed_allowed: list[Path] = []
    for path, _, data in loaded:
        context_name(reader, path, as_dict(data.get("context")).get("fileName"))
        for key, field in LISTS:
            value = as_dict(data.get(key)).get(field)
            malformed = (
                value is not None and reader.string_list(path, f"{key}.{field}", value) is None
            )
            if malformed and (key, field) == ("mcp", "allowed"):
                malformed_allowed.append(path)
        for key in ("mcp", "hooksConfig", "skills", "context", "experimental"):
            earlier = as_dict(merged.get(key))
            merged[key] = {**earlier, **as_dict(data.get(key))}
            if key in ("hooksConfig", "skills"):  # their `disabled` lists are each file's, joined
                both = [
                    *strings(earlier.get("disabled")),
                    *strings(as_dict(data.get(key)).get("disabled")),
                ]
                merged[key]["disabled"] = list(dict.fromkeys(both))
    mcp = as_dict(merged.get("mcp"))
    allowed, excluded = mcp.get("allowed"), set(strings(mcp.get("excluded")))

    def mcp_decoy(name: str, entry: dict[str, Any]) -> str | None:
        if name in excluded:
            return "excluded (mcp.excluded)"
        if malformed_allowed:
            return f"mcp.allowed in {malformed_allowed[-1]} is not a list of names"
        if isinstance(allowed, list) and name not in allowed:
            return "not in mcp.allowed"
        return None

    hooks_config = as_dict(merged.get("hooksConfig"))
    off = (
        "hooks switched off (hooksConfig.enabled)" if hooks_config.get("enabled") is False else None
    )
    disabled_hooks = set(strings(hooks_config.get("disabled")))
    disabled_skills = set(strings(as_dict(merged.get("skills")).get("disabled")))
    for path, scope, data in loaded:
        mcp_servers(
            reader,
            data.get("mcpServers"),
            path,
            scope,
            transport_of,
            mcp_decoy,
            bad_args=WARNED,
        )
        hooks(reader, data.get("hooks"), path, scope, off, disabled_hooks, agent="gemini-cli")
        tools = as_dict(data.get("tools"))
        for key, decision in (("allowed", "allow"), ("exclude", "deny")):
            for rule in strings(tools.get(key)):
                reader.add("permission", rule, path, scope=scope, decision=decision)
    # A project's server replaces the user's of the same name (mcpServers merge shallowly).
    shadow_same_names(reader, lambda c: {"project": 0, "user": 1}.get(c.scope))
    context_names = context_files(as_dict(merged.get("context")).get("fileName"))
    agents_off = (
        "subagents switched off (experimental.enableAgents)"
        if as_dict(merged.get("experimental")).get("enableAgents") is False
        else None
    )
    skills(reader, gemini / "skills", "user", disabled_skills, rule=gemini_cli_skill)
    commands(
        reader,
        gemini / "commands",
        "user",
        ".toml",
        rule=gemini_cli_command,
        rename=gemini_cli_command_part,
        replace=True,
    )
    subagents(reader, gemini / "agents", "user", nested=False, off=agents_off)
    skills(reader, home / ".agents" / "skills", "user", disabled_skills, rule=gemini_cli_skill)
    for name in context_names:
        instructions(reader, gemini / name, "user")
    foreign_files(reader, gemini, FOREIGN, "user")
    extensions(
        reader, gemini / "extensions", mcp_decoy, off, disabled_hooks, agents_off, disabled_skills
    )
    settings_over_extensions(reader)
    if project is not None:
        skills(
            reader,
            project / ".gemini" / "skills",
            "project",
            disabled_skills,
            rule=gemini_cli_skill,
        )
        commands(
            reader,
            project / ".gemini" / "commands",
            "project",
            ".toml",
            rule=gemini_cli_command,
            rename=gemini_cli_command_part,
            replace=True,
        )
        subagents(reader, project / ".gemini" / "agents", "project", nested=False, off=agents_off)
        skills(
            reader,
            project / ".agents" / "skills",
            "project",
            disabled_skills,
            rule=gemini_cli_skill,
        )
        for name in context_names:
            instructions(reader, project / name, "project")
        for folder in ancestors(reader, to_repository_root=True):  # up to the .git folder
            for name in context_names:
                from_above(reader, folder, partial(instructions, reader, folder / name, "project"))
        foreign_files(reader, project / ".gemini", FOREIGN, "project")
    roots = [*extension_skill_roots(reader, gemini / "extensions"), gemini / "skills"]
    roots.append(home / ".agents" / "skills")
    if project is not None:
        roots += [project / ".gemini" / "skills", project / ".agents" / "skills"]
    shadow_same_skills(reader, roots)


def settings_over_extensions(reader: Reader) -> None:
    """An extension's MCP server named as one in the settings: Gemini CLI 0.61 lays the
    settings' entry over the extension's (``mergeMcpConfigs``; ``gemini mcp list`` shows the
    settings' command), so the extension's is shadowed."""
    settings = {
        c.name: c
        for c in reader.components
        if c.kind == "mcp" and c.scope != "plugin" and c.decoy is None
    }
    for c in reader.components:
        if c.kind == "mcp" and c.scope == "plugin" and c.decoy is None and c.name in settings:
            c.decoy = f"shadowed by the server of the same name in {settings[c.name].file}"


def extension_skill_roots(reader: Reader, root: Path) -> list[Path]:
    """The extensions' skills folders in the order Gemini CLI 0.61 loads the extensions: the
    order the file system lists their folders in (``readdir``, unsorted)."""
    try:
        names = os.listdir(root) if reader.is_dir(root) else []
    except OSError:  # said by the listing of the extensions
        names = []
    return [root / name / "skills" for name in names]


def shadow_same_skills(reader: Reader, roots: list[Path]) -> None:
    """Skills of the same name from two folders: Gemini CLI 0.61 loads ``roots`` in order (the
    extensions', then ``~/.gemini/skills``, ``~/.agents/skills``, the project's
    ``.gemini/skills`` and ``.agents/skills``) and a later one replaces an earlier one
    (``addSkillsWithPrecedence``); the replaced ones are decoys shadowed by the one that wins.
    (``skills.disabled`` goes by name: it disables every one of them alike.)"""
    rank = {folder: index for index, folder in enumerate(roots)}
    found = [
        (order, c)
        for c in reader.components
        if c.kind == "skill" and c.decoy is None
        if (order := rank.get(Path(c.file).parent.parent)) is not None
    ]
    winner: dict[str, tuple[int, AuditComponent]] = {}
    for order, component in found:
        if order >= winner.get(component.name, (-1, component))[0]:
            winner[component.name] = (order, component)
    for order, component in found:
        first_order, first = winner[component.name]
        if first_order > order and component.decoy is None:
            component.decoy = f"shadowed by the skill of the same name in {first.file}"


def context_name(reader: Reader, path: Path, value: Any) -> None:
    """``context.fileName`` must be a name or a list of names: Gemini CLI 0.61 calls the
    configuration invalid otherwise, and stops on a number (``filename.trim is not a
    function``)."""
    if value is None or isinstance(value, str):
        return
    if isinstance(value, list):
        reader.string_list(path, "context.fileName", value)
        return
    reader.problems.append(
        f"{path}: field 'context.fileName': expected a string or a list of strings, got "
        f"{json_kind(value)}; Gemini CLI stops on it"
    )


def context_files(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    return strings(value) or ["GEMINI.md"]


def extensions(
    reader: Reader,
    root: Path,
    mcp_decoy: Callable[[str, dict[str, Any]], str | None],
    off: str | None,
    disabled_hooks: set[str],
    agents_off: str | None = None,
    disabled_skills: set[str] | None = None,
) -> None:
    enablement = reader.json(root / "extension-enablement.json") or {}
    where = str(reader.project or reader.home)
    for folder in reader.subdirs(root):
        manifest_file = folder / "gemini-extension.json"
        manifest = reader.json(manifest_file)
        if manifest is None:
            # A manifest that is there but not an object is under problems; it is not absent.
            there = manifest_file.is_file()
            reason = "gemini-extension.json unreadable" if there else "no gemini-extension.json"
            reader.add("plugin", folder.name, manifest_file if there else folder, decoy=reason)
            continue
        name = manifest.get("name") if isinstance(manifest.get("name"), str) else folder.name
        rules = strings(as_dict(enablement.get(str(name))).get("overrides"))
        enabled = extension_enabled(rules, where)
        decoy = None if enabled else "disabled (extension-enablement.json)"
        decoy = unloadable(manifest) or decoy
        reader.add("plugin", str(name), manifest_file, enabled=enabled, decoy=decoy)
        if decoy is not None:
            continue
        servers = manifest.get("mcpServers")
        mcp_servers(
            reader, servers, manifest_file, "plugin", transport_of, mcp_decoy, bad_args=WARNED
        )
        for context in context_files(manifest.get("contextFileName")):
            instructions(reader, folder / context, "plugin")
        skills(reader, folder / "skills", "plugin", disabled_skills or set(), rule=gemini_cli_skill)
        commands(
            reader,
            folder / "commands",
            "plugin",
            ".toml",
            rule=gemini_cli_command,
            rename=gemini_cli_command_part,
            replace=True,
        )
        subagents(reader, folder / "agents", "plugin", nested=False, off=agents_off)
        hooks_file = folder / "hooks" / "hooks.json"
        table = as_dict(reader.json(hooks_file, cost=hooks_not_json)).get("hooks")
        hooks(reader, table, hooks_file, "plugin", off, disabled_hooks, agent="gemini-cli")


EXTENSION_NAME = re.compile(r"[a-zA-Z0-9-]+")


def hooks_not_json(fault: str) -> str:
    """What Gemini CLI 0.61 does with an extension's ``hooks/hooks.json`` that is not JSON
    (``fault``: what is wrong): it loads none of its hooks ("Failed to load extension hooks"),
    the extension's other parts kept; a ``//`` or ``/* */`` comment, which it strips from
    ``settings.json``, it strips not there (``loadExtensionHooks``), which is said then."""
    cost = 'Gemini CLI loads none of the extension\'s hooks ("Failed to load extension hooks"'
    if fault.startswith(("a comment ('//')", "a comment ('/*')")):
        return cost + ": it strips comments from settings.json, not from hooks/hooks.json)"
    return cost + ")"


def unloadable(manifest: dict[str, Any]) -> str | None:
    """Why Gemini CLI 0.61 skips an extension whose manifest it cannot use ("Invalid
    configuration in …: missing "version"", "Invalid extension name"), or None."""
    for key in ("name", "version"):
        if not manifest.get(key):
            return f'gemini-extension.json has no "{key}"; Gemini CLI skips the extension'
    name = manifest["name"]
    if not isinstance(name, str) or not EXTENSION_NAME.fullmatch(name):
        return "the extension's name is not letters, digits and dashes; Gemini CLI skips it"
    return None


def extension_enabled(rules: list[str], where: str) -> bool:
    """Gemini CLI's rule: enabled unless the last override matching the folder starts with
    ``!``; an override ending in ``*`` covers sub-folders too."""
    path = "/" + where.strip("/") + "/"
    enabled = True
    for rule in rules:
        negated = rule.startswith("!")
        base = rule.lstrip("!")
        pattern = re.escape(base.rstrip("*")).replace(r"\*", ".*")
        pattern = pattern + (".*" if base.endswith("*") else "")
        if re.fullmatch(pattern, path):
            enabled = not negated
    return enabled
