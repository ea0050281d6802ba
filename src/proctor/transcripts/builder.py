"""The one trajectory builder every parser feeds.

Parsers turn native records into events (the ``trajectory.jsonl`` objects: camelCase keys, no
empty fields) and hand them to a :class:`TrajectoryBuilder`, which

* keeps them in order and, given a sink, hands all but the last :data:`WINDOW` of them on as
  the parse goes, so a transcript of any size is parsed in flat memory;
* counts the parse coverage: lines, records of unknown or malformed types, unparsed lines;
* keeps one usage row per model response (a later, better line for the same response replaces
  the row, and the event while it is still held) and sums them per model;
* builds the :class:`~proctor.models.trajectory.Trajectory` at the end.
"""

from __future__ import annotations

import heapq
import operator
from collections import deque
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, ClassVar

import msgspec
from pydantic import ValidationError

from proctor.models.trajectory import (
    EVENT_ADAPTER,
    OUTPUT_CAP,
    Event,
    ModelUsage,
    ParseCoverage,
    ResponseTokens,
    Trajectory,
    event_conforms,
    usage_by_model,
)

EventDict = dict[str, Any]
"""One event as the JSON object written to ``trajectory.jsonl`` (camelCase keys, no nulls)."""
EventSink = Callable[[EventDict], None]
StartHook = Callable[[str | None, str | None], None]
"""Called once, before a streaming parse's first event, with the session id and CLI version."""
WINDOW = 256
"""Events a streaming parse holds back, so that a usage event can still take a better line."""
RAW_CAP = 2000
MALFORMED = (TypeError, KeyError, ValueError, AttributeError, IndexError)
"""What a record with fields of unexpected types raises inside a parser (pydantic's
ValidationError is a ValueError): the record is counted as malformed, never fatal."""
UsageRow = ResponseTokens
"""(model, input, output, cache read, cache write, the part of the cache write kept for an
hour) of one model response."""
ResponseRow = tuple[int, bool, str, int, int, int, int, int]
"""A response counted: the digest of its ids, whether a sidechain line gave it, and its
:data:`UsageRow`."""


MAX_TOKENS = 2**53
"""More tokens than any response has had; a count above it is a corrupt line, not usage."""
UNTYPED = "unknown-record"
"""The type a record without one (a JSON object with no ``type``) is counted under."""


def token_count(value: Any) -> int:
    """A token count as a transcript states it: a whole number from 0 to :data:`MAX_TOKENS`
    (an integral float too); anything else (a string, a negative or absurd number, NaN,
    infinity, ``true``) counts 0 rather than corrupting the totals or the records."""
    if type(value) is int:
        return value if 0 <= value <= MAX_TOKENS else 0
    if type(value) is float and value.is_integer() and 0 <= value <= MAX_TOKENS:
        return int(value)
    return 0


def ev(**fields: Any) -> EventDict:
    """An event from keyword fields (already camelCase), without the empty ones."""
    return {k: v for k, v in fields.items() if v is not None}


class TrajectoryBuilder:
    """Collects one transcript's events, coverage, usage and ids (see the module docstring).

    Without a sink every event stays in ``pending`` (the in-memory parse). ``add`` appends an
    event; while ``sidechain`` is set, events are marked as a subagent's.
    """

    def __init__(
        self, fmt: str, sink: EventSink | None = None, on_start: StartHook | None = None
    ) -> None:
        self.format = fmt
        self.sink = sink
        self.on_start = on_start
        self.pending: list[EventDict] = []
        self.handed_on = 0
        """Events given to the sink so far; those are never changed afterwards."""
        # Given, not defaulted: pydantic deep-copies a default dict (a history parses thousands).
        self.coverage = ParseCoverage(unknown_record_types={})
        self.session_id: str | None = None
        self.version: str | None = None
        self.sidechain = False
        self.started: str | None = None
        """When the transcript says the session started, for a format whose events carry no
        time of their own (a Codex rollout of the releases before the envelope)."""
        self.usage_rows: dict[Hashable, UsageRow] = {}
        self._usage_events: dict[Hashable, EventDict] = {}
        self._open_usage: deque[tuple[int, Hashable]] = deque()
        self._responses = 0
        self._malformed_usage: set[Hashable] = set()

    # -- events -----------------------------------------------------------------------------

    def add(self, event: EventDict) -> None:
        if self.sidechain:
            event["sidechain"] = True
        self.pending.append(event)

    def ids(self, session_id: Any = None, version: Any = None) -> None:
        """Remember the session id and CLI version (the first non-empty strings given)."""
        if self.session_id is None and isinstance(session_id, str) and session_id:
            self.session_id = session_id
        if self.version is None and isinstance(version, str) and version:
            self.version = version

    def count_unknown(self, record_type: str) -> None:
        counts = self.coverage.unknown_record_types
        counts[record_type] = counts.get(record_type, 0) + 1

    def unknown(self, record_type: str, raw: Any, ts: Any = None, text: str | None = None) -> None:
        """A record the parser does not know: counted, and kept as an ``other`` event."""
        self.count_unknown(record_type)
        self.add(ev(type="other", ts=ts, recordType=record_type, text=text, raw=raw))

    def malformed(self, record_type: Any, exc: Exception, raw: Any, ts: Any = None) -> None:
        """A record whose fields have types the parser did not expect: counted, kept raw."""
        self.unknown(f"malformed/{record_type}", raw, ts, str(exc)[:200])

    def check_counts(
        self,
        usage: dict[str, Any],
        keys: tuple[str, ...],
        ts: Any = None,
        response: Hashable | None = None,
    ) -> None:
        """Count a response's usage whose token counts are not all counts (a string, a
        negative or absurd number: see :func:`token_count`) as ``malformed/usage``: such a
        count adds nothing to the totals, and the record says so. Once per ``response`` (the
        lines of one Claude Code response repeat its usage)."""
        for key in keys:
            value = usage.get(key)
            if value is not None and value != 0 and not token_count(value):
                if response is not None:
                    if response in self._malformed_usage:
                        return
                    self._malformed_usage.add(response)
                problem = ValueError(f"{key} is not a token count: {value!r}"[:200])
                self.malformed("usage", problem, None, ts)  # (a number JSON cannot hold)
                return

    def guarded(self, handle: Callable[[dict[str, Any]], None], record: dict[str, Any]) -> None:
        """``handle(record)``; a record whose fields have types the parser did not expect is
        counted and kept (:meth:`malformed`), never fatal."""
        try:
            handle(record)
        except MALFORMED as exc:
            self.malformed(record.get("type"), exc, record)

    def unparsed(self, text: str) -> None:
        """A line that is not a JSON object."""
        self.coverage.unparsed_lines += 1
        self.add({"type": "other", "recordType": "unparsed", "raw": text[:RAW_CAP]})

    def usage(self, row: UsageRow, ts: Any = None, key: Hashable | None = None) -> None:
        """One model response's tokens. A ``key`` seen before names the same response: its row
        (and its event, while still held back) take the new numbers."""
        if key is None:
            self._responses += 1
            key = ("response", self._responses)
        model, inp, out, read, write, hour = row
        tokens: EventDict = {
            "model": model,
            "inputTokens": inp,
            "outputTokens": out,
            "cacheReadTokens": read,
            "cacheWriteTokens": write,
        }
        if hour:  # Claude Code's cache writes kept for an hour
            tokens["cacheWrite1hTokens"] = hour
        if key not in self.usage_rows:
            event = (
                {"type": "usage", "ts": ts, **tokens}
                if ts is not None
                else {
                    "type": "usage",
                    **tokens,
                }
            )
            self._usage_events[key] = event
            if self.sink is not None:
                self._open_usage.append((self.handed_on + len(self.pending), key))
            self.add(event)
        else:
            held = self._usage_events.get(key)
            if held is not None:
                held.pop("cacheWrite1hTokens", None)  # a better line without an hour's writes
                held.update(tokens)
        self.usage_rows[key] = row

    # -- streaming --------------------------------------------------------------------------

    def maybe_drain(self) -> None:
        """Hand on all but the last :data:`WINDOW` events once twice that many are held."""
        if self.sink is not None and len(self.pending) >= 2 * WINDOW:
            self.drain(len(self.pending) - WINDOW)

    def drain(self, count: int) -> None:
        sink = self.sink
        if sink is None:
            return
        if self.on_start is not None:
            self.on_start(self.session_id, self.version)
            self.on_start = None
        for event in self.pending[:count]:
            sink(self._checked(event))
        del self.pending[:count]
        self.handed_on += count
        open_usage = self._open_usage
        while open_usage and open_usage[0][0] < self.handed_on:
            del self._usage_events[open_usage.popleft()[1]]

    def finish(self) -> Trajectory:
        """The trajectory: with a sink, its events have all been handed on and it holds none.

        An event whose fields have types the schema does not allow (a transcript field of an
        unexpected type) becomes an ``other`` event counted as ``malformed/<type>``."""
        if self.sink is not None:
            self.drain(len(self.pending))
        fields = {
            "format": self.format,
            "usage": usage_by_model(self.usage_rows.values()),
            "coverage": self.coverage,
            "sessionId": self.session_id,
            "agentVersion": self.version,
        }
        try:
            return Trajectory.model_validate({**fields, "events": self.pending})
        except ValidationError:
            events = [self._valid(event) for event in self.pending]
            return Trajectory.model_validate({**fields, "events": events})

    def finish_plain(self) -> PlainTrajectory:
        """What :meth:`finish` gives, the events left as objects: each one the schema reads
        as it stands (:func:`~proctor.models.trajectory.event_conforms`), else read by the
        schema and written back (a field it converts, such as ``"isError": "true"``), else
        an ``other`` event counted as ``malformed/<type>``, as :meth:`finish` makes it. For a
        caller that measures the events and keeps none of them (history replay): building
        the models is most of a parse's time. A :class:`MeasuredCall` or
        :class:`MeasuredResult` among them was built conforming and is kept as it is."""
        if self.sink is not None:
            self.drain(len(self.pending))
        events = [
            e if type(e) is not dict or event_conforms(e) else self._plain(e) for e in self.pending
        ]
        return PlainTrajectory(
            format=self.format,
            events=events,
            usage=usage_by_model(self.usage_rows.values()),
            coverage=self.coverage,
            session_id=self.session_id,
            agent_version=self.version,
            started=self.started,
            usage_rows=list(self.usage_rows.values()),
        )

    def _valid(self, event: EventDict) -> Event:
        return EVENT_ADAPTER.validate_python(self._checked(event))

    def _plain(self, event: EventDict) -> EventDict:
        try:
            model = EVENT_ADAPTER.validate_python(event)
        except ValidationError as exc:
            return self._malformed(event, exc)
        # Python values, as the full parse's models hold them (a NaN in an input stays NaN).
        return model.model_dump(by_alias=True, exclude_none=True)

    def _checked(self, event: EventDict) -> EventDict:
        """The event when the schema allows it, else an ``other`` event counted as
        ``malformed/<type>`` that keeps it raw (the same for streamed and whole parses)."""
        try:
            EVENT_ADAPTER.validate_python(event)
            return event
        except ValidationError as exc:
            return self._malformed(event, exc)

    def _malformed(self, event: EventDict, exc: ValidationError) -> EventDict:
        record_type = f"malformed/{event.get('type')}"
        self.count_unknown(record_type)
        text = str(exc.errors()[0].get("msg", exc))[:200]
        return {"type": "other", "recordType": record_type, "text": text, "raw": event}


class MeasuredCall(msgspec.Struct, gc=False):
    """A tool call as a reader for a measure builds it (see
    :mod:`proctor.transcripts.claude.measure`): what the metrics read of a call, already in the
    form its event's model holds, and no more. A struct made in C (a history replay builds
    millions); never in a reference cycle, so the collector leaves it alone."""

    ts: str | None
    id: str | None
    kind: str
    input: dict[str, Any]
    files: list[str]
    cwd: str | None = None
    """The folder a shell call ran in, when it is not the session's (see ToolCall.cwd)."""
    type: ClassVar[str] = "tool_call"


class MeasuredResult(msgspec.Struct, gc=False):
    """A tool result as a reader for a measure builds it. Its output is kept as the line's
    JSON holds it, and read only if a measure asks for it: a masked check's runner summary
    (see :mod:`proctor.metrics.summaries`) is the one measure of a history that reads one."""

    id: str | None
    is_error: bool | None
    """None when the result does not say (a command that goes on in the background)."""
    denied: bool
    ts: str | None = None
    """The result line's time: where a session's subagents are merged by time, the result
    sits at it, as the full parse's event does."""
    content: msgspec.Raw | None = None
    """The result's ``content`` as its line's JSON holds it (empty: none)."""
    type: ClassVar[str] = "tool_result"

    @property
    def output(self) -> str | None:
        """The output as the full parse's event holds it (see :func:`result_text`)."""
        if not self.content:
            return None
        try:
            return result_text(msgspec.json.decode(self.content))[:OUTPUT_CAP]
        except (msgspec.DecodeError, RecursionError):  # (the line decoded: so does its part)
            return None


def result_text(content: Any) -> str:
    """The text of a tool result's ``content`` as Claude's messages give it: a string, or the
    text blocks of a list joined by newlines (an image is no text)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, dict) and block.get("type") == "text":
                parts.append(str(block.get("text", "")))
            elif isinstance(block, str):
                parts.append(block)
        return "\n".join(parts)
    return ""


@dataclass
class PlainTrajectory:
    """A :class:`~proctor.models.trajectory.Trajectory` whose events are their
    ``trajectory.jsonl`` objects, each one the schema reads as it stands (see
    :meth:`TrajectoryBuilder.finish_plain`)."""

    format: str
    events: list[EventDict]
    """The events; a reader for a measure also gives :class:`MeasuredCall` and
    :class:`MeasuredResult` objects among them, and leaves out the events no measure reads
    but for their time (:attr:`stamps`)."""
    usage: dict[str, ModelUsage]
    coverage: ParseCoverage
    session_id: str | None
    agent_version: str | None
    cwd: str | None = None
    """The folder the session ran in, when the parser read it from the session's first
    records (Claude Code)."""
    stamps: list[str] | None = None
    """The timestamps of events a reader for a measure left out (see
    :mod:`proctor.transcripts.claude.measure`): its time span counts them with the events'."""
    started: str | None = None
    """When the session started by its header, for a transcript whose events carry no time of
    their own (see :attr:`TrajectoryBuilder.started`): a replay dates the session by it."""
    responses: list[ResponseRow] | None = None
    """Each model response counted, by a digest of its ids that stays the same from process
    to process (Claude Code): a history counts a response one session copied from another
    once (see :mod:`proctor.history.dedup`)."""
    usage_rows: list[UsageRow] | None = None
    """Each model response's tokens (what ``usage`` sums): a long prompt's response is priced
    at its model's long-context rates."""


def merge_subagents(
    main: TrajectoryBuilder,
    parts: Iterable[TrajectoryBuilder],
    sink: EventSink | None = None,
    on_start: StartHook | None = None,
) -> TrajectoryBuilder:
    """``main`` holding the events, usage and coverage of its subagents' transcripts too, each
    parsed into a builder of its own without a sink (a Codex subagent's thread, a Gemini CLI
    subagent's chat). A subagent runs beside the agent that started it, so the events are
    merged in time order, each transcript's own order kept, and the subagents' are marked
    ``sidechain``; responses and coverage are added, and the ids are the main transcript's.
    ``sink`` and ``on_start`` are given the merged events when the builder finishes (they are
    held until then)."""
    runs = [main.pending]
    for number, part in enumerate(parts, start=1):
        for event in part.pending:
            event["sidechain"] = True
        runs.append(part.pending)
        for key, row in part.usage_rows.items():
            main.usage_rows[("subagent", number, key)] = row
        main.coverage.lines += part.coverage.lines
        main.coverage.unparsed_lines += part.coverage.unparsed_lines
        for record_type, count in part.coverage.unknown_record_types.items():
            main.coverage.unknown_record_types[record_type] = (
                main.coverage.unknown_record_types.get(record_type, 0) + count
            )
    if len(runs) > 1:
        main.pending = in_time_order(runs)
    main.sink, main.on_start = sink, on_start
    return main


def in_time_order(runs: Sequence[Sequence[Any]]) -> list[Any]:
    """The events of several transcripts (or parts of one), each in its own order, merged in
    time order; at the same time, those of an earlier run first."""
    timed = [_timed(run, first=number == 0) for number, run in enumerate(runs)]
    merged = heapq.merge(*timed, key=operator.itemgetter(0))
    return [event for _, event in merged]


_AFTER_ALL = "\uffff"
"""Sorts after every time."""


def time_of(event: Any) -> str | None:
    """An event's time as it sorts (see :func:`time_key`): a dict's, or a reader for a
    measure's call's or result's; None when it has none, or one that does not read."""
    ts = event.get("ts") if type(event) is dict else getattr(event, "ts", None)
    return time_key(ts) if isinstance(ts, str) else None


def time_key(ts: str) -> str | None:
    """A time as text that sorts as the time does: a CLI's own form (UTC, milliseconds,
    ``2026-12-04T21:00:02.947Z``) as it is, any other (another offset, another precision)
    written so; None for text that is no time."""
    if len(ts) == 24 and ts[-1] == "Z" and ts[19] == ".":
        return ts
    try:
        moment = datetime.fromisoformat(ts[:-1] + "+00:00" if ts[-1:] in "Zz" else ts)
    except ValueError:
        return None
    if moment.tzinfo is not None:
        try:
            moment = moment.astimezone(UTC)
        except (OverflowError, ValueError):
            return None
    return moment.replace(tzinfo=None).isoformat(timespec="milliseconds") + "Z"


def _timed(run: Sequence[Any], *, first: bool = True) -> Iterable[tuple[str, Any]]:
    """A transcript's events (dicts, or a reader for a measure's calls and results) with the
    times they sort by (ISO 8601 in UTC): an event without a time takes the time of the one
    before it; before the first with one, the start (the ``first`` run's, the main
    transcript's) or the time of the run's first event that has one (another's: a file of a
    subagent with no time at all goes last)."""
    last = ""
    if not first:
        last = next((ts for e in run if (ts := time_of(e)) is not None), _AFTER_ALL)
    for event in run:
        ts = time_of(event)
        last = ts if ts is not None else last
        yield last, event
