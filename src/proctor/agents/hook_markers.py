"""proctor's own evidence that a plugin's hooks ran.

Hooks that print nothing leave no entry in Claude Code's transcript. When proctor provisions a
plugin it copies it into the trial's scratch folder and prefixes each hook command in the copy's
``hooks/hooks.json`` (and in the ``hooks`` of its ``.claude-plugin/plugin.json``, an object or
the files it names) with one line that appends a marker (event, plugin, original command) to
``hook-markers.jsonl`` in the trial folder. The original command then runs unchanged, with the
same stdin.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from proctor.agents.hook_matchers import names_tool

MARKERS_FILE = "hook-markers.jsonl"


def wrap_command(command: str, event: str, plugin: str, markers: Path) -> str:
    marker = json.dumps({"event": event, "plugin": plugin, "command": command})
    return f"printf '%s\\n' {shlex.quote(marker)} >> {shlex.quote(str(markers))}; {command}"


def instrument_plugin_hooks(plugin_dir: Path, plugin: str, markers: Path) -> int:
    """Rewrite, in the copy, every file Claude Code reads the plugin's hooks from
    (``hooks/hooks.json``, the ``hooks`` of ``.claude-plugin/plugin.json`` and the files it
    names inside the plugin); return how many commands were wrapped."""
    try:
        files = hook_files(plugin_dir)
    except (OSError, ValueError):
        return 0
    wrapped = 0
    top = plugin_dir.resolve()
    for file, key in files:
        if not file.resolve().is_relative_to(top):
            continue  # a file outside the copy is never rewritten
        try:
            data = json.loads(file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # Claude Code reports such a file itself; the marker cannot be added
        table = data.get(key) if isinstance(data, dict) else None
        for event, groups in table.items() if isinstance(table, dict) else ():
            for group in groups if isinstance(groups, list) else []:
                for hook in group.get("hooks", []) if isinstance(group, dict) else []:
                    if isinstance(hook, dict) and isinstance(hook.get("command"), str):
                        hook["command"] = wrap_command(hook["command"], event, plugin, markers)
                        wrapped += 1
        file.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return wrapped


@dataclass(frozen=True)
class DeclaredHook:
    event: str
    matcher: str
    command: str


def plugin_root(path: Path) -> Path | None:
    """The plugin folder ``path`` is (or whose ``hooks/hooks.json`` or
    ``.claude-plugin/plugin.json`` it is); None for a hooks file of no plugin."""
    if path.is_dir():
        return path
    if (path.parent.name, path.name) in (
        ("hooks", "hooks.json"),
        (".claude-plugin", "plugin.json"),
    ):
        return path.parent.parent
    return None


def hook_files(path: Path) -> list[tuple[Path, str]]:
    """The files Claude Code reads a plugin's hooks from, each with the key of its hooks
    table: ``hooks/hooks.json``, the manifest's ``hooks`` when it is an object of events, and
    the files it names when it is a path or a list of paths (relative to the plugin). Raises
    ValueError for a manifest ``hooks`` of another shape, OSError for a file that is not
    there."""
    root = plugin_root(path)
    if root is None:
        return [(path, "hooks")]
    default = root / "hooks" / "hooks.json"
    files = [(default, "hooks")] if default.is_file() else []
    manifest = root / ".claude-plugin" / "plugin.json"
    data: Any = json.loads(manifest.read_text(encoding="utf-8")) if manifest.is_file() else {}
    declared = data.get("hooks") if isinstance(data, dict) else None
    if isinstance(declared, dict):
        files.append((manifest, "hooks"))
    elif declared is not None:
        paths = [declared] if isinstance(declared, str) else declared
        if not isinstance(paths, list) or not all(isinstance(p, str) and p for p in paths):
            raise ValueError(
                f"{manifest}: field 'hooks' must be a path, a list of paths or an object of events"
            )
        for rel in paths:
            file = root / rel
            if file.resolve() != default.resolve():
                files.append((file, "hooks"))
    if not files:
        raise ValueError(
            f"{root}: no hooks/hooks.json and no 'hooks' in .claude-plugin/plugin.json"
        )
    return files


def plugin_hooks(path: Path) -> list[DeclaredHook]:
    """Every command hook of the plugin ``path`` names (its folder, its manifest or its
    ``hooks/hooks.json``; see :func:`hook_files`), or of a lone hooks file."""
    out: list[DeclaredHook] = []
    for file, key in hook_files(path):
        data: Any = json.loads(file.read_text(encoding="utf-8"))
        table = data.get(key) if isinstance(data, dict) else None
        for event, groups in table.items() if isinstance(table, dict) else ():
            for group in groups if isinstance(groups, list) else []:
                if not isinstance(group, dict):
                    continue
                matcher = group.get("matcher")
                matcher = matcher if isinstance(matcher, str) else ""
                handlers = group.get("hooks")
                for hook in handlers if isinstance(handlers, list) else []:
                    if isinstance(hook, dict) and isinstance(hook.get("command"), str):
                        out.append(DeclaredHook(str(event), matcher, hook["command"]))
    return out


def declared_hooks(manifest: Path) -> dict[str, list[str]]:
    """Event name → the commands the plugin (or hooks file) ``manifest`` names declares."""
    out: dict[str, list[str]] = {}
    for hook in plugin_hooks(manifest):
        out.setdefault(hook.event, []).append(hook.command)
    return out


def matcher_names(matcher: str, tool: str) -> bool:
    """Whether Claude Code runs a tool hook of ``matcher`` for ``tool``: any tool for an empty
    matcher or ``*``, else as :func:`~proctor.agents.hook_matchers.names_tool` reads it."""
    if not matcher or matcher == "*":
        return True
    return names_tool(matcher, "PreToolUse", tool, legacy=True)


def read_markers(path: Path) -> list[dict[str, Any]]:
    rows = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return []
    for line in lines:
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(row, dict):
            rows.append(row)
    return rows
