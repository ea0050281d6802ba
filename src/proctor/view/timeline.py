"""One page of a trial's trajectory as a timeline: each tool call beside its result, usage
attached to the step that spent it, time since the previous event, errors and denials marked.
Lines that are not events are shown as they are, never dropped."""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from pydantic import ValidationError

from proctor.models.trajectory import (
    EVENT_ADAPTER,
    Event,
    ToolCall,
    ToolResult,
    Usage,
    is_harness_call,
)
from proctor.util.cutting import clear_cut, cut_line
from proctor.view.offsets import LineOffsets, read_lines


@dataclass
class Step:
    number: int
    """The event's line in ``trajectory.jsonl`` (0-based): its anchor on the page."""
    event: Event | None
    raw: str | None = None
    """The line itself, when it is not an event this proctor can read."""
    tool_index: int | None = None
    """For a tool call: its index among the trial's tool calls (the metrics' step); None for
    a search of the agent's own tool list, which is no step."""
    result: ToolResult | None = None
    usage: Usage | None = None
    delta_ms: float | None = None

    @property
    def kind(self) -> str:
        return "unreadable" if self.event is None else self.event.type

    @property
    def marks(self) -> list[str]:
        """``error`` and ``denied`` for a failed or refused call (or a failed hook)."""
        found = []
        for e in (self.event, self.result):
            if getattr(e, "is_error", None):
                found.append("error")
            if getattr(e, "denied", None):
                found.append("denied")
        return sorted(set(found))


@dataclass(frozen=True)
class TimelinePage:
    steps: list[Step]
    page: int
    pages: int
    first: int
    total: int


def page_of_step(offsets: LineOffsets, step: int, size: int) -> int:
    """The page (1-based) holding tool call ``step``."""
    if not 0 <= step < len(offsets.tool_calls):
        return 1
    return offsets.tool_calls[step] // size + 1


def timeline_page(path: Path, offsets: LineOffsets, page: int, size: int) -> TimelinePage:
    pages = max(1, -(-offsets.lines // size))
    page = min(max(1, page), pages)
    first = (page - 1) * size
    lines = read_lines(path, offsets, first, size)
    calls_before = bisect_left(offsets.tool_calls, first)
    return TimelinePage(build_steps(lines, first, calls_before), page, pages, first, offsets.lines)


def build_steps(lines: list[bytes], first: int, calls_before: int) -> list[Step]:
    steps: list[Step] = []
    calls: dict[str, Step] = {}
    previous_ts: datetime | None = None
    tool_index = calls_before
    for number, line in enumerate(lines, start=first):
        try:
            event: Event | None = EVENT_ADAPTER.validate_json(line)
        except ValidationError:
            steps.append(Step(number, None, raw=shown_line(line)))
            continue
        if event is not None and len(line) > LINE_SHOWN:  # its long texts shown cut
            event = _shortened(event)
        ts = _time(event.ts) if event is not None else None
        delta = (ts - previous_ts).total_seconds() * 1000 if ts and previous_ts else None
        previous_ts = ts or previous_ts
        if isinstance(event, ToolResult) and event.id and event.id in calls:
            calls.pop(event.id).result = event
            continue
        if (
            isinstance(event, Usage)
            and steps
            and steps[-1].usage is None
            and steps[-1].kind in ("assistant_text", "tool_call", "thinking")
        ):
            steps[-1].usage = event
            continue
        step = Step(number, event, delta_ms=delta)
        if isinstance(event, ToolCall):
            if not is_harness_call(event.name, event.kind):
                step.tool_index = tool_index
                tool_index += 1
            if event.id:
                calls[event.id] = step
        steps.append(step)
    return steps


LINE_SHOWN = 20_000
"""The most of one text a page shows, and of a line shown as it is: a 30 MB tool output made a
page of 30 MB that took a minute (the whole file is a link away)."""


def _cut(text: str) -> str:
    """The text's first :data:`LINE_SHOWN` characters, or fewer so as not to cut a registered
    secret in two (the page masks whole secrets), and how much more there is."""
    if len(text) <= LINE_SHOWN:
        return text
    at = clear_cut(text, LINE_SHOWN)
    return f"{text[:at]} … [{len(text) - at:,} more characters not shown]"


def _shortened(event: Event) -> Event:
    """The event with its long texts cut for the page: a message's or result's text, and the
    strings of a tool call's input (a file written whole)."""
    update: dict[str, object] = {}
    for name in ("text", "output"):
        value = getattr(event, name, None)
        if isinstance(value, str) and len(value) > LINE_SHOWN:
            update[name] = _cut(value)
    given = getattr(event, "input", None)
    if isinstance(given, dict):
        cut = {k: _cut(v) if isinstance(v, str) else v for k, v in given.items()}
        if cut != given:
            update["input"] = cut
    return event.model_copy(update=update) if update else event


def shown_line(line: bytes) -> str:
    """A line as a page shows it: its first :data:`LINE_SHOWN` bytes (or fewer so as not to
    cut a registered secret in two), and how much more there is."""
    if len(line) <= LINE_SHOWN:
        return line.decode("utf-8", errors="replace")
    head, more = cut_line(line, LINE_SHOWN)
    return f"{head} … [{more:,} more bytes not shown]"


def _time(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    # A time without a zone is read as UTC, as the transcripts write theirs: one such line
    # among zoned ones must not make the gap between them incomparable.
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
