"""Claude Code sessions of assistant lines with the same token counts, for the tests of what
a response's ``usage`` says beyond its counts (fast mode, US-only inference): one line a
response, written to a session file, read by every reader, and measured as a history does."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from proctor.history.layout import Session
from proctor.history.replay import measure_session
from proctor.models.pricing import PriceTable
from proctor.models.trajectory import ModelUsage
from proctor.transcripts.claude import claude_usage_totals, parse_claude_session
from proctor.transcripts.claude.measure import parse_claude_for_measure
from tests.unit.transcripts.test_hour_writes import _line as assistant_line


def usage_line(number: int, model: str, prompt: int = 1000, **usage: Any) -> str:
    """A response of ``model``: ``prompt`` input tokens, 200 output, 3,000 cache reads, 100
    written for five minutes and 300 for an hour, and the ``usage`` fields given (None: left
    out)."""
    counts: dict[str, Any] = {
        "input_tokens": prompt,
        "output_tokens": 200,
        "cache_read_input_tokens": 3000,
        "cache_creation_input_tokens": 400,
        "cache_creation": {"ephemeral_5m_input_tokens": 100, "ephemeral_1h_input_tokens": 300},
    }
    counts.update((key, value) for key, value in usage.items() if value is not None)
    return assistant_line(number, counts, model)


def response_dollars(i: float, o: float, times: float = 1.0) -> float:
    """What one response of :func:`usage_line` (1,000 input tokens) costs at input rate ``i``
    and output rate ``o`` per million, with Claude's cache multiples (reads a tenth, writes
    for five minutes 1.25 times, for an hour twice), ``times`` over."""
    return times * (1000 * i + 200 * o + 3000 * i / 10 + 100 * 1.25 * i + 300 * 2 * i) / 1e6


def session_file(folder: Path, lines: list[str]) -> Path:
    path = folder / "s-1.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def measured(path: Path, pricing: PriceTable | None = None) -> dict[str, Any]:
    """The session's summary as a history replay writes it."""
    blob = measure_session(Session("claude-code", path), None, pricing or PriceTable())
    assert isinstance(blob, bytes)
    summary: dict[str, Any] = orjson.loads(blob.split(b"\x00", 1)[0])
    return summary


def read_alike(path: Path) -> dict[str, ModelUsage]:
    """The session's usage per model, the same by the full parse, the token totals, the reader
    for a measure and the history's summary."""
    full = parse_claude_session(path).usage
    assert claude_usage_totals(path) == full
    assert parse_claude_for_measure(path).usage == full
    assert set(measured(path)["usage"]) == set(full)
    return full
