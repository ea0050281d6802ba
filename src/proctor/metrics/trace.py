"""The raw material of every metric: tool calls paired with their results, paths and times."""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from proctor.models.process import CheckOutcome
from proctor.models.trajectory import Event, ToolCall, ToolResult

READ_KINDS = frozenset({"read"})
SEARCH_KINDS = frozenset({"search"})
EDIT_KINDS = frozenset({"write", "edit"})
EXPLORE_KINDS = READ_KINDS | SEARCH_KINDS | EDIT_KINDS

#: Files whose edits alone do not change code (see :func:`is_code_edit`).
DOC_SUFFIXES = (".md", ".markdown", ".rst", ".txt", ".adoc")


@dataclass(frozen=True)
class Step:
    """One tool call (``index`` counts tool calls from 0) with its paired result, if any."""

    index: int
    call: ToolCall
    result: ToolResult | None
    files: tuple[str, ...]
    outcome: CheckOutcome

    @property
    def kind(self) -> str:
        return self.call.kind or "other"


def outcome(result: ToolResult | None) -> CheckOutcome:
    """``pass``/``fail`` from the result's ``isError``; ``unknown`` when missing, None or denied."""
    if result is None or result.is_error is None or result.denied:
        return "unknown"
    return "fail" if result.is_error else "pass"


def is_code_edit(step: Step) -> bool:
    """An edit or write touching a file that is not documentation, or naming no file.

    Editing only ``CHANGELOG.md`` or notes does not change code: such an edit neither makes a
    trial a task nor needs a check after it.
    """
    return step.kind in EDIT_KINDS and (
        not step.files or any(not f.lower().endswith(DOC_SUFFIXES) for f in step.files)
    )


def _posix(path: str) -> str:
    """POSIX ``normpath``, also collapsing the leading ``//`` that it keeps."""
    p = posixpath.normpath(path)
    return "/" + p.lstrip("/") if p.startswith("//") else p


def normalise_path(path: str, workspace: str | None = None) -> str:
    """Workspace-relative POSIX form: no ``./``, ``..``, ``//`` or trailing ``/``.

    Path and workspace are both normalised before the workspace prefix is removed, so
    ``/ws/../ws/src/a.py`` and a workspace given as ``/ws/./`` still compare. Returns ``""``
    for a blank path.
    """
    p = path.strip().replace("\\", "/")
    if not p:
        return ""
    p = _posix(p)
    ws = (workspace or "").strip().replace("\\", "/")
    if not ws:
        return p
    ws = _posix(ws)
    prefix = ws if ws.endswith("/") else ws + "/"
    if p == ws:
        return "."
    return p[len(prefix) :] if p.startswith(prefix) else p


def normalise_paths(paths: Iterable[str] | None, workspace: str | None) -> tuple[str, ...]:
    """Normalised, de-duplicated, non-blank paths in first-seen order."""
    out = dict.fromkeys(normalise_path(p, workspace) for p in paths or ())
    out.pop("", None)
    return tuple(out)


def build_steps(events: Sequence[Event], workspace: str | None = None) -> list[Step]:
    """Tool calls in order, each paired with the first later result carrying its id.

    When calls reuse an id, a result goes to the most recent call of that id still without one,
    so an earlier call is not left unanswered while a later one takes its result.
    """
    calls: list[ToolCall] = []
    results: dict[int, ToolResult] = {}
    open_ids: dict[str, list[int]] = {}
    for event in events:
        if isinstance(event, ToolCall):
            if event.id is not None:
                open_ids.setdefault(event.id, []).append(len(calls))
            calls.append(event)
        elif isinstance(event, ToolResult) and event.id is not None and open_ids.get(event.id):
            results[open_ids[event.id].pop()] = event
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


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)


def step_texts(step: Step) -> list[str]:
    """The string values of a call's input, and its result's output: where symbols are sought.

    Values rather than the input's JSON, so that keys never match and non-ASCII text is not
    escaped.
    """
    output = step.result.output if step.result else None
    return [*_strings(step.call.input), *([output] if output else [])]


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
