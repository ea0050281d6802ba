"""Copies of one session file under other folders, read once.

A session file's name holds its session's id (a Claude Code ``<id>.jsonl``, a Codex
``rollout-…-<thread id>.jsonl``, a Gemini CLI ``session-<minute>-<first 8 hex digits>.jsonl``):
the same name of the same agent in another folder is a copy (a backup given beside the history,
a conversation copied into another project folder to go on there, a rollout kept in both
``sessions/`` and ``archived_sessions/``, a Gemini CLI chat kept under both its project's hash
and its name).
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from proctor.history.sources import Session


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
    gemini = [s.file for s in sessions if s.agent == "gemini-cli" and s.file.endswith(".jsonl")]
    migrated = {*gemini, *(n for n in map(os.path.basename, gemini) if _GEMINI_NAME.fullmatch(n))}
    for session in sessions:
        name = os.path.basename(session.file)
        if session.agent == "gemini-cli":
            if session.file + "l" in migrated or name + "l" in migrated:
                continue  # read from the .jsonl its resume wrote
            named = _GEMINI_NAME.fullmatch(name)
        else:
            named = _ID_NAME.fullmatch(name)
        at = first.setdefault((session.agent, name), len(out))
        if at == len(out) or not named:
            out.append(session)
        elif _copy_rank(session) > _copy_rank(out[at]):
            out[at] = session
    return out


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
