"""Timestamps and durations as proctor writes them."""

from __future__ import annotations

import os
import re
import time
from datetime import UTC, date, datetime
from pathlib import Path

# A POSIX TZ string gives its own offset (``EST5EDT``, ``<+03>-3``): the system needs no file.
_POSIX_TZ = re.compile(r"(?:[A-Za-z]{3,}|<[A-Za-z0-9+-]{3,}>)[+-]?\d")
_UTC_NAMES = frozenset({"UTC", "UCT", "GMT", "Zulu", "Universal", "Etc/UTC", "Etc/GMT"})


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


def unknown_tz() -> str | None:
    """``TZ`` when it is set to a zone this system does not know (``Nowhere/Land``: no file of
    that name among its zones, and no POSIX offset), which the C library reads as UTC; None
    when ``TZ`` is unset, empty or names a zone the system has."""
    tz = os.environ.get("TZ", "")
    name = tz.lstrip(":")
    if not name or name in _UTC_NAMES or _POSIX_TZ.match(name):
        return None
    folder = Path(os.environ.get("TZDIR") or "/usr/share/zoneinfo")
    try:
        if (Path(name) if name.startswith("/") else folder / name).is_file():
            return None
    except (OSError, ValueError):  # a name too long, or with a NUL byte
        pass
    return tz


def local_zone() -> str:
    """The machine's time zone as its user set it: ``TZ`` when set (``Europe/Paris``), else
    the zone's abbreviation (``UTC``, ``CET``); ``UTC`` when ``TZ`` names a zone the system
    does not know (see :func:`unknown_tz`)."""
    if unknown_tz() is not None:
        return "UTC"
    return os.environ.get("TZ", "").lstrip(":") or datetime.now().astimezone().tzname() or "UTC"


def local_clock() -> str:
    """Which clock local days and times are on, to follow "days of" or "times of": ``the
    local time zone, Europe/Paris``, or ``UTC, since TZ=Nowhere/Land names no time zone this
    system knows``."""
    unknown = unknown_tz()
    if unknown is not None:
        return f"UTC, since TZ={unknown} names no time zone this system knows"
    return f"the local time zone, {local_zone()}"
