"""Reading session summaries back: the JSON a measure writes (in a worker, or kept by the
:mod:`~proctor.history.cache`), read back in batches as
:class:`~proctor.history.record.SessionRecord` objects, checked in to the cache, and sorted
into those the replay's filters keep and those of other projects' Claude Code sessions."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import TYPE_CHECKING

import orjson

from proctor.history.cache import SummaryCache
from proctor.history.layout import Session
from proctor.history.projects import same_project
from proctor.history.record import SessionRecord, records_of, set_responses
from proctor.models.history import Unavailable

if TYPE_CHECKING:
    from proctor.history.replay import Filters, Measured, Other


RESPONSES = b"\x00"
"""Between a summary's JSON and its responses' (JSON text never holds a NUL byte)."""


def read_summary(session: Session, blob: bytes) -> SessionRecord | Unavailable:
    """A summary's JSON, as :func:`~proctor.history.replay.measure_session` writes it (and
    the cache keeps it), read back; a text that does not read as one is the session
    unavailable, saying so."""
    (record,) = each_read([blob])
    return record if record is not None else _unread(session)


def _unread(session: Session) -> Unavailable:
    reason = "could not be measured: its summary did not read back"
    return Unavailable(agent=session.agent, path=session.file, reason=reason)


BATCH = 2_000
"""Summaries read back per call: one call per summary would cost more than the reading."""


def gathered(
    results: Iterable[Measured],
    todo: list[Session],
    filters: Filters,
    cache: SummaryCache | None,
    size: int,
    others: list[Other] | None = None,
) -> Iterator[SessionRecord | Unavailable]:
    batch: list[tuple[int, bytes, str | None]] = []
    for index, result, stamp in results:
        if isinstance(result, bytes):
            batch.append((index, result, stamp))
            if len(batch) >= size:
                yield from _checked_in(batch, todo, filters, cache, others)
                batch = []
        elif isinstance(result, tuple):  # a Claude Code session of another project
            if others is not None:
                others.append((todo[index], result))
        elif result is not None:
            yield result
    yield from _checked_in(batch, todo, filters, cache, others)


def _checked_in(
    batch: list[tuple[int, bytes, str | None]],
    todo: list[Session],
    filters: Filters,
    cache: SummaryCache | None,
    others: list[Other] | None = None,
) -> Iterator[SessionRecord | Unavailable]:
    summaries = each_read([blob for _, blob, _ in batch], trusted=True)
    for (index, blob, stamp), summary in zip(batch, summaries, strict=True):
        session = todo[index]
        if summary is None:
            yield _unread(session)
            continue
        if summary.path != session.file:  # a name that is not UTF-8, escaped in the JSON
            summary.path = session.file  # the file itself (a fork's reading opens it again)
        if cache is not None and stamp is not None:
            cache.put(session, stamp, blob)
        if filters.keeps(summary):
            yield summary
        elif others is not None and elsewhere(summary, filters):
            others.append((session, summary))


def elsewhere(summary: SessionRecord, filters: Filters) -> bool:
    """Whether a summary is of a Claude Code session the project filter leaves out."""
    return (
        summary.agent == "claude-code"
        and filters.project is not None
        and not same_project(summary.project, filters.project)
    )


def each_read(blobs: list[bytes], *, trusted: bool = False) -> list[SessionRecord | None]:
    """Each summary read back (see :func:`~proctor.history.record.records_of`), in batches;
    None for one that does not read back as a summary (a damaged cache row)."""
    out: list[SessionRecord | None] = []
    for start in range(0, len(blobs), BATCH):
        parts = [blob.split(RESPONSES, 2) for blob in blobs[start : start + BATCH]]
        summaries = records_of([part[0] for part in parts])
        tails = [part[1] for part in parts if len(part) == 3]
        try:  # the digests only, in one call per batch (the rows are read when needed)
            loaded = orjson.loads(b"[" + b",".join(tails) + b"]") if tails else []
        except orjson.JSONDecodeError:  # a damaged cache row among them: one at a time
            loaded = [_loaded(tail) for tail in tails]
        held = iter(loaded)
        for summary, part in zip(summaries, parts, strict=True):
            if len(part) == 3:
                ids = next(held)
                # A worker's own are read as they are; a cache row's are checked for shape.
                if summary is not None and (trusted or _ids_fit(ids)):
                    set_responses(summary, ids, part[2])
                else:
                    out.append(None)  # a damaged row: replayed
                    continue
            elif len(part) == 2:
                out.append(None)  # digests without rows: a damaged row
                continue
            if not trusted and summary is not None and not _times_fit(summary):
                out.append(None)  # a time edited by hand: replayed
                continue
            out.append(summary)
    return out


def _times_fit(summary: SessionRecord) -> bool:
    """Whether a cache row's times read as times, as a replay writes them (a row edited by
    hand is replayed instead: its dates pick its day and week)."""
    try:
        for moment in (summary.started_at, summary.ended_at):
            if moment is not None:
                datetime.fromisoformat(moment)
    except (TypeError, ValueError):
        return False
    return True


def _loaded(tail: bytes) -> object:
    try:
        return orjson.loads(tail)
    except orjson.JSONDecodeError:
        return None


def _ids_fit(ids: object) -> bool:
    """Whether a cache row's digests have the shape a replay writes (a damaged or edited row
    is replayed instead)."""
    return type(ids) is list and all(type(i) is int for i in ids)
