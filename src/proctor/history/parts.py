"""Where the parts of a recorded session are: a Claude Code session's subagent files, a Gemini
CLI chat's subagents' chats, and the files a session's cache stamp names. Each folder is listed
once per replay (the listings are cleared when a replay starts)."""

from __future__ import annotations

import functools
import os
from pathlib import Path

from proctor.history.layout import Session
from proctor.util.native_paths import first_record, gemini_subagent_chats, unlisted

__all__ = ["claude_parts", "forget_listings", "gemini_parts", "parts_for_stamp"]


@functools.lru_cache(maxsize=1024)
def legacy_subagents(project_folder: str) -> dict[str, list[Path]]:
    """Subagent files an older Claude Code wrote beside the sessions (``agent-*.jsonl``), by
    the session id they name; read once per project folder, not once per session."""
    found: dict[str, list[Path]] = {}
    for path in _agent_files(Path(project_folder), workflows=False):
        session_id = first_record(path).get("sessionId")
        if isinstance(session_id, str):
            found.setdefault(session_id, []).append(path)
    return found


@functools.lru_cache(maxsize=1024)
def subfolders(project_folder: str) -> frozenset[str]:
    """The folders in a Claude Code project folder (named by the sessions that have subagent
    files): listed once, so that a session without one costs no look-up of its own."""
    try:
        with os.scandir(project_folder) as entries:
            return frozenset(e.name for e in entries if _is(e, folder=True))
    except OSError:
        return frozenset()


def _is(entry: os.DirEntry[str], folder: bool) -> bool:
    """Whether a listed entry is a folder (or a regular file), its link followed; False for
    one whose type cannot be told (a link in a loop): it is listed as unavailable where it is
    a session, and the folder's other entries keep their subagents."""
    try:
        return entry.is_dir() if folder else entry.is_file()
    except OSError:
        return False


def _agent_files(folder: Path, workflows: bool = True) -> list[Path]:
    """The subagent files in ``folder`` (with ``workflows``, and in its ``workflows/<run>/``
    folders); none when it is not there. A folder that is there but cannot be listed is an
    OSError naming it: the session would be measured without its subagents' steps and
    tokens, so it is reported unavailable instead."""
    try:
        with os.scandir(folder) as entries:
            listed = list(entries)
    except (FileNotFoundError, NotADirectoryError):
        return []
    except OSError as exc:
        raise OSError(unlisted(folder, exc)) from exc
    names = sorted(e.name for e in listed if e.name.startswith("agent-") and _is(e, folder=False))
    found = [folder / n for n in names if n.endswith(".jsonl")]
    if workflows and any(e.name == "workflows" for e in listed):
        # A workflow's agents write theirs a folder deeper (workflows/<run>/), each read once
        # (after the others, as the paths sort).
        seen = {path.name for path in found}
        for run in sorted(_subfolders(folder / "workflows"), key=str):
            deeper = _agent_files(run, workflows=False)
            found += [path for path in deeper if path.name not in seen]
            seen.update(path.name for path in deeper)
    return found


def _subfolders(folder: Path) -> list[Path]:
    try:
        with os.scandir(folder) as entries:
            return [Path(e.path) for e in entries if _is(e, folder=True)]
    except OSError as exc:
        raise OSError(unlisted(folder, exc)) from exc


def parts_for_stamp(session: Session) -> list[Path]:
    """The parts a session's stamp names: its subagents' files (a Codex session's threads
    were found with it; a Gemini CLI chat's subagent chats are looked up). None when a Claude
    Code session's or a Gemini CLI chat's subagent folder cannot be listed (its measure then
    reports it unavailable, and nothing is kept of it)."""
    if session.agent == "codex" or session.parts:  # (a Gemini CLI chat's, found listing it)
        return [Path(part) for part in session.parts]
    try:
        if session.agent == "gemini-cli":
            return gemini_parts(session.path)
        return claude_parts(session.file)
    except OSError:
        return []


def gemini_parts(main: Path) -> list[Path]:
    """The subagent chats of the Gemini CLI chat ``main`` (see
    :func:`proctor.util.native_paths.gemini_subagent_chats`), its folder listed once per
    replay."""
    return gemini_subagent_chats(main, subfolders(os.path.dirname(main)), strict=True)


def claude_parts(main: str | Path) -> list[Path]:
    """The subagent files of the Claude Code session ``main`` (see
    :func:`proctor.util.native_paths.claude_subagent_files`, which this matches). The folder
    listings behind it are read once per replay."""
    folder, name = os.path.split(main)
    session_id = name.removesuffix(".jsonl")
    if session_id in subfolders(folder):
        found = _agent_files(Path(folder, session_id, "subagents"))
        if found:
            return found
    return legacy_subagents(folder).get(session_id, [])


def forget_listings() -> None:
    """Forget the folder listings: a replay starts with none (the history may have grown
    since the last)."""
    subfolders.cache_clear()
    legacy_subagents.cache_clear()
