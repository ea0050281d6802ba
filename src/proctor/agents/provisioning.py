"""Materialising add-ons (plugins, skills, MCP servers, hooks) for an agent's scratch home.

Relative ``path`` values resolve against the case folder. A plugin or skill may be a directory
or a ``.zip``; zips are extracted (safely) into the trial's scratch folder.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from proctor.errors import WorkspaceError
from proctor.models.config import ProvisionEntry
from proctor.workspace.fixture import materialise_fixture

TOOL_WORD = re.compile(r"(?<!\\)[A-Za-z_][A-Za-z0-9_]*")
"""A tool name inside a hook matcher (matchers are regexes such as ``Write|Edit``); the letter
of an escape such as ``\\b`` is not the start of one."""


def entry_field(entry: ProvisionEntry, name: str) -> Any:
    extra = entry.model_extra or {}
    return extra.get(name)


def resolve_path(entry: ProvisionEntry, case_dir: Path | None, kind: str) -> Path:
    raw = entry_field(entry, "path")
    if not isinstance(raw, str) or not raw:
        raise WorkspaceError(f"provision.{kind} '{entry.name}': field 'path' is required")
    path = Path(raw).expanduser()
    if not path.is_absolute() and case_dir is not None:
        path = case_dir / path
    if not path.exists():
        raise WorkspaceError(f"provision.{kind} '{entry.name}': path {path} does not exist")
    return path


def materialise_addon(entry: ProvisionEntry, case_dir: Path | None, kind: str, dest: Path) -> Path:
    """Copy (or extract) an add-on folder to ``dest`` and return ``dest``."""
    source = resolve_path(entry, case_dir, kind)
    if dest.exists():
        shutil.rmtree(dest)
    if source.is_file() and source.suffix == ".zip":
        materialise_fixture(source, "zip", dest)
    elif source.is_dir():
        shutil.copytree(source, dest, symlinks=True)
    else:
        raise WorkspaceError(
            f"provision.{kind} '{entry.name}': {source} is neither a directory nor a .zip"
        )
    return dest


def mcp_server_config(entry: ProvisionEntry) -> dict[str, Any]:
    """``{command, args, env}`` for a stdio server or ``{url}`` (``type`` http) for a remote one."""
    url = entry_field(entry, "url")
    if isinstance(url, str):
        return {"type": entry_field(entry, "type") or "http", "url": url}
    command = entry_field(entry, "command")
    if not isinstance(command, str) or not command:
        raise WorkspaceError(f"provision.mcps '{entry.name}': give 'command' (stdio) or 'url'")
    config: dict[str, Any] = {"command": command, "args": list(entry_field(entry, "args") or [])}
    env = entry_field(entry, "env")
    if isinstance(env, dict):
        config["env"] = {str(k): str(v) for k, v in env.items()}
    return config


def hook_groups(
    entries: list[ProvisionEntry],
    events: Mapping[str, str] | None = None,
    tools: Mapping[str, str] | None = None,
) -> dict[str, list[dict[str, Any]]]:
    """``provision.hooks`` entries (``{name, event, command, matcher}``) as the event → matcher
    group → handlers structure Claude Code, Codex and Gemini CLI share.

    Entries speak Claude Code's vocabulary (``PreToolUse`` by default, matchers naming ``Bash``,
    ``Write``, ...). ``events`` and ``tools`` translate it for a CLI that names things otherwise;
    names they do not list (a CLI's own, the rest of a regex) pass through unchanged.
    """
    events, tools = events or {}, tools or {}
    hooks: dict[str, list[dict[str, Any]]] = {}
    for entry in entries:
        command = entry_field(entry, "command")
        if not isinstance(command, str) or not command:
            raise WorkspaceError(f"provision.hooks '{entry.name}': field 'command' is required")
        group: dict[str, Any] = {"hooks": [{"type": "command", "command": command}]}
        matcher = entry_field(entry, "matcher")
        if matcher:
            group["matcher"] = TOOL_WORD.sub(lambda m: tools.get(m[0], m[0]), str(matcher))
        event = str(entry_field(entry, "event") or "PreToolUse")
        hooks.setdefault(events.get(event, event), []).append(group)
    return hooks
