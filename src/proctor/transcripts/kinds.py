"""Normalised tool kinds and the file paths a tool call touched, across agents."""

from __future__ import annotations

import os
from typing import Any

from proctor.models.trajectory import ToolKind

CLAUDE_KINDS: dict[str, ToolKind] = {
    "Bash": "shell",
    "BashOutput": "shell",
    "KillShell": "shell",
    "KillBash": "shell",
    "Read": "read",
    "NotebookRead": "read",
    "Write": "write",
    "Edit": "edit",
    "MultiEdit": "edit",
    "NotebookEdit": "edit",
    "Grep": "search",
    "Glob": "search",
    "LS": "search",
    "Skill": "skill",
    "Task": "subagent",
    "Agent": "subagent",
    "AskUserQuestion": "question",
    "WebFetch": "web",
    "WebSearch": "web",
}

PATH_KEYS = ("file_path", "notebook_path", "path", "filePath", "absolute_path")


def claude_kind(name: str) -> ToolKind:
    if name.startswith("mcp__"):
        return "mcp"
    return CLAUDE_KINDS.get(name, "other")


def relativise(path: str, cwd: str | None) -> str:
    """A workspace-relative POSIX path when ``path`` lies under ``cwd``; else unchanged."""
    if cwd and os.path.isabs(path):
        rel = os.path.relpath(path, cwd)
        if not rel.startswith(".."):
            return rel.replace(os.sep, "/")
    return path[2:] if path.startswith("./") else path


def touched_files(tool_input: dict[str, Any], cwd: str | None) -> list[str]:
    files = []
    for key in PATH_KEYS:
        value = tool_input.get(key)
        if isinstance(value, str) and value:
            files.append(relativise(value, cwd))
    edits = tool_input.get("edits")
    if isinstance(edits, list):
        for edit in edits:
            if isinstance(edit, dict) and isinstance(edit.get("file_path"), str):
                files.append(relativise(edit["file_path"], cwd))
    return list(dict.fromkeys(files))
