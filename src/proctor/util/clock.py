"""Timestamps and durations as proctor writes them."""

from __future__ import annotations

import time
from datetime import UTC, date, datetime


def now_iso() -> str:
    """Now in UTC, ISO-8601 with milliseconds and a ``Z``."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def ms_since(start: float) -> float:
    """Milliseconds since ``start`` (a ``time.monotonic()`` reading), to the microsecond."""
    return round((time.monotonic() - start) * 1000, 3)


def utc_day(moment: datetime | str | None) -> date | None:
    """The day of ``moment`` (a time, or its ISO text) in UTC, the day a list price is taken
    on; the day in its own offset when it has no UTC day (a damaged clock's year 1); None
    when there is no time, or its text is not one."""
    if isinstance(moment, str):
        try:
            moment = datetime.fromisoformat(moment)
        except ValueError:
            return None
    if moment is None:
        return None
    if moment.utcoffset():
        try:
            moment = moment.astimezone(UTC)
        except (OverflowError, ValueError):
            pass
    return moment.date()
