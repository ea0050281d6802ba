"""Where the copy of a parent thread's history ends, in a forked or spawned thread's rollout.

A thread forked from another, or spawned with its parent's context, begins its rollout with a
copy of the parent's history (see :mod:`proctor.transcripts.codex.parser`). The copy is the
lines before the ``ordinal`` its header gives as ``subagent_history_start_ordinal`` (Codex
0.171); without one, the burst of lines written from the header's time on, each within a few
milliseconds of the one before: Codex stamps each line as it writes it, and the thread's own
first line comes after a pause.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

COPY_STEP = timedelta(milliseconds=5)
"""The longest pause between two lines of a copied history written without ordinals: Codex
0.171 wrote 168 copied lines within 6 ms (one line every few hundredths of a millisecond),
and the thread's own first line 11 to 18 ms after the last copied one."""


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

    @property
    def open(self) -> bool:
        return self.since is not None or self.until is not None

    def starts_at(self, ts: str) -> None:
        """A copy found by time, from a header written at ``ts``."""
        self.since, self.last = ts, None

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
