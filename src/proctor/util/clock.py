"""Timestamps and durations as proctor writes them."""

from __future__ import annotations

import time
from datetime import UTC, datetime


def now_iso() -> str:
    """Now in UTC, ISO-8601 with milliseconds and a ``Z``."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def ms_since(start: float) -> float:
    """Milliseconds since ``start`` (a ``time.monotonic()`` reading), to the microsecond."""
    return round((time.monotonic() - start) * 1000, 3)
