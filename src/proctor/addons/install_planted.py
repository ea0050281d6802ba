"""The user's own state planted in a scratch home before an install: per agent a permission
rule, an instruction file, an unrelated setting and an unrelated MCP server, each where that
agent keeps it. An installer must leave them alone, and its uninstall must too.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tomli_w

USER_MCP = {"command": "user-notes-server", "args": ["--stdio"]}
USER_INSTRUCTIONS = "# My rules\n\nAlways run the tests before committing.\n"


@dataclass(frozen=True)
class PlantedKey:
    """A value planted at ``path`` inside a JSON or TOML file. A list must still hold every
    planted item afterwards (an installer may add its own); anything else must be equal."""

    what: str
    path: tuple[str, ...]
    value: Any


@dataclass(frozen=True)
class PlantedFile:
    rel: str
    """Relative to the home."""
    content: dict[str, Any] | str
    keys: tuple[PlantedKey, ...] = ()

    def render(self) -> str:
        if isinstance(self.content, str):
            return self.content
        if self.rel.endswith(".toml"):
            return tomli_w.dumps(self.content)
        return json.dumps(self.content, indent=2) + "\n"


def _from_keys(rel: str, *keys: PlantedKey) -> PlantedFile:
    content: dict[str, Any] = {}
    for key in keys:
        node = content
        for part in key.path[:-1]:
            node = node.setdefault(part, {})
        node[key.path[-1]] = key.value
    return PlantedFile(rel, content, keys)


PLANTED: dict[str, tuple[PlantedFile, ...]] = {
    "claude-code": (
        _from_keys(
            ".claude/settings.json",
            PlantedKey("permission rule", ("permissions", "allow"), ["Bash(make test:*)"]),
            PlantedKey("setting", ("cleanupPeriodDays",), 41),
        ),
        _from_keys(
            ".claude.json", PlantedKey("MCP server", ("mcpServers", "user-notes"), USER_MCP)
        ),
        PlantedFile(".claude/CLAUDE.md", USER_INSTRUCTIONS),
    ),
    "codex": (
        _from_keys(
            ".codex/config.toml",
            PlantedKey("permission setting", ("approval_policy",), "on-request"),
            PlantedKey("setting", ("model_reasoning_effort",), "low"),
            PlantedKey("MCP server", ("mcp_servers", "user-notes"), USER_MCP),
        ),
        PlantedFile(".codex/AGENTS.md", USER_INSTRUCTIONS),
    ),
    "gemini-cli": (
        _from_keys(
            ".gemini/settings.json",
            PlantedKey("permission rule", ("tools", "allowed"), ["run_shell_command(make test)"]),
            PlantedKey("setting", ("ui", "theme"), "GitHub"),
            PlantedKey("MCP server", ("mcpServers", "user-notes"), USER_MCP),
        ),
        PlantedFile(".gemini/GEMINI.md", USER_INSTRUCTIONS),
    ),
}


def planted_files(agents: list[str]) -> list[PlantedFile]:
    return [f for a in agents for f in PLANTED.get(a, ())]


def plant(home: Path, agents: list[str]) -> None:
    for planted in planted_files(agents):
        path = home / planted.rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(planted.render(), encoding="utf-8")


def read_document(path: Path) -> dict[str, Any] | str | None:
    """The file parsed (JSON or TOML), its text when it is not structured or does not parse,
    ``None`` when it is gone."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    if path.suffix not in (".json", ".toml"):
        return text
    try:
        data = tomllib.loads(text) if path.suffix == ".toml" else json.loads(text)
    except ValueError:
        return text
    return data if isinstance(data, dict) else text


def lost_user_state(home: Path, planted: PlantedFile) -> list[str]:
    """What of ``planted`` is no longer there, one phrase each (empty when all of it is); the
    file named by its place in the scratch (``home/.claude/settings.json``)."""
    doc = read_document(home / planted.rel)
    shown = f"home/{planted.rel}"
    if doc is None:
        return [f"{shown} was deleted"]
    if isinstance(planted.content, str):
        return [] if doc == planted.content else [f"the instruction file {shown} changed"]
    if isinstance(doc, str):
        return [f"{shown} no longer parses"]
    lost = []
    for key in planted.keys:
        found = value_at(doc, key.path)
        where = f"{shown} {'.'.join(key.path)}"
        if isinstance(key.value, list):
            missing = [v for v in key.value if not isinstance(found, list) or v not in found]
            if missing:
                lost.append(f"the user's {key.what} {missing[0]!r} is gone from {where}")
        elif found is None:
            lost.append(f"the user's {key.what} {where} is gone")
        elif found != key.value:
            lost.append(f"the user's {key.what} {where} is {found!r}, not {key.value!r}")
    return lost


def claude_state_servers(doc: Any) -> dict[str, Any]:
    """The part of Claude Code's ``.claude.json`` that is configuration: ``mcpServers``, at the
    top level and in each project's entry. Everything else there (``firstStartTime``,
    ``machineID``, ``userID``, counters, migration flags) is the CLI's own bookkeeping, written
    by any ``claude`` command, so it is never compared."""
    if not isinstance(doc, dict):
        return {}
    out: dict[str, Any] = {}
    if "mcpServers" in doc:
        out["mcpServers"] = doc["mcpServers"]
    projects = doc.get("projects")
    if isinstance(projects, dict):
        servers = {
            key: {"mcpServers": entry["mcpServers"]}
            for key, entry in projects.items()
            if isinstance(entry, dict) and "mcpServers" in entry
        }
        if servers:
            out["projects"] = servers
    return out


def value_at(doc: Any, path: tuple[str, ...]) -> Any:
    """The value at the key path, None when a key is missing (or the value is null)."""
    return _walk(doc, path)[1]


def has_key(doc: Any, path: tuple[str, ...]) -> bool:
    """Whether the key path exists in ``doc``, whatever its value (``null`` included)."""
    return _walk(doc, path)[0]


def _walk(doc: Any, path: tuple[str, ...]) -> tuple[bool, Any]:
    for part in path:
        if not isinstance(doc, dict) or part not in doc:
            return False, None
        doc = doc[part]
    return True, doc


def pruned(value: Any) -> Any:
    """``value`` without empty objects and lists, at any depth (``"hooks": {}`` left behind by
    an uninstall is not a leftover)."""
    if isinstance(value, dict):
        out = {k: pruned(v) for k, v in value.items()}
        return {k: v for k, v in out.items() if v not in ({}, [])}
    if isinstance(value, list):
        return [pruned(v) for v in value]
    return value


def leftover_keys(before: Any, after: Any, at: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Key paths whose value differs between two parsed documents, empty containers aside."""
    before, after = pruned(before), pruned(after)
    if isinstance(before, dict) and isinstance(after, dict):
        out: list[tuple[str, ...]] = []
        for key in sorted(set(before) | set(after)):
            out += leftover_keys(before.get(key, _ABSENT), after.get(key, _ABSENT), (*at, key))
        return out
    return [] if before == after else [at]


_ABSENT = object()
"""A key not in a document (a key whose value is null is there)."""
