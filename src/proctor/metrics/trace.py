"""The raw material of every metric: tool calls paired with their results, paths and times."""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

from proctor.models.trajectory import Event

CheckOutcome = Literal["pass", "fail", "unknown"]

READ_KINDS = frozenset({"read"})
SEARCH_KINDS = frozenset({"search"})
EDIT_KINDS = frozenset({"write", "edit"})
EXPLORE_KINDS = READ_KINDS | SEARCH_KINDS | EDIT_KINDS


@dataclass(frozen=True)
class Step:
    """One tool call (``index`` counts tool calls from 0) with its paired result, if any."""

    index: int
    call: Event
    result: Event | None
    files: tuple[str, ...]
    outcome: CheckOutcome

    @property
    def kind(self) -> str:
        return self.call.kind or "other"


def outcome(result: Event | None) -> CheckOutcome:
    """``pass``/``fail`` from the result's ``isError``; ``unknown`` when missing, None or denied."""
    if result is None or result.is_error is None or result.denied:
        return "unknown"
    return "fail" if result.is_error else "pass"


def normalise_path(path: str, workspace: str | None = None) -> str:
    """Workspace-relative POSIX form: no ``./``, no trailing ``/``, workspace prefix removed.

    Returns ``""`` for a blank path.
    """
    p = path.strip().replace("\\", "/")
    if not p:
        return ""
    ws = (workspace or "").strip().replace("\\", "/").rstrip("/")
    if ws and (p == ws or p.startswith(ws + "/")):
        p = p[len(ws) :].lstrip("/") or "."
    return posixpath.normpath(p)


def normalise_paths(paths: Iterable[str] | None, workspace: str | None) -> tuple[str, ...]:
    """Normalised, de-duplicated, non-blank paths in first-seen order."""
    out = dict.fromkeys(normalise_path(p, workspace) for p in paths or ())
    out.pop("", None)
    return tuple(out)


def build_steps(events: Sequence[Event], workspace: str | None = None) -> list[Step]:
    """Tool calls in order, each paired with the first later result carrying its id."""
    calls: list[Event] = []
    results: dict[int, Event] = {}
    open_ids: dict[str, int] = {}
    for event in events:
        if event.type == "tool_call":
            if event.id is not None:
                open_ids[event.id] = len(calls)
            calls.append(event)
        elif event.type == "tool_result" and event.id in open_ids:
            results[open_ids.pop(event.id)] = event
    return [
        Step(
            index=i,
            call=call,
            result=results.get(i),
            files=normalise_paths(call.files, workspace),
            outcome=outcome(results.get(i)),
        )
        for i, call in enumerate(calls)
    ]


def shell_command(step: Step) -> str | None:
    """The command of a shell call (``input["command"]``, or ``cmd``; a list is space-joined)."""
    if step.kind != "shell" or not step.call.input:
        return None
    raw = step.call.input.get("command", step.call.input.get("cmd"))
    if isinstance(raw, str):
        return raw
    if isinstance(raw, list) and all(isinstance(part, str) for part in raw):
        return " ".join(raw)
    return None


def normalise_command(command: str) -> str:
    """A command with runs of whitespace collapsed to one space and the ends stripped."""
    return " ".join(command.split())


def parse_ts(ts: str | None) -> datetime | None:
    """An ISO-8601 timestamp as an aware datetime (naive means UTC); None when absent or bad."""
    if not ts:
        return None
    try:
        parsed = datetime.fromisoformat(ts)
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def trial_start(events: Sequence[Event]) -> datetime | None:
    """The earliest timestamp of any event; None when no event has one."""
    stamps = [t for t in (parse_ts(e.ts) for e in events) if t is not None]
    return min(stamps) if stamps else None


def seconds_since(start: datetime | None, ts: str | None) -> float | None:
    """Seconds from ``start`` to ``ts``; None when either is missing."""
    moment = parse_ts(ts)
    if start is None or moment is None:
        return None
    return (moment - start).total_seconds()
