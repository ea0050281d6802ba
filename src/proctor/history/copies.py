"""Copies of one session file under other folders, read once.

A session file's name holds its session's id (a Claude Code ``<id>.jsonl``, a Codex
``rollout-…-<thread id>.jsonl``, a Gemini CLI ``session-<minute>-<first 8 hex digits>.jsonl``):
the same name of the same agent in another folder is a copy (a backup given beside the history,
a conversation copied into another project folder to go on there, a rollout kept in both
``sessions/`` and ``archived_sessions/``, a Gemini CLI chat kept under both its project's hash
and its name).

A copy under another name (``rollout-… (1).jsonl``, a backup renamed ``….backup.jsonl``) is
told once it is read: a Codex rollout and a Gemini CLI chat each hold their session's id, which
no other session's file holds (a resumed session goes on in its own file; a fork or a subagent
has an id of its own). See :func:`each_session_once`.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from proctor.history.layout import Session
    from proctor.history.record import SessionRecord
    from proctor.models.history import Unavailable


_ID_NAME = re.compile(
    r"rollout-.+\.jsonl|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.jsonl"
)
"""A session file's name that holds its id: a Codex rollout's
(``rollout-<time>-<thread id>.jsonl``), a Claude Code session's (``<id>.jsonl``)."""


_GEMINI_NAME = re.compile(r"session-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-[0-9a-f]{8}\.jsonl?")
"""A Gemini CLI chat's name: the minute it started and the first 8 hex digits of its session
id, as good as the id to tell it from the other chats."""


def each_once(sessions: list[Session]) -> list[Session]:
    """``sessions`` with each copy of a session file left out: the same name, which holds the
    session's id (see :data:`_ID_NAME`, :data:`_GEMINI_NAME`), of the same agent, in another
    folder (a backup or a snapshot given beside the history, a conversation copied into
    another project folder to go on there, a rollout kept in both ``sessions/`` and
    ``archived_sessions/``, a Gemini CLI chat kept in both the folder named by its project's
    hash and the one named after the project). The session is read once, from the copy
    :func:`_copy_rank` puts first (the larger), the first listed when they rank alike, at the
    place of the first listed. A Gemini CLI chat of the older releases (``session-….json``)
    beside the ``session-….jsonl`` that resuming it wrote (a copy of its messages, then the
    new turns; the ``.json`` is left in place), or with that ``.jsonl`` in another folder
    given, is read from the ``.jsonl`` only."""
    first: dict[tuple[str, str], int] = {}
    out: list[Session] = []
    chats = [s.file for s in sessions if s.agent == "gemini-cli" and s.file.endswith(".jsonl")]
    migrated = {*chats, *(n for n in map(os.path.basename, chats) if _GEMINI_NAME.fullmatch(n))}
    for session in sessions:
        file = session.file
        name = file[file.rfind(os.sep) + 1 :]  # its basename, without a call per session
        gemini = session.agent == "gemini-cli"
        if gemini and (file + "l" in migrated or name + "l" in migrated):
            continue  # read from the .jsonl its resume wrote
        at = first.setdefault((session.agent, name), len(out))
        # The name is matched only when it is met again (most never are).
        if at == len(out) or not (_GEMINI_NAME if gemini else _ID_NAME).fullmatch(name):
            out.append(session)
            continue
        if _copy_rank(session) > _copy_rank(out[at]):
            kept, other = session, out[at]
        else:
            kept, other = out[at], session
        if gemini:
            _subagents_kept(kept, other)
        out[at] = kept
    return out


def _subagents_kept(kept: Session, other: Session) -> None:
    """A Gemini CLI chat read from one copy (``kept``) with the subagent chats beside the
    other, when only that one has them (a chat kept under its project's hash with its
    subagents' folder, and under the project's name without): a subagent's steps and tokens
    are its session's, wherever the copy read lies."""
    from pathlib import Path

    from proctor.util.native_paths import gemini_subagent_chats

    if kept.parts or gemini_subagent_chats(Path(kept.file)):
        return
    found = other.parts or tuple(map(str, gemini_subagent_chats(Path(other.file))))
    kept.parts = tuple(found)


def _copy_rank(session: Session) -> tuple[int, bool]:
    """Which copy of a session to read: the larger (a session file only grows); of two the
    same size, a Gemini CLI chat in a folder that names its project (``.project_root``) over
    one in the folder named by the project's hash, which knows the project by its hash only."""
    rooted = session.agent == "gemini-cli" and os.path.isfile(
        os.path.join(os.path.dirname(os.path.dirname(session.file)), ".project_root")
    )
    return _size(session.file), rooted


def _size(file: str) -> int:
    try:
        return os.stat(file).st_size
    except OSError:
        return -1


_BY_ID = ("codex", "gemini-cli")
"""The agents whose session files are told apart by the session id they hold. (A Claude
Code session's copies and forks are told by the responses and lines they share, with the
session id its lines carry: see :mod:`proctor.history.forks`.)"""


def each_session_once(
    records: list[SessionRecord],
) -> tuple[list[SessionRecord], list[Unavailable]]:
    """``records`` with each Codex or Gemini CLI session read from two files (the same agent
    and session id) kept once, from the larger file (a session file only grows; of two the
    same size, the one named as the CLI names it, then the first path), and each other file
    listed unavailable as a copy of it."""
    from proctor.models.history import Unavailable

    groups: dict[tuple[str, str], list[SessionRecord]] = {}
    for record in records:
        if record.agent in _BY_ID and record.session_id:
            groups.setdefault((record.agent, record.session_id), []).append(record)
    copies: dict[int, str] = {}
    for group in groups.values():
        if len(group) > 1:
            kept, *others = sorted(group, key=_original_first)
            copies.update((id(other), kept.path) for other in others)
    if not copies:
        return records, []
    gone = [
        Unavailable(
            agent=record.agent,
            path=record.path,
            reason=f"a copy of the session in {copies[id(record)]} (the same session id), "
            "counted there",
        )
        for record in records
        if id(record) in copies
    ]
    return [record for record in records if id(record) not in copies], gone


_ROLLOUT_NAME = re.compile(
    r"rollout-[0-9T-]+-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.jsonl"
)
"""A Codex rollout's name as Codex writes it (``rollout-<time>-<thread id>.jsonl``)."""


def _original_first(record: SessionRecord) -> tuple[int, bool, str]:
    return copy_first(record.path, record.agent)


def copy_first(path: str, agent: str = "codex") -> tuple[int, bool, str]:
    """The order in which copies of one session file are kept: the larger first (a session
    file only grows), then the one named as the CLI names it, then the first path."""
    name = os.path.basename(path)
    named = (_GEMINI_NAME if agent == "gemini-cli" else _ROLLOUT_NAME).fullmatch(name)
    return -_size(path), named is None, path
