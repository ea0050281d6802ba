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


def in_utc(moment: datetime) -> datetime:
    """``moment`` in UTC; in its own offset when it has no UTC time (a damaged clock's year 1,
    east of UTC). A time without an offset is left as it is."""
    if moment.utcoffset():
        try:
            return moment.astimezone(UTC)
        except (OverflowError, ValueError):
            pass
    return moment


def utc_day(moment: datetime | str | None) -> date | None:
    """The day of ``moment`` (a time, or its ISO text) in UTC (see :func:`in_utc`), the day a
    list price is taken on; None when there is no time, or its text is not one."""
    if isinstance(moment, str):
        try:
            moment = datetime.fromisoformat(moment)
        except ValueError:
            return None
    return None if moment is None else in_utc(moment).date()
