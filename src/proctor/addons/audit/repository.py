"""Where a repository's root is, as the CLIs tell it: the rule the audit walks up by, and the
one Codex trusts and layers its project config by (``proctor hooks test`` reuses it); and what
the CLIs read in the folders above a project."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

__all__ = ["ABOVE_ENTRIES", "is_repository", "marks_root", "repository_root"]

ABOVE_ENTRIES = (
    "CLAUDE.md",
    "CLAUDE.local.md",
    ".mcp.json",
    ".claude",
    "AGENTS.md",
    "AGENTS.override.md",
    ".agents",
    ".codex",
    "GEMINI.md",
    ".gemini",
)
"""What Claude Code, Codex and Gemini CLI read in a folder above the project."""


def marks_root(folder: Path) -> bool:
    """Whether ``folder`` holds a ``.git`` of any kind (a folder, even an empty one, or a
    worktree's ``.git`` file): where Claude Code 2.1.197 (``.git`` a folder or file), Gemini CLI
    and Codex 0.171's ``AGENTS.md`` and skills walk (``project_root_markers``) stop going up."""
    return os.path.exists(folder / ".git")


def is_repository(folder: Path) -> bool:
    """Whether ``folder`` is a repository's root as Codex 0.171 tells it for the
    ``.codex/config.toml`` and ``hooks.json`` it layers and for trust: a ``.git`` file (a
    worktree's), or a ``.git`` folder holding ``HEAD`` (an empty ``.git`` folder is none;
    measured with ``codex mcp list``)."""
    dot_git = folder / ".git"
    return dot_git.is_file() or os.path.exists(dot_git / "HEAD")


def repository_root(project: Path, is_root: Callable[[Path], bool] = marks_root) -> Path | None:
    """The nearest folder at or above ``project`` that ``is_root`` takes for a repository's
    root, or None."""
    return next((f for f in (project, *project.parents) if is_root(f)), None)
