"""The session a path names, as ``proctor parse``, :func:`proctor.parse_transcript` and
``proctor record --transcript`` read it: a transcript file, or a folder (a session's, a
project's, a CLI's home, any folder with sessions in it or below it), whose newest session is
the one ``proctor history`` lists newest (a Codex subagent's thread is part of its session, and
a Claude Code file that holds a title alone is no session)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from proctor.agents.spec import format_for_agent
from proctor.errors import ConfigError, ProctorError

if TYPE_CHECKING:
    from proctor.history.layout import Session


def session_in(
    path: Path, agent: str | None = None, *, forcible: bool = True
) -> tuple[Path, str, int]:
    """The transcript file ``path`` names, its format, and how many session files the folder
    ``path`` holds (0 for a file). ``agent`` (an agent id) reads a folder's sessions of that
    agent only and, with ``forcible``, reads a file as that agent's transcript; without
    ``forcible`` a file is read as the format it is in."""
    from proctor.transcripts.detect import session_file

    fmt = format_for_agent(agent) if agent else None
    try:
        given = fmt if forcible or _is_folder(path) else None
        file, found = session_file(path, given, forcible=forcible)
    except ConfigError:
        # A folder of folders of sessions (~/.claude/projects, a backup of several CLIs'
        # histories): the newest session found under it, as for a project folder.
        sessions, others = _sessions_under(path, agent) if _is_folder(path) else ([], "")
        if others:  # sessions of other agents only, which --agent left out
            raise ConfigError(f"{path}: no {fmt} session transcript in this folder: it {others}")
        if not sessions:
            raise
        file, found = _newest(sessions)
        return file, found, len(sessions)
    if not _is_folder(path):
        return file, found, 0
    sessions, others = _sessions_under(path, agent)
    if sessions:  # the newest as proctor history lists them (a thread is a part)
        file, found = _newest(sessions)
    elif not forcible and others:  # the file found is another CLI's, never read as agent's
        raise ConfigError(f"{path}: no {fmt} session transcript in this folder: it {others}")
    elif not forcible:
        found = _sniff_format(file)  # read as the format it is in, as a file given is
    return file, found, len(sessions)


def _sniff_format(file: Path) -> str:
    from proctor.transcripts.detect import session_file

    return session_file(file, None, forcible=False)[1]


def _sessions_under(folder: Path, agent: str | None) -> tuple[list[Session], str]:
    """The main session files anywhere under ``folder``, as ``proctor history FOLDER`` lists
    them (of ``agent``'s only, when given); and when ``agent`` left out every session found,
    what the folder holds instead, as ``history`` says it (``holds sessions of other agents
    only: 8 claude-code sessions``), else ``""``."""
    from proctor.history.sources import AGENTS as HISTORY_AGENTS
    from proctor.history.sources import OTHER_AGENTS_ONLY, sessions_under

    wanted = (format_for_agent(agent),) if agent else HISTORY_AGENTS
    sessions, unavailable = sessions_under(
        [folder], tuple(a for a in wanted if a in HISTORY_AGENTS)
    )
    others = next((u.reason for u in unavailable if u.reason.startswith(OTHER_AGENTS_ONLY)), "")
    return sessions, others.removesuffix(", left out by --agent")


def _newest(sessions: list[Session]) -> tuple[Path, str]:
    """The newest of ``sessions`` (a main session, not a subagent's thread) that holds a
    message, and its format; the newest of them all when none does."""
    from proctor.util.native_paths import newest_file

    agents = {s.file: s.agent for s in sessions}
    left = [Path(s.file) for s in sessions]
    newest = None
    while (file := newest_file(left)) is not None:
        if agents[str(file)] != "claude-code" or _holds_a_message(file):
            return file, agents[str(file)]
        newest = newest or file
        left.remove(file)
    file = newest or Path(sessions[-1].file)
    return file, agents[str(file)]


def _holds_a_message(file: Path) -> bool:
    """Whether a Claude Code session file holds a message (older releases write files that
    hold a title alone beside a session)."""
    from proctor.transcripts.lines import file_lines
    from proctor.util.jsonl import decode_object

    try:
        for line in file_lines(file):
            record = decode_object(line) if b'"type"' in line else None
            if record is not None and record.get("type") in ("user", "assistant"):
                return True
    except ProctorError:  # no longer readable: its parse says so
        return True
    return False


def _is_folder(path: Path) -> bool:
    """Whether ``path`` is a folder; False for one that cannot be looked at (a name too long
    for the system), whose reason the error being raised gives."""
    try:
        return path.is_dir()
    except OSError:
        return False
