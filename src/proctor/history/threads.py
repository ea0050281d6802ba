"""Codex subagents' threads folded into the sessions that spawned them, each thread read
once."""

from __future__ import annotations

from typing import TYPE_CHECKING

from proctor.history.copies import copy_first
from proctor.models.history import Unavailable

if TYPE_CHECKING:
    from proctor.history.layout import Session


def threads_folded(
    sessions: list[Session], copies: list[Unavailable] | None = None
) -> list[Session]:
    """``sessions`` with each Codex subagent's thread (a rollout whose header says the thread
    that spawned it) made a part of the session it was spawned in, when that session is
    among them: a subagent's work is its session's, as a Claude Code subagent's is. A thread
    whose session is not among them stays a session of its own. A subagent's rollout kept
    under two names is read once, and the other added to ``copies``."""
    rollouts = [s.file for s in sessions if s.agent == "codex"]
    if not rollouts:  # the Codex reader is not even imported
        return sessions
    from proctor.transcripts.codex.threads import spawners, thread_of

    # Each subagent's rollout: the thread that spawned it (told from the rollout's first bytes).
    spawner = spawners(rollouts)
    if not spawner:
        return sessions
    by_thread = {thread_of(s.file): s for s in sessions if s.agent == "codex"}

    def root(session: Session) -> Session:
        seen = {session.file}
        while session.file in spawner:
            parent = by_thread.get(spawner[session.file])
            if parent is None or parent.file in seen:
                break  # spawned in a session not replayed (or a loop): the top one found
            seen.add(parent.file)
            session = parent
        return session

    # Each session's subagent threads, by thread: a rollout kept under a second name (a sync
    # conflict's `… (1).jsonl`) is the same thread, read once (see thread_copies_apart).
    parts: dict[str, dict[str | None, list[str]]] = {}
    kept: list[Session] = []
    for session in sessions:
        top = root(session) if session.file in spawner else session
        if top is session:
            kept.append(session)
        else:
            thread = thread_of(session.file)
            parts.setdefault(top.file, {}).setdefault(thread, []).append(session.file)
    for session in kept:
        if session.file in parts:
            threads = parts[session.file]
            session.parts = tuple(sorted(thread_copies_apart(threads, copies)))
    return kept


def thread_copies_apart(
    threads: dict[str | None, list[str]], copies: list[Unavailable] | None
) -> list[str]:
    """One rollout of each subagent thread (of files whose thread is known): the one
    :func:`~proctor.history.copies.copy_first` puts first; each other is added to ``copies``
    as a copy of it."""
    chosen: list[str] = []
    for thread, files in threads.items():
        if thread is None or len(files) == 1:
            chosen += files
            continue
        first, *others = sorted(files, key=copy_first)
        chosen.append(first)
        if copies is not None:
            reason = (
                f"a copy of the subagent's thread in {first} (the same thread id), counted there"
            )
            copies += [Unavailable(agent="codex", path=other, reason=reason) for other in others]
    return chosen
