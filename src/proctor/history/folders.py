"""Where each agent keeps its sessions: its history folder (see :mod:`proctor.history.sources`)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path


def history_folders(agent: str, home: Path | None, env: Mapping[str, str]) -> list[Path]:
    """The folders where ``agent`` keeps its sessions: :func:`history_folder`, but that
    ``CLAUDE_CONFIG_DIR`` may list several, separated by commas, each with the spaces around
    it left out, as ccusage reads it (a Claude Code configuration folder per account, say),
    unless the whole value names a folder. None when it names no folder (``","``, ``" , "``:
    see :func:`unnamed_config_dir`)."""
    value = env.get("CLAUDE_CONFIG_DIR") or ""
    # (os.path.isdir: a value that cannot be looked at is split, and each part reported.)
    if agent != "claude-code" or home is not None or not value or os.path.isdir(value):
        return [history_folder(agent, home, env)]
    named = [absolute(part.strip()) for part in value.split(",") if part.strip()]
    return list(dict.fromkeys(named))


def unnamed_config_dir(agent: str, home: Path | None, env: Mapping[str, str]) -> str | None:
    """Why ``agent``'s history folders are none (``CLAUDE_CONFIG_DIR`` set to commas and
    spaces only, which name no folder, as :func:`history_folders` splits it); None when they
    are not."""
    if history_folders(agent, home, env):
        return None
    value = env.get("CLAUDE_CONFIG_DIR", "")
    return (
        f"set to {value!r}, which names no folder (only commas and spaces): set it to "
        "Claude Code's configuration folder (several separated by commas), or unset it to "
        "read ~/.claude"
    )


def history_folder(agent: str, home: Path | None, env: Mapping[str, str]) -> Path:
    """The folder where ``agent`` keeps its sessions (see the table above), absolute: a
    relative ``--home``, ``CLAUDE_CONFIG_DIR``, ``CODEX_HOME`` or ``GEMINI_CLI_HOME`` is taken
    from the current folder, as the CLI takes it, and its sessions' paths are absolute too."""
    return absolute(_history_folder(agent, home, env))


def absolute(path: str | Path) -> Path:
    """``path`` from the current folder when it is relative, its ``..`` taken off as the
    CLIs take them (Node's ``path.resolve``) and as the history cache keys its rows; an
    absolute path as it is given."""
    return Path(path if os.path.isabs(path) else os.path.abspath(path))


def absolute_given(path: Path) -> Path:
    """A ``PATH`` given on the command line, from the current folder: its ``..`` taken as the
    system takes it, after the link before it (``link/..`` is the folder above the link's
    target, as ``ls link/..`` lists it), where :func:`absolute` takes it off by name."""
    if ".." not in path.parts:
        return absolute(path)
    try:
        return Path(os.path.realpath(path))
    except (OSError, ValueError):  # a loop of links, a NUL: as named
        return absolute(path)


def _history_folder(agent: str, home: Path | None, env: Mapping[str, str]) -> Path:
    if agent == "claude-code":
        if home is None and env.get("CLAUDE_CONFIG_DIR"):
            return Path(env["CLAUDE_CONFIG_DIR"])
        return (home or _user_home(env)) / ".claude"
    if agent == "codex":
        if home is None and env.get("CODEX_HOME"):
            return Path(env["CODEX_HOME"])
        return (home or _user_home(env)) / ".codex"
    if home is None and env.get("GEMINI_CLI_HOME"):
        return Path(env["GEMINI_CLI_HOME"]) / ".gemini"
    return (home or _user_home(env)) / ".gemini"


def _user_home(env: Mapping[str, str]) -> Path:
    return Path(env.get("HOME") or Path.home())
