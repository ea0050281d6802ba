"""The copy of a parent thread's history that begins a forked or spawned thread's rollout.

A thread forked from another (``forked_from_id``), or spawned as a subagent with its parent's
context (``source.subagent.thread_spawn``, ``spawn_agent`` with ``fork_context``), begins its
rollout with a copy of the parent's history: the parent's ``session_meta`` and items, stamped
as they were copied, from the time of the thread's own ``session_meta`` on (what the parse
makes of them: see :mod:`proctor.transcripts.codex.parser`). The copy is the lines before the
``ordinal`` a subagent's header gives as ``subagent_history_start_ordinal`` (Codex 0.171);
without one, the burst of lines written right after a ``session_meta`` that names a parent,
or from a ``session_meta`` of another thread on, from the header's time, each within a few
milliseconds of the one before: Codex stamps each line as it writes it (a long copy spans
several milliseconds), and the thread's own first line comes after a pause. A thread whose
header says its history stays in the parent's rollout (``history_mode`` ``paginated``;
``codex exec fork`` adds ``forked_from_ordinal_exclusive`` and ``history_base``) copies
nothing.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from proctor.transcripts.codex.shapes import spawned_by

COPY_STEP = timedelta(milliseconds=5)
"""The longest pause between two lines of a copied history written without ordinals: Codex
0.171 wrote 168 copied lines within 6 ms (one line every few hundredths of a millisecond),
and the thread's own first line 11 to 18 ms after the last copied one."""


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def parent_thread(meta: dict[str, Any]) -> str | None:
    """The thread a rollout's own ``session_meta`` says it was forked or spawned from."""
    return (
        _text(meta.get("forked_from_id")) or _text(meta.get("parent_thread_id")) or spawned_by(meta)
    )


def paginated(meta: dict[str, Any]) -> bool:
    """Whether a thread's header says its history stays in the parent's rollout, so that its
    rollout holds its own lines only: Codex 0.171 writes ``history_mode`` ``paginated``, and
    gives ``subagent_history_start_ordinal`` when it does copy (``spawn_agent`` with
    ``fork_context``); ``codex exec fork`` adds the parent's ordinal the fork continues from."""
    return (
        meta.get("history_mode") == "paginated"
        or "forked_from_ordinal_exclusive" in meta
        or isinstance(meta.get("history_base"), dict)
    )


class CopiedHistory:
    """The copy being read: open from a header that names a parent (or the header of another
    thread) until the first line that is the thread's own."""

    def __init__(self) -> None:
        self.since: str | None = None
        """Without ordinals: the time of the header the copy starts at."""
        self.until: int | None = None
        """The ``ordinal`` of the thread's first own line, when its header gives it."""
        self.last: datetime | None = None
        """The time of the last line read as copied (a copy without ordinals)."""
        self.parent: str | None = None
        """The thread the copy is of, until the first copied line has said so."""

    @property
    def open(self) -> bool:
        return self.since is not None or self.until is not None

    def own_header(self, meta: dict[str, Any], ts: str | None) -> None:
        """The thread's own ``session_meta`` (``meta``), written at ``ts``: a copy follows when
        it names a parent, unless the history stays in the parent's rollout."""
        parent = parent_thread(meta)
        start = meta.get("subagent_history_start_ordinal")
        if parent is not None and type(start) is int:
            self.until, self.parent = start, parent
        elif parent is not None and paginated(meta):
            pass  # the history stays in the parent's rollout: nothing is copied
        elif parent is not None and ts is not None:
            self.starts_at(ts, parent)

    def starts_at(self, ts: str, parent: str) -> None:
        """A copy of thread ``parent``'s history found by time, from a header written at
        ``ts``."""
        self.since, self.last, self.parent = ts, None, parent

    def announced(self) -> str | None:
        """The thread the copy is of, the first time it is asked for only."""
        parent, self.parent = self.parent, None
        return parent

    def close(self) -> None:
        """The thread's own lines from here."""
        self.since = self.until = self.last = None

    def holds(self, record: dict[str, Any], ts: str | None) -> bool:
        """Whether the line ``record``, written at ``ts``, is part of the copy."""
        if self.until is not None:
            ordinal = record.get("ordinal")
            return type(ordinal) is int and ordinal < self.until
        if self.last is None:  # the first copied line: at the header's own time
            if ts != self.since:
                return False
            self.last = _moment(ts)
            return self.last is not None
        moment = _moment(ts)
        if moment is None or not timedelta(0) <= moment - self.last <= COPY_STEP:
            self.last = None
            return False
        self.last = moment
        return True


def _moment(ts: str | None) -> datetime | None:
    if ts is None:
        return None
    try:
        moment = datetime.fromisoformat(ts)
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
