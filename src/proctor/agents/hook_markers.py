"""proctor's own evidence that a plugin's hooks ran.

Hooks that print nothing leave no entry in Claude Code's transcript. When proctor provisions a
plugin it copies it into the trial's scratch folder and prefixes each hook command in the copy's
``hooks/hooks.json`` with one line that appends a marker (event, plugin, original command) to
``hook-markers.jsonl`` in the trial folder. The original command then runs unchanged, with the
same stdin.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

MARKERS_FILE = "hook-markers.jsonl"


def wrap_command(command: str, event: str, plugin: str, markers: Path) -> str:
    marker = json.dumps({"event": event, "plugin": plugin, "command": command})
    return f"printf '%s\\n' {shlex.quote(marker)} >> {shlex.quote(str(markers))}; {command}"


def instrument_plugin_hooks(plugin_dir: Path, plugin: str, markers: Path) -> int:
    """Rewrite the copy's ``hooks/hooks.json`` in place; return how many commands were wrapped."""
    manifest = plugin_dir / "hooks" / "hooks.json"
    if not manifest.is_file():
        return 0
    try:
        data = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return 0
    wrapped = 0
    for event, groups in (data.get("hooks") or {}).items():
        for group in groups if isinstance(groups, list) else []:
            for hook in group.get("hooks", []) if isinstance(group, dict) else []:
                if isinstance(hook, dict) and isinstance(hook.get("command"), str):
                    hook["command"] = wrap_command(hook["command"], event, plugin, markers)
                    wrapped += 1
    manifest.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return wrapped


def declared_hooks(manifest: Path) -> dict[str, list[str]]:
    """Event name → the commands a ``hooks.json`` declares for it."""
    data: Any = json.loads(manifest.read_text(encoding="utf-8"))
    out: dict[str, list[str]] = {}
    for event, groups in (data.get("hooks") or {}).items():
        commands = out.setdefault(event, [])
        for group in groups if isinstance(groups, list) else []:
            for hook in group.get("hooks", []) if isinstance(group, dict) else []:
                if isinstance(hook, dict) and isinstance(hook.get("command"), str):
                    commands.append(hook["command"])
    return out


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
