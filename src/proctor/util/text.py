"""Small text helpers shared by the Markdown writers."""

from __future__ import annotations


def table_cell(text: str) -> str:
    """``text`` safe inside a Markdown table cell: a ``|`` would start a new cell and a line
    break would end the row."""
    return text.replace("|", "\\|").replace("\r\n", " ").replace("\n", " ").replace("\r", " ")
