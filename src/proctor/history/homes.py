"""What tells a CLI's own folder (``~/.claude``, ``~/.codex``, ``~/.gemini``, or one of another
name that ``CLAUDE_CONFIG_DIR``, ``CODEX_HOME`` or ``GEMINI_CLI_HOME`` names) from a plain
folder that happens to hold a ``projects/``, ``sessions/`` or ``tmp/`` folder."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from proctor.history.listing import unreachable

CLI_FOLDER_MARKS = {
    "projects": (
        "settings.json",
        ".credentials.json",
        "history.jsonl",
        "plugins",
        "todos",
        "statsig",
        "shell-snapshots",
    ),
    "sessions": ("config.toml", "auth.json", "history.jsonl"),
    "archived_sessions": ("config.toml", "auth.json", "history.jsonl"),
    "tmp": ("settings.json", "oauth_creds.json", "google_accounts.json", "installation_id"),
}
"""Files a Claude Code, Codex or Gemini CLI folder holds beside its projects/, sessions/
(archived_sessions/) or tmp/: a folder of that name elsewhere (``~/sessions``, ``/tmp``) is no
CLI's."""

CLI_FOLDERS = (".claude", ".codex", ".gemini")
"""The names of the CLIs' own folders (``~/.claude``, …)."""

OWN_FOLDERS = {"claude-code": ".claude", "codex": ".codex", "gemini-cli": ".gemini"}
"""The name of each CLI's own folder."""

USER_MARKS = {
    "claude-code": (
        ".credentials.json",
        "history.jsonl",
        "plugins",
        "todos",
        "statsig",
        "shell-snapshots",
    ),
    "codex": ("auth.json", "history.jsonl"),
    "gemini-cli": ("oauth_creds.json", "google_accounts.json", "installation_id"),
}
"""What a CLI keeps in its own folder in the home folder, never in a project's folder of the
same name (a repository's ``.claude/`` holds ``settings.json``, ``commands/``, ``agents/``…)."""


KEPT_FOLDERS = {
    "claude-code": (
        "plugins",
        "todos",
        "tasks",
        "teams",
        "plans",
        "statsig",
        "shell-snapshots",
        "session-env",
        "file-history",
        "sessions",
        "ide",
        "debug",
        "paste-cache",
        "image-cache",
        "cache",
        "backups",
        "downloads",
        "telemetry",
        "usage-data",
        "local",
        "commands",
        "agents",
        "skills",
        "hooks",
        "output-styles",
        "rules",
        "startup-perf",
        "feedback-bundles",
        "themes",
        "dump-prompts",
        "daemon",
        "chrome",
        "traces",
        # Found in Claude Code 2.1.197's own code, none holding a session ("project
        # transcripts" are in projects/ only, says its purge): jobs/ (a background job's
        # state.json, adopt.json and tmp/ for its scratch files), workflows/ and routines/ (the
        # user's workflow scripts and routines, as commands/), uploads/<session> (files
        # attached to a session), shares/ (cc-transcript-*.txt and .zip of shared
        # transcripts), agent-memory/ (subagents' memory files) and mcp-skill-archives/.
        "jobs",
        "workflows",
        "routines",
        "uploads",
        "shares",
        "agent-memory",
        "mcp-skill-archives",
    ),
    "codex": (
        "plugins",
        "skills",
        "prompts",
        "rules",
        "memories",
        "log",
        "shell_snapshots",
        "cache",
        "vendor_imports",
        "worktrees",
        ".tmp",
        # Found in Codex 0.171.0's binary: $CODEX_HOME/generated_images (its image_gen
        # tool's output), attachments/ (files a TUI session attaches), $CODEX_HOME/themes
        # (*.tmTheme), agents/ and hooks/ (hooks.json), packages/app-server-daemon (its
        # daemon's installed package).
        "generated_images",
        "attachments",
        "themes",
        "agents",
        "hooks",
        "packages",
    ),
    "gemini-cli": (
        "extensions",
        "commands",
        "skills",
        "agents",
        "policies",
        "history",
        "antigravity",
        # Found in Gemini CLI 0.61.0's bundle: bin/litert (the LiteRT-LM binary),
        # whisper_models/ (voice input's models) and acknowledgments/agents.json.
        "bin",
        "whisper_models",
        "acknowledgments",
    ),
}
"""The folders a CLI keeps in its own folder beside its sessions that hold none of the user's
sessions: its plugins (cloned from marketplaces, with their test fixtures), skills, commands
and extensions, its to-do lists, its running sessions' registry (``sessions/<pid>.json`` of
Claude Code), its file snapshots, logs and caches, its own installation (``local/``). In a
CLI's own folder these are not searched; every other folder in it is, as any folder is."""


NO_SESSIONS = frozenset({".git", ".hg", ".svn", "node_modules"})
"""Folders searched for sessions nowhere: a version control's store (a ``~/.claude`` kept in a
dotfiles repository holds a ``.git`` of thousands of objects) and installed packages."""


def kept_folders(agents: Iterable[str]) -> frozenset[str]:
    """The names of the folders :data:`KEPT_FOLDERS` says the CLIs ``agents`` keep."""
    return frozenset(name for agent in agents for name in KEPT_FOLDERS[agent])


def named_for(folder: str | Path) -> str | None:
    """The CLI whose own folder's name ``folder`` has (``.claude``: ``claude-code``), or None."""
    name = os.path.basename(os.path.abspath(folder))
    return next((agent for agent, own in OWN_FOLDERS.items() if own == name), None)


def unrecorded_home(folder: str | Path) -> str | None:
    """The CLI whose own folder ``folder`` is, before it recorded any session: named as its
    folder is and holding what it keeps there beside its sessions (``~/.claude`` with
    ``todos/`` and ``plugins/``), but not yet its folder of sessions; None for any other."""
    agent = named_for(folder)
    if agent is None:
        return None
    return (
        agent if any(os.path.exists(os.path.join(folder, m)) for m in USER_MARKS[agent]) else None
    )


def cli_folder(folder: str | Path, sessions: str) -> bool:
    """Whether ``folder``, which holds the folder of sessions ``sessions`` (``projects``,
    ``sessions``, ``archived_sessions`` or ``tmp``), is a CLI's own folder: named ``.claude``,
    ``.codex`` or ``.gemini``, or holding what such a folder holds beside its sessions."""
    marks = CLI_FOLDER_MARKS.get(sessions)
    if marks is None:
        return False
    if os.path.basename(os.path.normpath(folder)) in CLI_FOLDERS:
        return True
    # (os.path.exists: a folder proctor may not enter holds nothing it can tell.)
    return any(os.path.exists(os.path.join(folder, mark)) for mark in marks)


HOME_VARIABLES = {
    "claude-code": "CLAUDE_CONFIG_DIR set to its folder",
    "codex": "CODEX_HOME set to its folder",
    "gemini-cli": "GEMINI_CLI_HOME set to the folder that holds its .gemini",
}
"""The variable each CLI reads to keep its history elsewhere than under the home folder."""


def _elsewhere(agent: str, home: Path | None, env: Mapping[str, str]) -> str:
    """The next step when ``agent``'s history is not where it was looked for: where else it
    may be, and how to have it read (the variable is not read under ``--home``; one set
    already named the folder looked in, and is said so rather than advised)."""
    if home is not None:
        return "a history kept elsewhere is read when its folder is given as a PATH"
    variable = HOME_VARIABLES[agent].split(" ", 1)[0]
    if env.get(variable):
        return (
            f"{variable}, as set, leads here: a history kept elsewhere is read with "
            f"{HOME_VARIABLES[agent]} instead, or with its folder given as a PATH"
        )
    return (
        f"a history kept elsewhere is read with {HOME_VARIABLES[agent]}, or with its "
        "folder given as a PATH"
    )


def missing_reason(
    agent: str, folder: Path, home: Path | None = None, env: Mapping[str, str] | None = None
) -> str | None:
    """Why ``agent``'s history ``folder`` is not there to be read, with where else it may be;
    None when it is. (The folder is the line's own path: the reason does not name it again.)"""
    elsewhere = _elsewhere(agent, home, env or {})
    wanted = {"claude-code": "projects", "codex": "sessions", "gemini-cli": "tmp"}[agent]
    try:
        if not folder.is_dir():
            if folder.exists():  # a file (or a pipe) where the CLI keeps its folder
                return f"not a folder: {agent} keeps no history there"
            return f"no such folder: {agent} has recorded no session here; {elsewhere}"
        if agent == "codex" and (folder / "archived_sessions").is_dir():
            return None
        inner = folder / wanted
        if not inner.is_dir():
            if inner.exists():  # a file where the CLI keeps its sessions
                return f"{inner} is not a folder: {agent} keeps no session there"
            return f"no {wanted}/ folder in it: {agent} has recorded no session here; {elsewhere}"
    except OSError as exc:  # the folder, or one above it, cannot be entered
        return unreachable(exc, folder)
    return None
