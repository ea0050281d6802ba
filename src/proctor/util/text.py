"""Small text helpers shared by the Markdown writers."""

from __future__ import annotations


def table_cell(text: str) -> str:
    """``text`` safe inside a Markdown table cell: a ``|`` would start a new cell and a line
    break would end the row."""
    return text.replace("|", "\\|").replace("\r\n", " ").replace("\n", " ").replace("\r", " ")


def duration_text(seconds: float | None) -> str:
    """A time as people read it: ``42.5 s``, ``5m 30s``, ``2h 05m``, ``3d 04h``."""
    if seconds is None:
        return "–"
    if seconds < 60:
        return f"{seconds:.1f} s"
    whole = round(seconds)
    minutes, secs = divmod(whole, 60)
    hours, minutes = divmod(minutes, 60)
    days, hours = divmod(hours, 24)
    if days:
        return f"{days}d {hours:02d}h"
    if hours:
        return f"{hours}h {minutes:02d}m"
    return f"{minutes}m {secs:02d}s"
